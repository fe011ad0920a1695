import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import type Keyv from 'keyv';
import { Redis } from 'ioredis';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { openStore } from '../../src/store/open-store.ts';
import { RedisLock } from '../../src/store/redis-lock.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { startBot } from '../console/console-process.ts';
import { postgresAdmin } from '../support/postgres.ts';
import { postgresBackend, schemaOf, sqliteBackend } from '../support/store-backends.ts';
import { entriesWithToday, exitWithin, ownPostgres, postedTo, postsIn, started, stopLines, subscribeConsole } from './bot-process.ts';
import { faultCell } from './tally.ts';

/**
 * The lock-loss family of the fault matrix (issue 31). A running bot whose one-bot lock is lost, with real
 * processes: it used to warn every 5 s and go on posting beside whoever took the lock. Now, unable to take it back
 * at once, it stops with one line and exit code 1, and the new holder carries on alone. Leases (Redis locks, delivery
 * claims) held past their end by a paused holder: test/store/redis-lock.test.ts and test/cluster/cluster-delivery.test.ts.
 */

let dir = '';
let service: RunningService | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wotd-lost-lock-'));
  await writeWordDb(join(dir, 'words.sqlite'), entriesWithToday());
  service = await startWotdService({ dbPath: join(dir, 'words.sqlite'), variant: 'A', port: 0, rateLimitPerMinute: 0 });
});
afterAll(async () => {
  await service?.close();
  await rm(dir, { recursive: true, force: true });
});

const env = () => ({ WOTD_API_URL: service?.url ?? '', WOTD_API_VARIANT: 'A', WOTD_MIRROR: 'off' });

postgresBackend.describe('a bot on PostgreSQL whose lock session is ended', () => {
  faultCell('locks', 'PostgreSQL lock session terminated, another takes the lock', 'the running bot', async () => {
    const location = await postgresBackend.fresh();
    const bot = startBot(dir, { ...env(), STORE_URL: location.url });
    const other = await postgresAdmin().connect();
    try {
      await started(bot.run, bot.exited);
      // pg_terminate_backend (a failover or a restart does the same), and another bot's session takes the lock the
      // moment it is free: in one round trip, before the bot can reconnect.
      await other.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1;
         SELECT pg_advisory_lock(${0x776f7464}, hashtext('${schemaOf(location)}'))`.replace('$1', `'wotd-bot pid ${bot.child.pid}'`),
      );
      const ended = await exitWithin(bot, 15_000);
      expect(ended, 'the bot went on running without its lock').not.toBeNull();
      expect(ended?.code).toBe(1);
      const lines = (ended?.stderr ?? '').split('\n').filter((line) => line.startsWith('wotd-bot start:'));
      expect(lines).toEqual([expect.stringMatching(/^wotd-bot start: lost the lock on the PostgreSQL store .* and could not take it back: another wotd-bot process holds it now; stopping now so that two bots never write or post on one store$/)]);
      return 'stopped in one line, exit 1; the other holds it alone';
    } finally {
      other.release(true);
    }
  }, 60_000);
});

postgresBackend.describe('a bot on a PostgreSQL server that restarts', () => {
  faultCell('locks', 'PostgreSQL server restarted (its own instance)', 'the running bot, then a second', async (figures) => {
    const server = await ownPostgres();
    const bots: Array<ReturnType<typeof startBot>> = [];
    try {
      await subscribeConsole(server.url, ['before']);
      const first = startBot(dir, { ...env(), STORE_URL: server.url });
      bots.push(first);
      await started(first.run, first.exited);
      await postedTo(first, 'before');
      // The restart, in its two halves so that the bot's one attempt to take the lock back meets a server that is
      // down (pg_ctl restart -m fast is over in a fraction of a second, and a retake that wins is not a loss).
      await server.stop();
      const ended = await exitWithin(first, 15_000);
      await server.start();
      expect(ended, 'the bot went on running without its lock').not.toBeNull();
      expect(ended?.code).toBe(1);
      expect(stopLines(ended)).toEqual([expect.stringMatching(/^wotd-bot start: lost the lock on the PostgreSQL store .* and could not take it back: could not reach PostgreSQL at .*; stopping now so that two bots never write or post on one store$/)]);
      // Owed since the restart: the second bot posts it, and not the day the first already posted.
      await subscribeConsole(server.url, ['after']);
      const second = startBot(dir, { ...env(), STORE_URL: server.url });
      bots.push(second);
      await started(second.run, second.exited);
      await postedTo(second, 'after');
      second.child.kill('SIGTERM');
      const done = await exitWithin(second, 10_000);
      expect(done?.code, done?.stderr).toBe(0);
      const posts = [...postsIn(first.run.stdout), ...postsIn(done?.stdout ?? '')];
      figures.duplicated = posts.length - new Set(posts).size;
      figures.lost = ['before', 'after'].filter((channel) => !posts.includes(channel)).length;
      return 'stopped in one line, exit 1; the next bot took the lock and posted the rest, once';
    } finally {
      for (const bot of bots) if (bot.child.exitCode === null) bot.child.kill('SIGKILL');
      await Promise.all(bots.map((bot) => bot.exited));
      await server.close();
    }
  }, 90_000);
});

sqliteBackend.describe('a bot on SQLite whose lock file is deleted', () => {
  faultCell('locks', 'SQLite lock file deleted, then replaced by another holder', 'the running bot', async () => {
    const store = join(dir, 'lost.sqlite');
    const bot = startBot(dir, { ...env(), STORE_URL: `sqlite://${store}` });
    let other: sqlite3.Database | undefined;
    try {
      await started(bot.run, bot.exited);
      // Deleted with nobody else about: the bot locks a new file at the path, and runs on.
      await unlink(`${store}.lock`);
      await expect.poll(() => existsSync(`${store}.lock`), { timeout: 10_000, interval: 100 }).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(bot.child.exitCode, bot.run.stderr).toBeNull();
      await unlink(`${store}.lock`);
      // Another bot starting now would create a new lock file and lock it: this process does so.
      other = await new Promise<sqlite3.Database>((resolve, reject) => {
        const db: sqlite3.Database = new sqlite3.Database(`${store}.lock`, (error) => (error ? reject(error) : resolve(db)));
      });
      await new Promise<void>((resolve, reject) => other?.run('BEGIN IMMEDIATE', (error: Error | null) => (error ? reject(error) : resolve())));
      const ended = await exitWithin(bot, 15_000);
      expect(ended, 'the bot went on running without its lock').not.toBeNull();
      expect(ended?.code).toBe(1);
      const lines = (ended?.stderr ?? '').split('\n').filter((line) => line.startsWith('wotd-bot start:'));
      expect(lines).toEqual([expect.stringMatching(/^wotd-bot start: the lock file .*lost\.sqlite\.lock of the store .* was deleted or replaced, and the lock could not be taken again: another wotd-bot process holds it now; stopping now/)]);
      return 'deleted: locked again; replaced: stopped in one line, exit 1';
    } finally {
      other?.close();
    }
  }, 60_000);
});

/** A Redis of this test's own on a free loopback port, without persistence: restarted, it comes back empty. */
async function ownRedis(): Promise<{ url: string; restart(): Promise<void>; admin: Redis; close(): Promise<void> }> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as AddressInfo;
      probe.close(() => resolve(free));
    });
  });
  let server: ChildProcess | null = null;
  const start = async () => {
    server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const probe = new Redis({ port, host: '127.0.0.1', lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
    // Refused until the server listens: the probe retries.
    probe.on('error', () => undefined);
    await probe.ping();
    probe.disconnect();
  };
  const stop = async () => {
    const running = server;
    server = null;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGKILL');
    });
  };
  await start();
  const admin = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: null });
  admin.on('error', () => undefined);
  return {
    url: `redis://127.0.0.1:${port}`,
    admin,
    restart: async () => {
      await stop();
      await start();
    },
    close: async () => {
      admin.disconnect();
      await stop();
    },
  };
}

