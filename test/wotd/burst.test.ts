import { afterEach, beforeEach, expect, it } from 'vitest';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import type { WotdAdapter } from '../../src/wotd/adapter.ts';
import { addDays } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { ManualClock } from '../support/upstream/manual-clock.ts';
import { sqliteAdapter, tempDir } from './harness.ts';

// The committed sample word list (2020-01-01 .. 2035-12-31) behind our own service, its 10/min limit on.
const DB_PATH = 'data/words.sqlite';

let dir: { path: string; cleanup: () => Promise<void> };
let clock: ManualClock;
let service: RunningService;
let adapter: WotdAdapter;
let statuses: number[];
let sentAt: number[];

beforeEach(async () => {
  dir = await tempDir();
  clock = new ManualClock('2025-06-15T12:00:00Z');
  service = await startWotdService({ dbPath: DB_PATH, variant: 'A', rateLimitPerMinute: 10, now: clock.now });
  statuses = [];
  sentAt = [];
  adapter = await sqliteAdapter(dir.path, clock, {
    baseUrl: service.url,
    variant: 'A',
    rateLimit: 10,
    fetch: async (url, init) => {
      sentAt.push(clock.ms);
      const response = await fetch(url, init);
      statuses.push(response.status);
      return response;
    },
  });
});

afterEach(async () => {
  await adapter.close();
  await service.close();
  await dir.cleanup();
});

const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 2));

it('spreads a burst of 50 distinct uncached lookups so no minute sees more than 10 requests, and gets no 429', async () => {
  // Ten days apart, so that no answer's read-ahead covers another lookup.
  const dates = Array.from({ length: 50 }, (_, i) => addDays('2025-06-14', -10 * i));
  const results: Array<Entry | Error> = [];
  let settled = 0;
  for (const [i, date] of dates.entries()) {
    adapter
      .getEntry(date, { priority: i % 5 === 0 ? 'scheduled' : 'interactive' })
      .then((lookup) => (results[i] = lookup.value), (error: Error) => (results[i] = error))
      .finally(() => settled++);
  }
  // Accelerated time: whenever nothing is in flight, jump to the limiter's next wake-up.
  let idle = 0;
  while (settled < dates.length) {
    await pause();
    if (adapter.stats().inFlight > 0) continue;
    if (!clock.runNext() && ++idle > 2_000) throw new Error('the burst stalled');
  }

  expect(results.map((result) => (result instanceof Error ? result.message : result.date))).toEqual(dates);
  expect(statuses).toHaveLength(50);
  expect(statuses.every((status) => status === 200)).toBe(true);
  expect(adapter.stats()).toMatchObject({ upstreamRequests: 50, upstream429: 0 });
  // At most 10 requests in any 60 s window: the 11th after any request is at least a minute later.
  for (let i = 10; i < sentAt.length; i++) expect((sentAt[i] ?? 0) - (sentAt[i - 10] ?? 0)).toBeGreaterThanOrEqual(60_000);
  // ... and the burst took the five minutes that requires, not more.
  expect(clock.ms - Date.parse('2025-06-15T12:00:00Z')).toBeLessThan(5 * 60_000);
});
