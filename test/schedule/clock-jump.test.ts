import { afterEach, describe, expect, it, vi } from 'vitest';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { describeJump } from '../../src/schedule/minute-ticker.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { captureLogger, FixedLookup, makeSubscription, RecordingPoster } from './helpers.ts';

/**
 * The wall clock jumps while the scheduler runs on node-cron (finding 1 of issue 31). Timers, Date and
 * performance.now are faked (vitest's fake timers): setSystemTime moves the wall clock alone, as NTP or an admin
 * does, while the monotonic clock and the timers go on as before. Everything else is the real scheduler, the real
 * node-cron and a real store.
 */

const DAY = 86_400_000;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

let storeCount = 0;
async function running(start: string) {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'], now: new Date(start) });
  const warnings = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
  const store = await SubscriptionStore.open(`memory://clock-jump-${process.pid}-${(storeCount += 1)}`);
  cleanups.push(() => store.close());
  await store.upsert('g1', 'c1', 100, () => makeSubscription({ channelId: 'c1', createdAt: '2000-01-01T00:00:00.000Z', enabledAt: '2000-01-01T00:00:00.000Z' }));
  const poster = new RecordingPoster();
  const { logger, lines } = captureLogger();
  const scheduler = new DailyScheduler({
    store,
    lookup: new FixedLookup(),
    poster,
    render: (entry) => entryEmbed(entry, { siteUrl: 'https://wotd.site' }),
    logger,
    concurrency: 4,
  });
  cleanups.push(() => scheduler.stop());
  scheduler.start();
  await vi.advanceTimersByTimeAsync(0);
  const days = () => poster.messages.map((message) => message.nonce);
  const jumpLines = () => lines.map((line) => String(line.msg)).filter((msg) => msg.includes('wall clock jumped'));
  return { scheduler, poster, days, jumpLines, warnings };
}

/**
 * Lets the timers run for `ms` of monotonic time, a minute at a time, letting each tick's store and delivery work
 * (which also waits on real setImmediate turns) finish; returns the longest real time one minute's timers took.
 */
async function runFor(ms: number): Promise<number> {
  let longest = 0;
  for (let left = ms; left > 0; left -= 60_000) {
    const started = process.hrtime.bigint();
    await vi.advanceTimersByTimeAsync(Math.min(left, 60_000));
    longest = Math.max(longest, Number(process.hrtime.bigint() - started) / 1e6);
    for (let turn = 0; turn < 30; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  }
  return longest;
}

function setWallClock(iso: string | number): void {
  vi.setSystemTime(new Date(iso));
}

describe('a wall clock that jumps while the scheduler runs', () => {
  it.each([
    ['1 minute', 60_000],
    ['1 day', DAY],
    ['30 days', 30 * DAY],
    ['1 year', 365 * DAY],
  ])('forward %s: one log line, no per-minute warnings, no stall, the new day posted once and no skipped day', async (_name, jump) => {
    const bot = await running('2026-06-15T08:58:30Z');
    await runFor(120_000);
    expect(bot.days()).toHaveLength(1);
    setWallClock(Date.now() + jump);
    const blockedMs = await runFor(180_000);
    console.log(`clock jump ${describeJump(jump)}: event loop blocked ${blockedMs.toFixed(0)} ms`);
    expect(bot.warnings).not.toHaveBeenCalled();
    const expectedLines = jump > 5_000 ? 1 : 0;
    expect(bot.jumpLines()).toHaveLength(expectedLines);
    // One day posted before; after the jump, the day the clock now reads (if it is a new one), once.
    const postedDays = new Set(bot.days());
    expect(postedDays.size).toBe(bot.days().length);
    expect(bot.days()).toHaveLength(jump >= DAY ? 2 : 1);
    await runFor(10 * 60_000);
    expect(bot.days()).toHaveLength(jump >= DAY ? 2 : 1);
  });

  it('from 1970 to now: one log line, and today posted once', async () => {
    const bot = await running('1970-01-01T00:00:00Z');
    await runFor(120_000);
    expect(bot.days()).toHaveLength(0);
    setWallClock('2026-06-15T09:30:00Z');
    await runFor(120_000);
    expect(bot.warnings).not.toHaveBeenCalled();
    expect(bot.jumpLines()).toHaveLength(1);
    expect(bot.jumpLines()[0]).toContain('forward');
    expect(bot.days()).toHaveLength(1);
  });

  it.each([
    ['1 hour', 3_600_000],
    ['1 day', DAY],
  ])('backward %s: one log line, and no day is posted twice', async (_name, back) => {
    const bot = await running('2026-06-14T08:59:00Z');
    // The days before the jump: the 14th and the 15th posted.
    await runFor(2 * 60_000);
    setWallClock('2026-06-15T08:59:00Z');
    await runFor(3 * 60_000);
    expect(bot.days()).toHaveLength(2);
    const before = bot.jumpLines().length;
    setWallClock(Date.now() - back);
    // The clock runs through the post times it already passed, on both days.
    await runFor(back + 2 * 3_600_000);
    expect(bot.jumpLines().length - before).toBe(1);
    expect(bot.jumpLines().at(-1)).toContain('backward');
    expect(bot.days()).toHaveLength(2);
    expect(bot.warnings).not.toHaveBeenCalled();
  });
});