describe('a Redis lock whose Redis misbehaves while a change holds it', () => {
  const LEASE_MS = 600;
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  async function world() {
    const redis = await ownRedis();
    closers.push(() => redis.close());
    const open = async () => {
      const lock = await RedisLock.open(redis.url, 'faults:', undefined, LEASE_MS);
      closers.push(() => lock.close());
      return lock;
    };
    const store: Keyv<number> = await openStore<number>({ url: redis.url, keyPrefix: 'faults:' }, 'counter', { throwOnErrors: true });
    closers.push(() => store.disconnect());
    const [first, second] = [await open(), await open()];
    /** A read-modify-write of the counter under the lock; `during` runs between the read and the write. */
    const increment = (lock: RedisLock, during: () => Promise<void> = async () => undefined) =>
      lock.withLock('counter', async () => {
        const value = (await store.get('n')) ?? 0;
        await during();
        await store.set('n', value + 1);
      });
    return { redis, store, first, second, increment };
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  faultCell('locks', 'Redis restarted empty under a held lock', 'a read-modify-write', async (figures) => {
    const w = await world();
    const outcomes = await Promise.allSettled([
      w.increment(w.first, async () => {
        await w.redis.restart();
        // The lock is gone with the data: another process takes it and makes its change.
        await w.increment(w.second);
        await sleep(2 * LEASE_MS);
      }),
    ]);
    const made = 1 + outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
    const n = (await w.store.get('n')) ?? 0;
    figures.lost = Math.max(0, made - n);
    figures.duplicated = Math.max(0, n - made);
    expect(outcomes[0]?.status, 'the change that lost its lock wrote nothing and said so').toBe('rejected');
    return `the other change stands (n=${n}); the holder's failed, nothing written`;
  }, 30_000);

  faultCell('locks', 'Redis paused (CLIENT PAUSE) past every lease', 'a read-modify-write', async (figures) => {
    const w = await world();
    const outcomes = await Promise.allSettled([
      w.increment(w.first, async () => {
        await w.redis.admin.call('CLIENT', 'PAUSE', String(3 * LEASE_MS), 'ALL');
        await sleep(3 * LEASE_MS + 100);
      }),
      sleep(100).then(() => w.increment(w.second)),
    ]);
    const made = outcomes.filter((outcome) => outcome.status === 'fulfilled').length;
    const n = (await w.store.get('n')) ?? 0;
    figures.lost = Math.max(0, made - n);
    figures.duplicated = Math.max(0, n - made);
    expect(made).toBeGreaterThan(0);
    return `${made} of 2 changes made, counter ${n}: none lost, none twice`;
  }, 30_000);
});
