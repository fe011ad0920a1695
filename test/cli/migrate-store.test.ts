import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import type { DeliveryRecord } from '../../src/schedule/subscription.ts';
import { openStore, type StoreLocation } from '../../src/store/open-store.ts';
import type { StoredEntry } from '../../src/store/scan.ts';
import { makeSubscription } from '../schedule/helpers.ts';
import { postgresAdmin, postgresTestUrl } from '../support/postgres.ts';
import { describeRedis, keysUnder, redisClient, redisTestUrl, useRedisPrefix } from '../support/redis.ts';
import { migrateHere, type Run } from './migrate-here.ts';
import { postgresBackend, redisBackend, schemaOf, sqliteBackend } from '../support/store-backends.ts';

const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'wotd-migrate-'));
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

/** `wotd-bot migrate-store …` as a user runs it, in the temp dir (no .env). */
function migrateCli(env: Record<string, string>, ...args: string[]): Promise<Run> {
  const childEnv: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^(WOTD_|REDIS_|STORE_URL)/.test(key)) childEnv[key] = value;
  const child = spawn(process.execPath, [BIN, 'migrate-store', ...args], { cwd: dir, env: { ...childEnv, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const run: Run = { code: null, stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (run.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (run.stderr += chunk));
  return new Promise((done) => child.on('close', (code) => done({ ...run, code })));
}

const EXPECTED_URLS = 'expected sqlite://FILE, redis://HOST:PORT, rediss://HOST:PORT or postgres://HOST/DATABASE';

describe('wotd-bot migrate-store: arguments', () => {
  it.each([
    [[], '--from is required'],
    [['--from', 'sqlite://x.sqlite'], '--to is required'],
    [['--from', 'sqlite://x.sqlite', '--to'], '--to needs a store URL'],
    [['--from=sqlite://a.sqlite', '--to=redis://127.0.0.1', '--force'], 'unknown option "--force"'],
    [['--from', 'mysql://db/wotd', '--to', 'redis://127.0.0.1'], `--from "mysql://db/wotd" is not a store URL; ${EXPECTED_URLS}`],
    [['--from', 'sqlite://a.sqlite', '--to', 'redis://:pw@'], `--to "redis://***@" is not a store URL; ${EXPECTED_URLS}`],
    [['--from', 'sqlite://a.sqlite', '--to', 'sqlite://./a.sqlite'], '--from and --to are the same store'],
    [['--from', 'postgres://db.example/wotd', '--to', 'postgresql://db.example/wotd'], '--from and --to are the same store'],
    [['--from', 'sqlite://missing.sqlite', '--to', 'redis://127.0.0.1:6379'], '--from sqlite://missing.sqlite: no such file'],
  ])('%j: exit 2, "%s" and the usage', async (args, message) => {
    const run = await migrateHere(...args);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(`wotd-bot migrate-store: ${message}`);
    expect(run.stderr).toContain('Usage: wotd-bot migrate-store --from URL --to URL');
    expect(run.stdout).toBe('');
  });

  it('exits 1 with one line when a store cannot be opened', async () => {
    const source = join(dir, 'store.sqlite');
    writeFileSync(source, 'not a database, just text that is long enough to have a header page of its own'.repeat(10));
    const notDb = await migrateHere('--from', `sqlite://${source}`, '--to', `sqlite://${join(dir, 'copy.sqlite')}`);
    expect(notDb).toMatchObject({ code: 1, stdout: '' });
    expect(notDb.stderr).toMatch(
      /^wotd-bot migrate-store: --from: the store \S+store\.sqlite is damaged \(SQLITE_NOTADB: file is not a database\); it was left untouched\. [^\n]+\n$/,
    );

    const empty = await SubscriptionStore.open(`sqlite://${join(dir, 'empty.sqlite')}`);
    await empty.close();
    const unreachable = await migrateHere('--from', `sqlite://${join(dir, 'empty.sqlite')}`, '--to', 'redis://:secret@127.0.0.1:1');
    expect(unreachable).toMatchObject({ code: 1, stdout: '' });
    expect(unreachable.stderr).toMatch(/^wotd-bot migrate-store: --to: could not reach Redis at redis:\/\/\*\*\*@127\.0\.0\.1:1: connect ECONNREFUSED [^\n]*\n$/);

    const noPostgres = await migrateHere('--from', `sqlite://${join(dir, 'empty.sqlite')}`, '--to', 'postgres://wotd:secret@127.0.0.1:1/wotd');
    expect(noPostgres).toMatchObject({ code: 1, stdout: '' });
    expect(noPostgres.stderr).toBe('wotd-bot migrate-store: --to: could not reach PostgreSQL at postgres://***@127.0.0.1:1/wotd: connect ECONNREFUSED 127.0.0.1:1\n');
  });
});

function delivery(channelId: string, day: string): DeliveryRecord {
  return { channelId, day, state: 'sent', nonce: `${channelId}-${day}`.slice(0, 25), attempts: 1, messageId: `m-${channelId}-${day}`, updatedAt: `${day}T09:00:00.000Z` };
}

function days(count: number): string[] {
  return Array.from({ length: count }, (_, i) => new Date(Date.UTC(2025, 0, 1 + i)).toISOString().slice(0, 10));
}

/**
 * Subscribes 12 channels (g0c0 … g2c3) at `location`, disables one, records a delivery to each for `dayCount` days,
 * and adds one broken subscription record; answers the channel ids.
 */
async function seedStore(location: string | StoreLocation, disabled: string, dayCount: number): Promise<string[]> {
  const source = await SubscriptionStore.open(location);
  const channels: string[] = [];
  for (let g = 0; g < 3; g += 1) {
    for (let c = 0; c < 4; c += 1) {
      const channelId = `g${g}c${c}`;
      channels.push(channelId);
      await source.upsert(`g${g}`, channelId, 5, () => makeSubscription({ guildId: `g${g}`, channelId }));
    }
  }
  await source.update(disabled, (s) => ({ ...s, status: { state: 'disabled', reason: { kind: 'channelDeleted' }, at: 'x', channelGone: true } }));
  for (const day of days(dayCount)) for (const channelId of channels) await source.putDelivery(delivery(channelId, day));
  await source.close();
  const raw = await openStore<unknown>(location, 'subscriptions');
  await raw.set('sub:broken', { guildId: 'g9' });
  await raw.disconnect();
  return channels;
}

/** Every key under the prefix with its value and TTL, to tell whether a second run changed anything. */
async function snapshot(prefix: string): Promise<Array<[string, string | null, number]>> {
  const redis = await redisClient();
  const keys = await keysUnder(prefix);
  // The due-time index (issue 33) is a sorted set and hashes; everything else is a string.
  const valueOf = async (key: string): Promise<string | null> => {
    const type = await redis.type(key);
    if (type === 'hash') return JSON.stringify(Object.entries(await redis.hGetAll(key)).sort());
    if (type === 'zset') return JSON.stringify(await redis.zRangeWithScores(key, 0, -1));
    return redis.get(key);
  };
  return Promise.all(keys.map(async (key): Promise<[string, string | null, number]> => [key, await valueOf(key), await redis.pTTL(key)]));
}

describeRedis('wotd-bot migrate-store: SQLite to Redis and back', () => {
  const redis = useRedisPrefix();

  it('copies every subscription, delivery record and index entry; a second run changes nothing', async () => {
    const sqliteUrl = `sqlite://${join(dir, 'store.sqlite')}`;
    // 12 channels × 110 days: more than one page (500) of the scan, and many write batches (100).
    const channels = await seedStore(sqliteUrl, 'g0c1', 110);
    const cache = await openStore<unknown>(sqliteUrl, 'wotd-cache');
    await cache.set('e:2025-01-01', { word: 'cached' });
    await cache.disconnect();

    // The target already has a subscription of its own, in a server the source also has.
    const target = await SubscriptionStore.open(redis.location);
    await target.upsert('g1', 'redis-only', 5, () => makeSubscription({ guildId: 'g1', channelId: 'redis-only' }));
    await target.close();

    const env = { REDIS_KEY_PREFIX: redis.prefix };
    const first = await migrateCli(env, '--from', sqliteUrl, '--to', redisTestUrl ?? '');
    expect(first.stdout).toBe('migrated subscriptions=13 deliveries=1320 saved_words=0 quiz_posts=0 quiz_answers=0 streaks=0\n');
    expect(first.stderr).toBe('wotd-bot migrate-store: warning: subscription sub:broken is damaged; copied as it is\n');
    expect(first.code).toBe(0);
    const afterFirst = await snapshot(redis.prefix);

    const second = await migrateCli(env, '--from', sqliteUrl, '--to', redisTestUrl ?? '');
    expect(second).toEqual(first);
    expect(await snapshot(redis.prefix)).toEqual(afterFirst);

    const migrated = await SubscriptionStore.open(redis.location);
    try {
      const ids = (list: Array<{ channelId: string }>) => list.map((s) => s.channelId).sort();
      expect(ids(await migrated.listAll())).toEqual([...channels, 'redis-only'].sort());
      // Every subscription has its due-time entry in the target (rebuilt as it is copied: due at once).
      expect([...(await migrated.dueIndex().get([...channels, 'redis-only'])).keys()].sort()).toEqual([...channels, 'redis-only'].sort());
      expect(ids(await migrated.listGuild('g1'))).toEqual(['g1c0', 'g1c1', 'g1c2', 'g1c3', 'redis-only']);
      expect((await migrated.get('g0c1'))?.status).toMatchObject({ state: 'disabled', channelGone: true });
      for (const day of ['2025-01-01', '2025-04-20']) {
        expect(await migrated.getDeliveries(channels, day)).toEqual(channels.map((channelId) => delivery(channelId, day)));
      }
      // The server lists and the index name every channel exactly once.
      const lists = afterFirst
        .filter(([key]) => /::(guild|index):/.test(key))
        .map(([key, value]) => [key.split('::')[1] ?? '', (JSON.parse(value ?? '{}') as { value: string[] }).value] as const);
      const entries = (kind: string) => lists.filter(([name]) => name.startsWith(kind)).flatMap(([, ids]) => ids).sort();
      expect(lists.filter(([name]) => name.startsWith('guild:')).map(([name]) => name).sort()).toEqual(['guild:g0', 'guild:g1', 'guild:g2']);
      expect(entries('guild:')).toEqual([...channels, 'redis-only'].sort());
      expect(entries('index:')).toEqual([...channels, 'redis-only'].sort());
      expect(afterFirst.map(([key]) => key)).toContain(`${redis.prefix}subscriptions::sub:broken`);
      expect(afterFirst.some(([key]) => key.includes('wotd-cache'))).toBe(false);
    } finally {
      await migrated.close();
    }

    // And back from Redis into a new SQLite file: the same subscriptions, listed the same way.
    vi.stubEnv('REDIS_KEY_PREFIX', redis.prefix);
    const backUrl = `sqlite://${join(dir, 'back', 'store.sqlite')}`;
    const back = await migrateHere('--from', redisTestUrl ?? '', '--to', backUrl);
    expect(back).toMatchObject({ code: 0, stdout: 'migrated subscriptions=14 deliveries=1320 saved_words=0 quiz_posts=0 quiz_answers=0 streaks=0\n' });
    const copy = await SubscriptionStore.open(backUrl);
    try {
      expect((await copy.listAll()).map((s) => s.channelId).sort()).toEqual([...channels, 'redis-only'].sort());
      expect(await copy.getDeliveries(channels, '2025-02-02')).toEqual(channels.map((channelId) => delivery(channelId, '2025-02-02')));
    } finally {
      await copy.close();
    }
  });
});

/** Every schema object of a SQLite file (tables, indexes, triggers), as sqlite_master lists them. */
async function sqliteSchema(path: string): Promise<Array<Record<string, unknown>>> {
  const raw = await openStore<unknown>(`sqlite://${path}`, 'subscriptions');
  try {
    const adapter = raw.store as { query(sql: string): Promise<Array<Record<string, unknown>>> };
    return await adapter.query('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name');
  } finally {
    await raw.disconnect();
  }
}

describe('wotd-bot migrate-store: the source', () => {
  it('writes nothing to a SQLite source written before the due-time index: its schema is as it was', async () => {
    const source = join(dir, 'old.sqlite');
    const channels = await seedStore(`sqlite://${source}`, 'g0c1', 2);
    // As a store of 0596099 (before issue 33): no due-time index in the file.
    const raw = await openStore<unknown>(`sqlite://${source}`, 'subscriptions');
    const adapter = raw.store as { query(sql: string): Promise<unknown> };
    for (const table of ['wotd_due', 'wotd_due_counts', 'wotd_due_meta']) await adapter.query(`DROP TABLE ${table}`);
    await raw.disconnect();
    const before = await sqliteSchema(source);
    expect(before.map(({ name }) => name)).not.toContain('wotd_due');

    const target = join(dir, 'copy.sqlite');
    const run = await migrateHere('--from', `sqlite://${source}`, '--to', `sqlite://${target}`);
    expect(run).toMatchObject({ code: 0, stdout: 'migrated subscriptions=13 deliveries=24 saved_words=0 quiz_posts=0 quiz_answers=0 streaks=0\n' });

    expect(await sqliteSchema(source)).toEqual(before);
    // The target has the index, with an entry for every subscription.
    const copy = await SubscriptionStore.open(`sqlite://${target}`);
    try {
      expect([...(await copy.dueIndex().get(channels)).keys()].sort()).toEqual([...channels].sort());
    } finally {
      await copy.close();
    }
  });
});

/** What a store holds, as migrate-store copies it: every record as stored, and how the indexes list them. */
async function contents(location: StoreLocation) {
  const store = await SubscriptionStore.open(location);
  try {
    const all = async (pages: AsyncGenerator<StoredEntry[]>) => {
      const entries: StoredEntry[] = [];
      for await (const page of pages) entries.push(...page);
      return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    };
    const ids = (list: Array<{ channelId: string }>) => list.map((s) => s.channelId).sort();
    return {
      subscriptions: await all(store.subscriptionRecords()),
      deliveries: await all(store.deliveryRecords()),
      listed: ids(await store.listAll()),
      guilds: await Promise.all(['g0', 'g1', 'g2'].map(async (guildId) => ids(await store.listGuild(guildId)))),
    };
  } finally {
    await store.close();
  }
}

const redisAndPostgres = redisTestUrl !== null && postgresTestUrl !== null;

describe.skipIf(!redisAndPostgres)('wotd-bot migrate-store: SQLite, Redis and PostgreSQL in every direction', () => {
  it('SQLite → PostgreSQL → Redis → SQLite → Redis → PostgreSQL → SQLite keeps every record and listing as it was', async () => {
    const [sqliteA, postgresA, redisA, sqliteB, redisB, postgresB, sqliteC] = await Promise.all([
      sqliteBackend.fresh(),
      postgresBackend.fresh(),
      redisBackend.fresh(),
      sqliteBackend.fresh(),
      redisBackend.fresh(),
      postgresBackend.fresh(),
      sqliteBackend.fresh(),
    ]);
    await seedStore(sqliteA, 'g2c3', 3);
    const original = await contents(sqliteA);
    expect(original.subscriptions).toHaveLength(13);
    expect(original.deliveries).toHaveLength(36);

    const migrate = async (from: StoreLocation, to: StoreLocation) => {
      vi.stubEnv('REDIS_KEY_PREFIX', from.keyPrefix ?? to.keyPrefix ?? '');
      const run = await migrateHere('--from', from.url, '--to', to.url);
      expect(run).toEqual({
        code: 0,
        stdout: 'migrated subscriptions=13 deliveries=36 saved_words=0 quiz_posts=0 quiz_answers=0 streaks=0\n',
        stderr: 'wotd-bot migrate-store: warning: subscription sub:broken is damaged; copied as it is\n',
      });
      expect(await contents(to), `${from.url} → ${to.url}`).toEqual(original);
    };
    const path = [sqliteA, postgresA, redisA, sqliteB, redisB, postgresB, sqliteC];
    for (let step = 1; step < path.length; step += 1) await migrate(path[step - 1] as StoreLocation, path[step] as StoreLocation);

    // As a user runs it, and again: into PostgreSQL a second run changes no row.
    const rows = async () => (await postgresAdmin().query(`SELECT key, value FROM ${schemaOf(postgresA)}.keyv ORDER BY key`)).rows;
    const before = await rows();
    const again = await migrateCli({}, '--from', sqliteA.url, '--to', postgresA.url);
    expect(again).toMatchObject({ code: 0, stdout: 'migrated subscriptions=13 deliveries=36 saved_words=0 quiz_posts=0 quiz_answers=0 streaks=0\n' });
    expect(await rows()).toEqual(before);
  });
});
