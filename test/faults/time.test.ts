import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, vi } from 'vitest';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { RedisDeliveryClaims } from '../../src/cluster/redis-delivery-claims.ts';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { describeJump } from '../../src/schedule/minute-ticker.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import type { StoreLocation } from '../../src/store/open-store.ts';
import { openRedisConnection } from '../../src/store/redis-connection.ts';
import { utcDateOf } from '../../src/wotd/dates.ts';
import { captureLogger, FixedLookup, makeSubscription, RecordingPoster } from '../schedule/helpers.ts';
import { startBot } from '../console/console-process.ts';
import { postgresAdmin } from '../support/postgres.ts';
import { describeRedis, redisTestUrl, useRedisPrefix } from '../support/redis.ts';
import { postgresBackend } from '../support/store-backends.ts';
import { entriesWithToday, exitWithin, postedTo, postsIn, started, stopLines, subscribeConsole } from './bot-process.ts';
import { faultCell, type CellFigures } from './tally.ts';

/**
 * The time family of the fault matrix (issue 31): the wall clock jumps while the real scheduler runs on node-cron,
 * on a SQLite store and in cluster mode (a Redis store, Redis claims). Timers, Date and performance.now are faked
 * (vitest's fake timers): setSystemTime moves the wall clock alone, as NTP or an admin does, while the monotonic
 * clock and the timers go on; the stores and Redis are real. Three subscriptions (08:00, 12:00 and 23:00 UTC) are
 * due before, during and after the jump. Properties: every post the due-time rules owe, once (a jump owes no day
 * it skipped), no console.warn per missed minute, and one log line per jump. Last, a real bot process stopped
 * (SIGSTOP) past its lock's longest timer while its lock is lost and another bot takes over, then resumed. Leases
 * held past their end by a paused holder, in-process: test/cluster/cluster-delivery.test.ts and
 * test/store/redis-lock.test.ts.
 */

const MINUTE = 60_000;
const DAY = 86_400_000;
const TIMES = ['08:00', '12:00', '23:00'];

