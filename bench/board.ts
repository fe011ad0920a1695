/**
 * The leaderboard at 100,000 members, for bench:leaderboard and bench:quiz: a server's streaks written in bulk as a
 * store written before the board's counts would hold them (the store builds its counts, or its rank zset, when it
 * opens or first reads: `upgrade_ms`), then READS rounds of /wotd-leaderboard as LearningService.leaderboardPage
 * reads it for a random member: the first page and the member's rank (`p50`/`p99`, the figure issue 36 sets at
 * 20 ms), and a random page of the 10,000 and the rank (`page_`). On SQLite and PostgreSQL the baseline is the
 * queries the store ran before the counts, on the same rows in the same rounds: LIMIT/OFFSET, COUNT(*) of the server
 * and the rows ahead counted. The floor is one trivial round trip to the same store in the same rounds (SELECT 1,
 * PING): what the machine's load alone costs a read.
 *
 * 40% of the members have a streak that ended (current 0) and a total of 1 to 3: three ties of 13,333 members each,
 * the board's worst case for a rank (counted within the tie).
 */
import { Redis } from 'ioredis';
import type { LearningStore } from '../src/learning/learning-store.ts';
import { LearningService } from '../src/learning/learning-service.ts';
import { openLearningStore } from '../src/learning/open-learning-store.ts';
import { openPostgresLearningDriver } from '../src/learning/postgres-learning-driver.ts';
import type { SqlDriver } from '../src/learning/sql-driver.ts';
import { openSqliteLearningDriver } from '../src/learning/sqlite-learning-driver.ts';
import type { StoreLocation } from '../src/store/open-store.ts';
import type { BenchBackend } from './store-backends.ts';

export const BOARD_MEMBERS = 100_000;
const READS = 300;
const SAVED_WORDS = 10_000;
const GUILD = 'g1';

export interface BoardFigures {
  p50: number;
  p99: number;
  pageP50: number;
  pageP99: number;
  baselineP50: number | null;
  baselineP99: number | null;
  baselinePageP99: number | null;
  floorP50: number;
  floorP99: number;
  upgradeMs: number;
  bytesPerMember: number;
  bytesPerSavedWord: number | null;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

function memberId(i: number): string {
  return String(700_000_000_000_000_000n + BigInt(i));
}

function streakOf(i: number) {
  const ended = i % 5 < 2;
  const current = ended ? 0 : 1 + (i % 40);
  const total = ended ? 1 + (i % 3) : current + (i % 90);
  return { guildId: GUILD, userId: memberId(i), run: current, current, best: current + (i % 7), total, lastDay: '2025-01-20' };
}

function openDriver(backend: BenchBackend, location: StoreLocation): Promise<SqlDriver> {
  return backend.name === 'sqlite' ? openSqliteLearningDriver(location.url) : openPostgresLearningDriver(location.url);
}

async function fillRedis(location: StoreLocation): Promise<void> {
  const redis = new Redis(location.url);
  try {
    for (let start = 0; start < BOARD_MEMBERS; start += 500) {
      const pipeline = redis.pipeline();
      for (let i = start; i < Math.min(BOARD_MEMBERS, start + 500); i += 1) {
        const streak = streakOf(i);
        pipeline.hset(`${location.keyPrefix}learning:streaks:${GUILD}`, streak.userId, JSON.stringify(streak));
        pipeline.sadd(`${location.keyPrefix}learning:guilds:${streak.userId}`, GUILD);
      }
      await pipeline.exec();
    }
  } finally {
    redis.disconnect();
  }
}

async function fillSql(driver: SqlDriver): Promise<void> {
  for (let start = 0; start < BOARD_MEMBERS; start += 500) {
    const rows: Array<string | number> = [];
    const values: string[] = [];
    for (let i = start; i < Math.min(BOARD_MEMBERS, start + 500); i += 1) {
      const s = streakOf(i);
      const n = rows.length;
      values.push(`($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}, $${n + 6}, $${n + 7})`);
      rows.push(s.guildId, s.userId, s.run, s.current, s.best, s.total, s.lastDay);
    }
    await driver.query(`INSERT INTO ${driver.table('wotd_learning_streaks')} (guild_id, user_id, run, current, best, total, last_day) VALUES ${values.join(', ')}`, rows);
  }
  // What autovacuum does after a bulk write (its insert threshold): the planner's figures and the visibility map
  // that lets a count read the index alone.
  if (driver.dialect === 'postgres') await driver.query(`VACUUM ANALYZE ${driver.table('wotd_learning_streaks')}`);
}

/** The store's queries before the board's counts: a page by OFFSET, the server counted, the rows ahead counted. */
async function baselineRead(driver: SqlDriver, userId: string, offset: number): Promise<void> {
  const streaks = driver.table('wotd_learning_streaks');
  await driver.query(`SELECT * FROM ${streaks} WHERE guild_id = $1 ORDER BY current DESC, total DESC, user_id LIMIT 10 OFFSET $2`, [GUILD, offset]);
  await driver.query(`SELECT COUNT(*) AS n FROM ${streaks} WHERE guild_id = $1`, [GUILD]);
  const [own] = await driver.query(`SELECT * FROM ${streaks} WHERE guild_id = $1 AND user_id = $2`, [GUILD, userId]);
  if (!own) throw new Error(`bench: no streak for ${userId}`);
  await driver.query(
    `SELECT (SELECT COUNT(*) FROM ${streaks} WHERE guild_id = $1 AND current > $2)
          + (SELECT COUNT(*) FROM ${streaks} WHERE guild_id = $1 AND current = $2 AND total > $3)
          + (SELECT COUNT(*) FROM ${streaks} WHERE guild_id = $1 AND current = $2 AND total = $3 AND user_id < $4) AS n`,
    [GUILD, Number(own.current), Number(own.total), userId],
  );
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** 50 saves at a time: 500 at once outwait PostgreSQL's pool on a loaded machine (its connect timeout). */
async function saveWords(store: LearningStore): Promise<void> {
  for (let i = 0; i < SAVED_WORDS; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, j) =>
        store.saveWord(`u${(i + j) % 100}`, { date: `2024-${String(((i + j) % 12) + 1).padStart(2, '0')}-${String(((i + j) % 28) + 1).padStart(2, '0')}-${i + j}`, word: 'serendipity', pos: 'noun' }, i + j),
      ),
    );
  }
}

