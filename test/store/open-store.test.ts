import { createServer } from 'node:net';
import KeyvRedis, { type RedisClientType } from '@keyv/redis';
import { afterEach, describe, expect, it } from 'vitest';
import type Keyv from 'keyv';
import { loadConfig, withoutPassword } from '../../src/config/settings.ts';
import { openStore, storeCheck, storeLocation } from '../../src/store/open-store.ts';
import { openPostgresPools, POOL_MAX } from '../../src/store/postgres-connection.ts';
import { scanNamespace } from '../../src/store/scan.ts';
import { StoreError } from '../../src/store/store-watch.ts';
import { describePostgres, postgresAdmin, usePostgresSchema } from '../support/postgres.ts';
import { describeRedis, keysUnder, redisClient, useRedisPrefix } from '../support/redis.ts';

describe('storeLocation', () => {
  it('is STORE_URL without REDIS_URL, and REDIS_URL with its key prefix when set', () => {
    expect(storeLocation(loadConfig({}))).toEqual({ url: 'sqlite://data/store.sqlite', keyPrefix: 'wotd-bot:', setting: 'STORE_URL' });
    expect(storeLocation(loadConfig({ STORE_URL: 'memory://', REDIS_URL: 'rediss://r.example:6380', REDIS_KEY_PREFIX: 'staging:' }))).toEqual({
      url: 'rediss://r.example:6380',
      keyPrefix: 'staging:',
      setting: 'REDIS_URL',
    });
  });

  it('is a PostgreSQL STORE_URL even in cluster mode, with the locks on REDIS_URL', () => {
    expect(storeLocation(loadConfig({ STORE_URL: 'postgres://db.example/wotd' }))).toEqual({
      url: 'postgres://db.example/wotd',
      keyPrefix: 'wotd-bot:',
      setting: 'STORE_URL',
    });
    expect(storeLocation(loadConfig({ STORE_URL: 'postgresql://db.example/wotd', REDIS_URL: 'redis://r.example:6379' }))).toEqual({
      url: 'postgresql://db.example/wotd',
      keyPrefix: 'wotd-bot:',
      setting: 'STORE_URL',
      lockRedisUrl: 'redis://r.example:6379',
    });
  });
});

/** Runs `work` against a loopback port that accepts connections and never answers, closed afterwards. */
async function withSilentServer(work: (port: number) => Promise<void>): Promise<void> {
  const silent = createServer(() => undefined).listen(0, '127.0.0.1');
  await new Promise((resolve) => silent.once('listening', resolve));
  const { port } = silent.address() as { port: number };
  try {
    await work(port);
  } finally {
    silent.close();
  }
}

