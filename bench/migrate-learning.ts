/**
 * npm run bench:migrate-learning — migrate-store copying STREAKS streaks (default 100,000) from a SQLite file into a
 * PostgreSQL schema of its own: all in one server, then spread over 1,000 servers, twice each, in the same run. One
 * line per copy: `bench migrate-learning: target=postgres streaks=… servers=… migrate_ms=…`. The servers' board counts
 * are recounted once a server's streaks are written, so one large server should cost about what many small ones do
 * (counted once per page, it cost 2-3.5x). Skipped when PostgreSQL is not there.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runMigrateStore } from '../src/cli/migrate-store.ts';
import { SqlLearningStore } from '../src/learning/sql-learning-store.ts';
import { TABLES } from '../src/learning/sql-learning-rows.ts';
import { openSqliteLearningDriver } from '../src/learning/sqlite-learning-driver.ts';
import { SubscriptionStore } from '../src/schedule/subscription-store.ts';
import { benchBackends } from './store-backends.ts';

const STREAKS = Number(process.env.STREAKS ?? 100_000);

async function seed(url: string, servers: number): Promise<void> {
  await (await SubscriptionStore.open(url)).close();
  await (await SqlLearningStore.open(await openSqliteLearningDriver(url))).close();
  const driver = await openSqliteLearningDriver(url);
  try {
    await driver.transaction(async (query) => {
      for (let i = 0; i < STREAKS; i += 1) {
        await query(`INSERT INTO ${TABLES.streaks} VALUES ($1, $2, $3, $4, $5, $6, $7)`, [`g${i % servers}`, `u${String(i).padStart(7, '0')}`, i % 7, i % 7, i % 9, i % 50, '2025-03-01']);
      }
    });
  } finally {
    await driver.close();
  }
}

const postgres = benchBackends.find((backend) => backend.name === 'postgres');
for (const servers of [1, 1_000, 1, 1_000]) {
  const target = postgres ? await postgres.location() : null;
  if (!postgres || !target) {
    console.log('bench migrate-learning: skipped (no PostgreSQL)');
    break;
  }
  const dir = mkdtempSync(join(tmpdir(), 'wotd-bench-migrate-'));
  try {
    const source = `sqlite://${join(dir, 'store.sqlite')}`;
    await seed(source, servers);
    const started = performance.now();
    const code = await runMigrateStore(['--from', source, '--to', target.url]);
    if (code !== 0) throw new Error(`migrate-store exited ${code}`);
    console.log(`bench migrate-learning: target=postgres streaks=${STREAKS} servers=${servers} migrate_ms=${Math.round(performance.now() - started)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await postgres.drop(target);
  }
}
