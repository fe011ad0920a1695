/**
 * The three stores a bench fills and measures (bench:quiz, bench:leaderboard): a temp SQLite file, a PostgreSQL
 * schema of its own and a Redis key prefix of its own, each dropped after the run; one whose server is not there
 * gives no location and is skipped.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { StoreLocation } from '../src/store/open-store.ts';

export interface BenchBackend {
  name: 'sqlite' | 'postgres' | 'redis';
  location(): Promise<StoreLocation | null>;
  /** What the learning data takes in the store. */
  bytes(location: StoreLocation): Promise<number>;
  drop(location: StoreLocation): Promise<void>;
}

export const postgresUrl = process.env.POSTGRES_TEST_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const redisUrl = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379';

async function withPostgres<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresUrl });
  try {
    await client.connect();
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Every key under the location's prefix, in SCAN batches. */
async function eachKeyBatch(location: StoreLocation, work: (redis: Redis, keys: string[]) => Promise<void>): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${location.keyPrefix}*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await work(redis, keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export const benchBackends: BenchBackend[] = [
  {
    name: 'sqlite',
    async location() {
      return { url: `sqlite://${join(mkdtempSync(join(tmpdir(), 'wotd-bench-board-')), 'store.sqlite')}` };
    },
    async bytes(location) {
      const file = location.url.slice('sqlite://'.length);
      const size = (path: string) => {
        try {
          return statSync(path).size;
        } catch {
          return 0;
        }
      };
      return size(file) + size(`${file}-wal`);
    },
    async drop(location) {
      rmSync(join(location.url.slice('sqlite://'.length), '..'), { recursive: true, force: true });
    },
  },
  {
    name: 'postgres',
    async location() {
      const schema = `wotd_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
      try {
        await withPostgres((client) => client.query(`CREATE SCHEMA ${schema}`));
      } catch {
        return null;
      }
      return { url: `${postgresUrl}?options=-c%20search_path%3D${schema}`, keyPrefix: schema };
    },
    async bytes(location) {
      const result = await withPostgres((client) =>
        client.query<{ bytes: string }>(
          `SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname LIKE 'wotd_learning_%'`,
          [location.keyPrefix],
        ),
      );
      return Number(result.rows[0]?.bytes ?? 0);
    },
    async drop(location) {
      await withPostgres((client) => client.query(`DROP SCHEMA ${location.keyPrefix} CASCADE`));
    },
  },
  {
    name: 'redis',
    async location() {
      const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
      } catch {
        return null;
      } finally {
        redis.disconnect();
      }
      return { url: redisUrl, keyPrefix: `wotd-bench:${randomUUID()}:` };
    },
    async bytes(location) {
      let total = 0;
      await eachKeyBatch(location, async (redis, keys) => {
        for (const key of keys) total += (await redis.memory('USAGE', key)) ?? 0;
      });
      return total;
    },
    async drop(location) {
      await eachKeyBatch(location, async (redis, keys) => {
        await redis.del(...keys);
      });
    },
  },
];