describe('openStore on Redis', () => {
  it('reports a refused connection at once, in one line, naming the server without its password', async () => {
    const started = Date.now();
    await expect(openStore('redis://:hunter2@127.0.0.1:1', 'wotd-cache')).rejects.toThrow(
      /^could not reach Redis at redis:\/\/\*\*\*@127\.0\.0\.1:1: connect ECONNREFUSED/,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('gives up on a server that accepts but never answers after 5 s', async () => {
    await withSilentServer(async (port) => {
      await expect(openStore(`redis://127.0.0.1:${port}`, 'wotd-cache')).rejects.toThrow(
        `could not reach Redis at redis://127.0.0.1:${port}: no answer within 5000 ms`,
      );
    });
  });
});

describeRedis('openStore on Redis', () => {
  const redis = useRedisPrefix();

  it('keeps namespaces and prefixes apart: <prefix><namespace>::<key>', async () => {
    const cache = await openStore<unknown>(redis.location, 'wotd-cache');
    const subscriptions = await openStore<unknown>(redis.location, 'subscriptions');
    const otherPrefix = await openStore<unknown>({ ...redis.location, keyPrefix: `${redis.prefix}other:` }, 'wotd-cache');
    try {
      await cache.set('sub:c1', { from: 'cache' });
      await subscriptions.set('sub:c1', { from: 'subscriptions' });
      expect(await cache.get('sub:c1')).toEqual({ from: 'cache' });
      expect(await subscriptions.get('sub:c1')).toEqual({ from: 'subscriptions' });
      expect(await otherPrefix.get('sub:c1')).toBeUndefined();
      expect(await keysUnder(redis.prefix)).toEqual([`${redis.prefix}subscriptions::sub:c1`, `${redis.prefix}wotd-cache::sub:c1`]);
    } finally {
      await Promise.all([cache.disconnect(), subscriptions.disconnect(), otherPrefix.disconnect()]);
    }
  });

  it('lets an entry with a TTL expire on the server', async () => {
    const cache = await openStore<unknown>(redis.location, 'wotd-cache');
    try {
      await cache.set('today', 'word', 1_000);
      await cache.set('past', 'word');
      const client = await redisClient();
      expect(await client.pTTL(`${redis.prefix}wotd-cache::today`)).toBeGreaterThan(0);
      expect(await client.pTTL(`${redis.prefix}wotd-cache::past`)).toBe(-1);
    } finally {
      await cache.disconnect();
    }
  });

  it('reconnects after the server drops its connection', async () => {
    const cache = await openStore<unknown>(redis.location, 'wotd-cache');
    try {
      await cache.set('e:2025-01-14', 'before');
      const client = (cache.store as KeyvRedis<unknown>).client as RedisClientType;
      const id = await client.clientId();
      await (await redisClient()).clientKill({ filter: 'ID', id });
      // A command caught by the drop fails (the cache carries on without it); the connection comes back by itself.
      await expect
        .poll(async () => {
          await cache.set('e:2025-01-15', 'after');
          return cache.get('e:2025-01-15');
        })
        .toBe('after');
      expect(await cache.get('e:2025-01-14')).toBe('before');
      expect(await client.clientId()).not.toBe(id);
    } finally {
      await cache.disconnect();
    }
  });
});

describe('openStore on PostgreSQL', () => {
  it('reports a refused connection at once, in one line, naming the server without its password', async () => {
    const started = Date.now();
    const opening = openStore('postgres://postgres:hunter2@127.0.0.1:1/wotd', 'wotd-cache');
    await expect(opening).rejects.toThrow(/^could not reach PostgreSQL at postgres:\/\/\*\*\*@127\.0\.0\.1:1\/wotd: connect ECONNREFUSED 127\.0\.0\.1:1$/);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('gives up on a server that accepts but never answers after 5 s', async () => {
    await withSilentServer(async (port) => {
      await expect(openStore(`postgresql://127.0.0.1:${port}/wotd`, 'wotd-cache')).rejects.toThrow(
        new RegExp(`^could not reach PostgreSQL at postgresql://127\\.0\\.0\\.1:${port}/wotd: .*timeout`),
      );
    });
  });
});

describePostgres('openStore on PostgreSQL', () => {
  const pg = usePostgresSchema();
  const opened: Array<Keyv<unknown>> = [];
  async function open(namespace: string, url = pg.url): Promise<Keyv<unknown>> {
    const keyv = await openStore<unknown>(url, namespace);
    opened.push(keyv);
    return keyv;
  }
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((keyv) => keyv.disconnect()));
  });
  const rows = async (schema: string) =>
    (await postgresAdmin().query<{ key: string; value: string }>(`SELECT key, value FROM ${schema}.keyv ORDER BY key`)).rows;

  it('keeps each namespace in its own range of one table, in the schema the URL names', async () => {
    const cache = await open('wotd-cache');
    const subscriptions = await open('subscriptions');
    await cache.set('sub:c1', { from: 'cache' });
    await subscriptions.set('sub:c1', { from: 'subscriptions' });
    expect(await cache.get('sub:c1')).toEqual({ from: 'cache' });
    expect(await subscriptions.get('sub:c1')).toEqual({ from: 'subscriptions' });
    expect((await rows(pg.schema)).map((row) => row.key)).toEqual(['subscriptions:sub:c1', 'wotd-cache:sub:c1']);
    const pages: string[][] = [];
    for await (const page of scanNamespace(subscriptions)) pages.push(page.map(([key]) => key));
    expect(pages).toEqual([['sub:c1']]);
  });

  it('refuses a table that is not its own in one line, and leaves it as it was', async () => {
    const admin = postgresAdmin();
    await admin.query(`CREATE TABLE ${pg.schema}.keyv (id integer, data bytea)`);
    await admin.query(`INSERT INTO ${pg.schema}.keyv VALUES (1, 'precious')`);
    await expect(openStore(pg.url, 'subscriptions')).rejects.toThrow(
      `the PostgreSQL store at ${withoutPassword(pg.url)} is damaged: table ${pg.schema}.keyv has (id integer, data bytea), not (key text, value text); it was left untouched.`,
    );
    expect((await admin.query(`SELECT id, data::text AS data FROM ${pg.schema}.keyv`)).rows).toEqual([{ id: 1, data: '\\x70726563696f7573' }]);
    expect(openPostgresPools()).toBe(0);
  });

  it('rejects every read, write and scan that did not happen, counts it, and checks healthy again after', async () => {
    const cache = await open('wotd-cache');
    await cache.set('e:2025-01-14', 'kept');
    const check = storeCheck(cache);
    await postgresAdmin().query(`ALTER TABLE ${pg.schema}.keyv RENAME TO keyv_away`);
    try {
      await expect(cache.set('e:2025-01-15', 'lost')).rejects.toThrow(StoreError);
      await expect(cache.get('e:2025-01-14')).rejects.toThrow(/^the wotd-cache store failed \(read\): relation .*keyv" does not exist/);
      await expect(cache.delete('e:2025-01-14')).rejects.toThrow(StoreError);
      await expect(scanNamespace(cache).next()).rejects.toThrow(/^the wotd-cache store failed \(scan\)/);
      await expect(check.check()).rejects.toThrow(StoreError);
      expect(Object.fromEntries(check.errorCounts())).toMatchObject({ write: 2, read: 1, scan: 1, probe: 1 });
    } finally {
      await postgresAdmin().query(`ALTER TABLE ${pg.schema}.keyv_away RENAME TO keyv`);
    }
    await check.check();
    expect(await cache.get('e:2025-01-14')).toBe('kept');
    expect(await cache.get('e:2025-01-15')).toBeUndefined();
  });

  it(`shares one pool of at most ${POOL_MAX} connections among its namespaces, and closes it with the last`, async () => {
    const namespaces = [await open('wotd-cache'), await open('subscriptions'), await open('deliveries')];
    const ours = async () =>
      Number(
        (
          await postgresAdmin().query<{ n: string }>(
            'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()',
            [`wotd-bot pid ${process.pid}`],
          )
        ).rows[0]?.n,
      );
    // Every read waits behind a lock held here, so each one that can get a connection holds it.
    const holder = await postgresAdmin().connect();
    let reads: Promise<unknown[]>;
    try {
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE ${pg.schema}.keyv IN ACCESS EXCLUSIVE MODE`);
      reads = Promise.all(Array.from({ length: 40 }, (_, i) => namespaces[i % 3]?.get(`k${i}`)));
      await expect.poll(ours, { timeout: 5_000 }).toBe(POOL_MAX);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await ours()).toBe(POOL_MAX);
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await reads).toEqual(Array.from({ length: 40 }, () => undefined));
    await Promise.all(opened.splice(0).map((keyv) => keyv.disconnect()));
    expect(openPostgresPools()).toBe(0);
    await expect.poll(ours, { timeout: 5_000 }).toBe(0);
  });
});
