import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { afterEach, describe } from 'vitest';
import type { StoreLocation } from '../../src/store/open-store.ts';
import { createSchema, dropSchema, postgresAdmin, postgresTestUrl, postgresUrlFor } from './postgres.ts';
import { keysUnder, redisClient, redisTestUrl } from './redis.ts';

/**
 * The stores the bot runs on, for suites that must hold on each of them: the same tests, run once per backend.
 * `fresh()` gives a test an empty store of its own (a temp SQLite file, a Redis key prefix, a PostgreSQL schema),
 * removed after the test; a backend whose server is not there is skipped (and fails the run under CI=true, see
 * redis-setup.ts and postgres-setup.ts).
 *
 * Cluster mode: `clusterBackends` are the stores several processes share, with their locks on Redis: Redis itself,
 * and PostgreSQL with REDIS_URL.
 */

export type BackendName = 'SQLite' | 'Redis' | 'PostgreSQL';

export interface StoreBackend {
  readonly name: BackendName;
  /** describe, skipped when the backend's server is not there. */
  readonly describe: (name: string, body: () => void) => void;
  /** An empty store for the calling test, removed after it. */
  fresh(): Promise<StoreLocation>;
  /** Replaces the stored text of `<namespace>:<key>` as it is (as damage would); the record must exist. */
  overwrite(location: StoreLocation, namespace: string, key: string, text: string): Promise<void>;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function sqliteRun(file: string, sql: string, values: unknown[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, (openError) => {
      if (openError) return reject(openError);
      db.run(sql, values, function (this: sqlite3.RunResult, error) {
        db.close();
        if (error) reject(error);
        else resolve(this.changes);
      });
    });
  });
}

export const sqliteBackend: StoreBackend = {
  name: 'SQLite',
  describe: (name, body) => describe(name, body),
  async fresh() {
    const dir = mkdtempSync(join(tmpdir(), 'wotd-store-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return { url: `sqlite://${join(dir, 'store.sqlite')}` };
  },
  async overwrite(location, namespace, key, text) {
    const changed = await sqliteRun(location.url.slice('sqlite://'.length), 'UPDATE keyv SET value = ? WHERE key = ?', [text, `${namespace}:${key}`]);
    if (changed !== 1) throw new Error(`no row ${namespace}:${key}`);
  },
};

async function freshRedisPrefix(): Promise<string> {
  const prefix = `wotd-test:${randomUUID()}:`;
  cleanups.push(async () => {
    const keys = await keysUnder(prefix);
    const redis = await redisClient();
    for (let start = 0; start < keys.length; start += 500) await redis.del(keys.slice(start, start + 500));
  });
  return prefix;
}

export const redisBackend: StoreBackend = {
  name: 'Redis',
  describe: (name, body) => describe.skipIf(redisTestUrl === null)(name, body),
  async fresh() {
    return { url: redisTestUrl ?? '', keyPrefix: await freshRedisPrefix() };
  },
  async overwrite(location, namespace, key, text) {
    const redis = await redisClient();
    const name = `${location.keyPrefix ?? ''}${namespace}::${key}`;
    if ((await redis.set(name, text, { XX: true })) !== 'OK') throw new Error(`no key ${name}`);
  },
};

async function freshSchema(): Promise<string> {
  const schema = await createSchema();
  cleanups.push(() => dropSchema(schema));
  return schema;
}

/** The test schema a PostgreSQL test store's URL names. */
export function schemaOf(location: StoreLocation): string {
  const options = new URL(location.url).searchParams.get('options') ?? '';
  const schema = /search_path=(\w+)/.exec(options)?.[1];
  if (!schema) throw new Error(`${location.url} names no test schema`);
  return schema;
}

export const postgresBackend: StoreBackend = {
  name: 'PostgreSQL',
  describe: (name, body) => describe.skipIf(postgresTestUrl === null)(name, body),
  async fresh() {
    return { url: postgresUrlFor(await freshSchema()) };
  },
  async overwrite(location, namespace, key, text) {
    const result = await postgresAdmin().query(`UPDATE ${schemaOf(location)}.keyv SET value = $1 WHERE key = $2`, [text, `${namespace}:${key}`]);
    if (result.rowCount !== 1) throw new Error(`no row ${namespace}:${key}`);
  },
};

/** PostgreSQL in cluster mode: the data in a schema of its own, the locks under a Redis key prefix of its own. */
export const postgresClusterBackend: StoreBackend = {
  name: 'PostgreSQL',
  describe: (name, body) => describe.skipIf(postgresTestUrl === null || redisTestUrl === null)(name, body),
  async fresh() {
    return { url: postgresUrlFor(await freshSchema()), keyPrefix: await freshRedisPrefix(), lockRedisUrl: redisTestUrl ?? '' };
  },
  overwrite: postgresBackend.overwrite,
};

/** Every store one bot process runs on. */
export const storeBackends: readonly StoreBackend[] = [sqliteBackend, redisBackend, postgresBackend];

/** Every store several bot processes share (cluster mode). */
export const clusterBackends: readonly StoreBackend[] = [redisBackend, postgresClusterBackend];

/** The settings a bot process needs to open `location` as the bot would (STORE_URL, REDIS_URL, REDIS_KEY_PREFIX). */
export function storeEnv(location: StoreLocation): Record<string, string> {
  if (location.lockRedisUrl) return { STORE_URL: location.url, REDIS_URL: location.lockRedisUrl, REDIS_KEY_PREFIX: location.keyPrefix ?? '' };
  if (location.url.startsWith('redis')) return { STORE_URL: 'sqlite://unused.sqlite', REDIS_URL: location.url, REDIS_KEY_PREFIX: location.keyPrefix ?? '' };
  return { STORE_URL: location.url };
}
