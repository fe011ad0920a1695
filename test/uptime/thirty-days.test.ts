import { describe, expect, it } from 'vitest';
import { DEFAULT_DELIVERY_RETENTION_DAYS } from '../../src/schedule/delivery-retention.ts';
import { slotFor } from '../../src/schedule/due.ts';
import { deliveryNonce } from '../../src/schedule/poster.ts';
import { addDays } from '../../src/wotd/dates.ts';
import { runLongRun, type DayMeasure, type LongRun } from './long-run.ts';

/** Every subscribed channel got each day's post exactly once, and nothing was posted to a channel not subscribed. */
function expectEveryDayPostedOnce(run: LongRun, firstDay: string, lastDay: string): number {
  const counts = new Map<string, number>();
  for (const post of run.posts) counts.set(`${post.channelId}|${post.nonce}`, (counts.get(`${post.channelId}|${post.nonce}`) ?? 0) + 1);
  expect([...counts].filter(([, count]) => count > 1)).toEqual([]);

  const subscribedAt = (channelId: string, at: number) => (run.intervals.get(channelId) ?? []).some(([from, to]) => from <= at && at < to);
  expect(run.posts.filter((post) => !subscribedAt(post.channelId, post.at))).toEqual([]);

  const missing: string[] = [];
  let owed = 0;
  for (const [channelId, schedule] of run.scheduleOf) {
    for (let day = addDays(firstDay, -1); day <= addDays(lastDay, 1); day = addDays(day, 1)) {
      const slot = slotFor(schedule, day);
      const postAt = slot.postAt.getTime();
      if (postAt < run.start || postAt > run.end || !subscribedAt(channelId, postAt)) continue;
      owed += 1;
      if (!counts.has(`${channelId}|${deliveryNonce(channelId, slot.serviceDay)}`)) missing.push(`${channelId} ${schedule.timeZone} ${day}`);
    }
  }
  expect(missing).toEqual([]);
  return owed;
}

/** The records left are exactly the posts of the last `retention` days and today: none older, none lost. */
function expectRecordsWithinRetention(run: LongRun, lastDay: string, retention: number): void {
  const posted = new Set(run.posts.map((post) => `${post.channelId}|${post.nonce}`));
  const expected: string[] = [];
  for (const channelId of run.scheduleOf.keys()) {
    for (let day = addDays(lastDay, -retention); day <= lastDay; day = addDays(day, 1)) {
      if (posted.has(`${channelId}|${deliveryNonce(channelId, day)}`)) expected.push(`${channelId}:${day}`);
    }
  }
  expect(run.finalRecords).toEqual(expected.sort());
}

function spread(values: number[]): number {
  return Math.max(...values) / Math.min(...values);
}

function expectMemoryBounded(measures: DayMeasure[]): void {
  for (const measure of measures) {
    // Entries of the last few service days only; no retry waits left once the service answered.
    expect(measure.scheduler.entries).toBeLessThanOrEqual(4);
    expect(measure.scheduler.waits).toBe(0);
    expect(measure.adapter).toMatchObject({ flights: 0, limiterQueue: 0 });
    expect(measure.adapter.limiterWindow).toBeLessThanOrEqual(1_000);
    expect(measure.adapter.cacheMemoryRecords).toBeLessThanOrEqual(300);
    // Every timer the adapter set (bounded waits) was cleared again.
    expect(measure.pendingTimers).toBe(0);
  }
}

describe('a month of uptime on one SQLite store', () => {
  // About 7 s and 2 s alone; the timeouts leave room for a loaded machine running the whole suite.
  it('posts every day exactly once while the store and memory stay flat past a short retention', { timeout: 60_000 }, async () => {
    const retention = 5;
    const days = 30;
    const firstDay = '2026-03-01';
    const run = await runLongRun({ firstDay, days, channels: 240, churnPerDay: 12, retentionDays: retention, lookups: true, seed: 7 });
    const lastDay = addDays(firstDay, days - 1);

    const owed = expectEveryDayPostedOnce(run, firstDay, lastDay);
    expect(owed).toBeGreaterThan(240 * (days - 1));
    expectRecordsWithinRetention(run, lastDay, retention);

    const flat = run.measures.slice(retention + 2);
    for (const measure of flat) {
      expect(measure.oldestDeliveryDay).toBe(addDays(measure.day, -retention));
      // A retired list lives until its channel's records have passed the retention, plus a day.
      expect(measure.retiredLists).toBeLessThanOrEqual(retention + 3);
      expect(measure.subscriptionKeys).toBeLessThanOrEqual(measure.subscribed + measure.guildLists + 32 + measure.retiredLists + 1);
      // Misses and 404s are swept the day after; search results live a month at most.
      expect(measure.cacheRows.fm ?? 0).toBeLessThanOrEqual(10);
      expect(measure.cacheRows.m ?? 0).toBeLessThanOrEqual(2);
      expect(measure.cacheRows.f ?? 0).toBeLessThanOrEqual(31);
    }
    // Churn keeps ~240 channels subscribed, so the records kept hover around 240 × (retention + 1) …
    expect(spread(flat.map((measure) => measure.deliveryRecords))).toBeLessThan(1.05);
    expect(spread(flat.map((measure) => measure.bytes.deliveries))).toBeLessThan(1.05);
    expect(spread(flat.map((measure) => measure.bytes.subscriptions))).toBeLessThan(1.05);
    // … while four times as many were written.
    expect(run.posts.length).toBeGreaterThan(4 * run.finalRecords.length);
    // The cache grows only by what it keeps for good: about one published day (entry, word, has_more) a day.
    const first = flat[0]!;
    const last = flat.at(-1)!;
    expect((last.bytes.cache - first.bytes.cache) / (flat.length - 1)).toBeLessThan(1_024);
    // So the file stays nearly flat, where without pruning the records written since would have multiplied it.
    expect(last.usedPages - first.usedPages).toBeLessThan(first.usedPages * 0.15);
    expectMemoryBounded(run.measures);
    // Heap after a full collection: the run's own post log grows it by ~70 KB a day (1.5 MB here); the bot's part is flat.
    expect(last.heapUsed - first.heapUsed).toBeLessThan(4 * 1024 * 1024);
  });

  it('keeps the default 35 days of records and no more, over 45 days', { timeout: 60_000 }, async () => {
    const days = 45;
    const firstDay = '2026-09-01';
    const run = await runLongRun({ firstDay, days, channels: 24, churnPerDay: 2, lookups: false, seed: 11 });
    const lastDay = addDays(firstDay, days - 1);
    expectEveryDayPostedOnce(run, firstDay, lastDay);
    expectRecordsWithinRetention(run, lastDay, DEFAULT_DELIVERY_RETENTION_DAYS);
    for (const measure of run.measures.slice(DEFAULT_DELIVERY_RETENTION_DAYS + 2)) {
      expect(measure.oldestDeliveryDay).toBe(addDays(measure.day, -DEFAULT_DELIVERY_RETENTION_DAYS));
    }
    expectMemoryBounded(run.measures);
  });
});