const cleanups: Array<() => Promise<void> | void> = [];
/** Stopped while the fake clock still runs, so none of their timers outlives the cell. */
const schedulers: DailyScheduler[] = [];
afterEach(async () => {
  for (const scheduler of schedulers.splice(0)) await scheduler.stop();
  vi.useRealTimers();
  vi.restoreAllMocks();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Where = { kind: 'sqlite' } | { kind: 'cluster'; location: StoreLocation };

async function running(where: Where, start: string) {
  const warnings = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  let store: SubscriptionStore;
  let claims: RedisDeliveryClaims | undefined;
  if (where.kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'wotd-time-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    store = await SubscriptionStore.open(`sqlite://${join(dir, 'store.sqlite')}`);
  } else {
    store = await SubscriptionStore.open(where.location);
    const redis = await openRedisConnection(redisTestUrl ?? '', { purpose: 'test', whileDown: 'down', whenBack: 'back' });
    cleanups.push(() => redis.disconnect());
    claims = new RedisDeliveryClaims(redis, where.location.keyPrefix ?? '', 30_000);
  }
  cleanups.push(() => store.close());
  for (const [index, time] of TIMES.entries()) {
    await store.upsert('g1', `c${index}`, 100, () => makeSubscription({ channelId: `c${index}`, time, createdAt: '1969-01-01T00:00:00.000Z', enabledAt: '1969-01-01T00:00:00.000Z' }));
  }
  // Only now the clock is faked: the stores above opened on real timers.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'], now: new Date(start) });
  const poster = new RecordingPoster();
  const { logger, lines } = captureLogger();
  let ticks = 0;
  const scheduler = new DailyScheduler({
    store,
    lookup: new FixedLookup(),
    poster,
    render: (entry) => entryEmbed(entry, { siteUrl: 'https://wotd.site' }),
    logger,
    concurrency: 4,
    observer: { tickDone: () => void (ticks += 1) },
    ...(claims ? { claims } : {}),
  });
  schedulers.push(scheduler);
  /** (channel, service day) pairs the due-time rules owe at the instants the scheduler looked. */
  const owed = new Set<string>();
  const look = () => {
    const now = new Date();
    const minutes = now.getUTCHours() * 60 + now.getUTCMinutes();
    for (const [index, time] of TIMES.entries()) {
      const [hour, minute] = time.split(':').map(Number) as [number, number];
      if (hour * 60 + minute <= minutes) owed.add(`c${index} ${utcDateOf(now)}`);
    }
  };
  const settle = async (wanted: number) => {
    const started = process.hrtime.bigint();
    while (ticks < wanted && process.hrtime.bigint() - started < 10_000_000_000n) await new Promise((resolve) => setImmediate(resolve));
  };
  scheduler.start();
  look();
  await settle(1);
  let expectedTicks = 1;
  let longestMs = 0;
  /** Runs the timers for `minutes` of monotonic time, a minute at a time, each tick finished before the next. */
  const runFor = async (minutes: number) => {
    for (let minute = 0; minute < minutes; minute += 1) {
      const started = process.hrtime.bigint();
      await vi.advanceTimersByTimeAsync(MINUTE);
      longestMs = Math.max(longestMs, Number(process.hrtime.bigint() - started) / 1e6);
      look();
      expectedTicks += 1;
      await settle(expectedTicks);
    }
  };
  const check = (figures: CellFigures, jumps: number) => {
    const posted = poster.messages.map((message) => `${message.channelId} ${message.nonce}`);
    figures.duplicated = posted.length - new Set(posted).size;
    const postedDays = new Set(poster.messages.map((message) => `${message.channelId} ${message.embeds[0]?.footer?.text?.slice(0, 10) ?? ''}`));
    const missing = [...owed].filter((pair) => !postedDays.has(pair));
    const extra = [...postedDays].filter((pair) => !owed.has(pair));
    figures.lost = missing.length;
    expect(extra, 'posted for a day not owed (one the jump skipped)').toEqual([]);
    expect(warnings).not.toHaveBeenCalled();
    const jumpLines = lines.map((line) => String(line.msg)).filter((msg) => msg.includes('wall clock jumped'));
    expect(jumpLines).toHaveLength(jumps);
    return `${postedDays.size} posts, each once; ${jumps} log line; longest minute ${Math.round(longestMs)} ms`;
  };
  return { runFor, check, poster };
}

function jumpCells(whereFor: () => Where, label: string): void {
  const forward: Array<[string, number]> = [
    ['1 minute', MINUTE],
    ['1 day', DAY],
    ['30 days', 30 * DAY],
    ['1 year', 365 * DAY],
  ];
  for (const [name, jump] of forward) {
    faultCell('time', `clock jumps forward ${name}`, label, async (figures) => {
      const bot = await running(whereFor(), '2026-06-15T11:59:00Z');
      await bot.runFor(2);
      vi.setSystemTime(Date.now() + jump);
      await bot.runFor(2);
      return `${bot.check(figures, 1)}; ${describeJump(jump)}`;
    });
  }
  faultCell('time', 'clock jumps from 1970 to now', label, async (figures) => {
    const bot = await running(whereFor(), '1970-01-01T11:59:00Z');
    await bot.runFor(2);
    vi.setSystemTime(new Date('2026-06-15T12:30:00Z'));
    await bot.runFor(2);
    return bot.check(figures, 1);
  });
  const backward: Array<[string, number]> = [
    ['1 hour', 3_600_000],
    ['1 day', DAY],
  ];
  for (const [name, back] of backward) {
    faultCell('time', `clock jumps backward ${name}`, label, async (figures) => {
      const bot = await running(whereFor(), '2026-06-15T11:59:00Z');
      await bot.runFor(2);
      vi.setSystemTime(Date.now() - back);
      // Through the post times it already passed again (12:00 once more, and 23:00 the day before).
      await bot.runFor(back === DAY ? 12 * 60 : 90);
      return bot.check(figures, 1);
    }, 120_000);
  }
}

describe('the wall clock jumps under a bot on SQLite', () => {
  jumpCells(() => ({ kind: 'sqlite' }), 'daily posts (SQLite)');
});

describeRedis('the wall clock jumps under a cluster member', () => {
  const redis = useRedisPrefix();
  jumpCells(() => ({ kind: 'cluster', location: redis.location }), 'daily posts (cluster)');
});

postgresBackend.describe('a bot process paused (SIGSTOP) while its lock is lost', () => {
  /** Past the PostgreSQL lock's longest timer (its check every 5 s, with a 5 s timeout): see postgres-store-lock.ts. */
  const PAUSE_MS = 6_000;
  let dir = '';
  let service: RunningService | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wotd-paused-'));
    await writeWordDb(join(dir, 'words.sqlite'), entriesWithToday());
    service = await startWotdService({ dbPath: join(dir, 'words.sqlite'), variant: 'A', port: 0, rateLimitPerMinute: 0 });
  });
  afterAll(async () => {
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  });

  faultCell('time', 'a process paused (SIGSTOP) past its lock timers, then resumed', 'daily posts (PostgreSQL, real processes)', async (figures) => {
    const location = await postgresBackend.fresh();
    const env = { WOTD_API_URL: service?.url ?? '', WOTD_API_VARIANT: 'A', WOTD_MIRROR: 'off', STORE_URL: location.url };
    await subscribeConsole(location.url, ['before']);
    const paused = startBot(dir, env);
    const bots = [paused];
    try {
      await started(paused.run, paused.exited);
      await postedTo(paused, 'before');
      const stoppedAt = Date.now();
      paused.child.kill('SIGSTOP');
      // While it is stopped its sessions end (a failover, a network cut), the lock's with them, a day falls due, and
      // another bot takes the lock and posts it.
      const ended = await postgresAdmin().query<{ done: boolean }>('SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = $1', [`wotd-bot pid ${paused.child.pid}`]);
      expect(ended.rows.length > 0 && ended.rows.every((row) => row.done), 'its sessions ended').toBe(true);
      await subscribeConsole(location.url, ['during']);
      const other = startBot(dir, env);
      bots.push(other);
      await started(other.run, other.exited);
      await postedTo(other, 'during');
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, stoppedAt + PAUSE_MS - Date.now())));
      paused.child.kill('SIGCONT');
      const resumed = await exitWithin(paused, 15_000);
      expect(resumed, 'the resumed bot went on running without its lock').not.toBeNull();
      expect(resumed?.code).toBe(1);
      expect(stopLines(resumed)).toEqual([expect.stringMatching(/^wotd-bot start: lost the lock on the PostgreSQL store .* and could not take it back: another wotd-bot process holds it now \(pid \d+\); stopping now/)]);
      other.child.kill('SIGTERM');
      const done = await exitWithin(other, 10_000);
      expect(done?.code, done?.stderr).toBe(0);
      const posts = [...postsIn(resumed?.stdout ?? ''), ...postsIn(done?.stdout ?? '')];
      figures.duplicated = posts.length - new Set(posts).size;
      figures.lost = ['before', 'during'].filter((channel) => !posts.includes(channel)).length;
      return `paused ${Math.round((Date.now() - stoppedAt) / 1000)} s: resumed, stopped in one line (exit 1); each day posted once`;
    } finally {
      for (const bot of bots) if (bot.child.exitCode === null) bot.child.kill('SIGKILL');
      await Promise.all(bots.map((bot) => bot.exited));
    }
  }, 90_000);
});