/** Null when the backend's server is not there. */
export async function measureBoard(backend: BenchBackend, options: { savedWords: boolean }): Promise<BoardFigures | null> {
  const location = await backend.location();
  if (!location) return null;
  let store: LearningStore | null = null;
  let driver: SqlDriver | null = null;
  try {
    // The tables (or nothing, on Redis) as the store makes them, then the streaks written beside it.
    await (await openLearningStore(location)).close();
    const before = await backend.bytes(location);
    if (backend.name === 'redis') await fillRedis(location);
    else {
      driver = await openDriver(backend, location);
      await fillSql(driver);
    }
    const opened = performance.now();
    store = await openLearningStore(location);
    const service = new LearningService(store, { candidatesFor: async () => [] });
    await service.leaderboardPage(GUILD, memberId(0), 0);
    const upgradeMs = performance.now() - opened;
    const afterBoard = await backend.bytes(location);
    const first: number[] = [];
    const pages: number[] = [];
    const baseline: number[] = [];
    const baselinePages: number[] = [];
    const floor: number[] = [];
    const redis = backend.name === 'redis' ? new Redis(location.url) : null;
    for (let read = 0; read < READS; read += 1) {
      const member = memberId(Math.floor(Math.random() * BOARD_MEMBERS));
      const page = 1 + Math.floor(Math.random() * (BOARD_MEMBERS / 10 - 1));
      first.push(await timed(() => service.leaderboardPage(GUILD, member, 0)));
      pages.push(await timed(() => service.leaderboardPage(GUILD, member, page)));
      const sql = driver;
      floor.push(await timed(async () => (sql ? sql.query('SELECT 1') : redis?.ping())));
      if (sql) {
        baseline.push(await timed(() => baselineRead(sql, member, 0)));
        baselinePages.push(await timed(() => baselineRead(sql, member, page * 10)));
      }
    }
    redis?.disconnect();
    let bytesPerSavedWord: number | null = null;
    if (options.savedWords) {
      await saveWords(store);
      bytesPerSavedWord = Math.round(((await backend.bytes(location)) - afterBoard) / SAVED_WORDS);
    }
    const round = (value: number) => Math.round(value * 10) / 10;
    return {
      p50: round(percentile(first, 0.5)),
      p99: round(percentile(first, 0.99)),
      pageP50: round(percentile(pages, 0.5)),
      pageP99: round(percentile(pages, 0.99)),
      baselineP50: driver ? round(percentile(baseline, 0.5)) : null,
      baselineP99: driver ? round(percentile(baseline, 0.99)) : null,
      baselinePageP99: driver ? round(percentile(baselinePages, 0.99)) : null,
      floorP50: round(percentile(floor, 0.5)),
      floorP99: round(percentile(floor, 0.99)),
      upgradeMs: Math.round(upgradeMs),
      bytesPerMember: Math.round((afterBoard - before) / BOARD_MEMBERS),
      bytesPerSavedWord,
    };
  } finally {
    await store?.close();
    await driver?.close();
    await backend.drop(location);
  }
}
