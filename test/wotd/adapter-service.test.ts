import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import type { WotdAdapter, WotdAdapterOptions } from '../../src/wotd/adapter.ts';
import type { UpstreamEvent } from '../../src/wotd/upstream-request.ts';
import type { Variant } from '../../src/wotd/dates.ts';
import { ManualClock } from '../support/upstream/manual-clock.ts';
import { sampleEntries } from '../support/upstream/deployment-twin.ts';
import { drive, sqliteAdapter, tempDir } from './harness.ts';

// 2024-05-01 .. 2024-06-20 in the database; today is 2024-06-15.
const ENTRIES = sampleEntries('2024-05-01', 51);
const TODAY = '2024-06-15';

describe.each(['A', 'B'] as Variant[])('adapter against our own service, variant %s', (variant) => {
  let dir: { path: string; cleanup: () => Promise<void> };
  let clock: ManualClock;
  let service: RunningService;
  let calls: UpstreamEvent[];
  const adapters: WotdAdapter[] = [];

  beforeEach(async () => {
    dir = await tempDir();
    clock = new ManualClock(`${TODAY}T08:30:00Z`);
    const dbPath = join(dir.path, 'words.sqlite');
    await writeWordDb(dbPath, ENTRIES);
    service = await startWotdService({ dbPath, variant, rateLimitPerMinute: 10, now: clock.now });
    calls = [];
  });

  afterEach(async () => {
    for (const adapter of adapters.splice(0)) await adapter.close();
    await service.close();
    await dir.cleanup();
  });

  async function open(options: Partial<WotdAdapterOptions> = {}): Promise<WotdAdapter> {
    const adapter = await sqliteAdapter(dir.path, clock, {
      baseUrl: service.url,
      variant,
      onRequest: (event) => calls.push(event),
      ...options,
    });
    adapters.push(adapter);
    return adapter;
  }

  it("answers today's entry, then from cache until its short TTL runs out", async () => {
    const adapter = await open();
    const first = await adapter.getEntry();
    expect(first).toMatchObject({ fromCache: false, stale: false, value: ENTRIES.find((entry) => entry.date === TODAY) });
    expect(await adapter.getEntry(TODAY)).toMatchObject({ fromCache: true, value: first.value });
    expect(calls).toHaveLength(1);
    clock.advance(15 * 60_000 + 1);
    expect((await adapter.getEntry()).fromCache).toBe(false);
    expect(calls).toHaveLength(2);
  });

  it('fetches a past date with one history request that also caches the week before it', async () => {
    const adapter = await open();
    const entry = await adapter.getEntry('2024-06-01');
    expect(entry.value).toEqual(ENTRIES.find((candidate) => candidate.date === '2024-06-01'));
    expect(calls.map((call) => call.path)).toEqual(['/query_previous']);
    for (const date of ['2024-05-31', '2024-05-28', '2024-05-25']) {
      expect((await adapter.getEntry(date)).fromCache).toBe(true);
    }
    // A history page inside that week comes from the cache, has_more included.
    const page = await adapter.getPrevious('2024-05-30', 3);
    expect(page).toMatchObject({ fromCache: true, value: { hasMore: true } });
    expect(page.value.entries.map((candidate) => candidate.date)).toEqual(['2024-05-29', '2024-05-28', '2024-05-27']);
    expect(calls).toHaveLength(1);
  });

  it('answers history near the start of the data with has_more false, then from cache', async () => {
    const adapter = await open();
    const page = await adapter.getPrevious('2024-05-03', 5);
    expect(page.value).toEqual({ entries: [ENTRIES[1], ENTRIES[0]], hasMore: false });
    expect((await adapter.getPrevious('2024-05-03', 5)).fromCache).toBe(true);
    expect((await adapter.getPrevious('2024-05-02', 1)).value).toEqual({ entries: [ENTRIES[0]], hasMore: false });
    expect(calls).toHaveLength(1);
  });

  it('answers history before today with entries newest first', async () => {
    const adapter = await open();
    const page = await adapter.getPrevious(undefined, 4);
    expect(page.value.entries.map((entry) => entry.date)).toEqual(['2024-06-14', '2024-06-13', '2024-06-12', '2024-06-11']);
    expect(page.value.hasMore).toBe(true);
    expect(calls[0]?.query).toMatchObject({ limit: '8' });
  });

  it('finds a word on every day it ran, newest first, and caches each entry singly', async () => {
    const adapter = await open();
    const found = await adapter.findWord('Halcyon');
    expect(found.value.entries.map((entry) => entry.date)).toEqual(['2024-06-07', '2024-05-28', '2024-05-18', '2024-05-08']);
    expect((await adapter.getEntry('2024-05-18')).fromCache).toBe(true);
    expect((await adapter.findWord('HALCYON')).fromCache).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it('shares one upstream call among concurrent identical lookups', async () => {
    const adapter = await open();
    const results = await Promise.all(Array.from({ length: 8 }, () => adapter.getEntry('2024-05-20')));
    expect(new Set(results.map((result) => result.value.word)).size).toBe(1);
    const finds = await Promise.all([adapter.findWord('dulcet'), adapter.findWord('Dulcet'), adapter.findWord('dulcet ')]);
    expect(finds[0].value).toEqual(finds[2].value);
    expect(calls).toHaveLength(2);
    // Each follower either joined the flight or, when its cache read finished after the flight landed, hit the cache.
    const { coalesced, cacheHits } = adapter.stats();
    expect(coalesced).toBeGreaterThan(0);
    expect(coalesced + cacheHits).toBe(7 + 2);
  });

  it('keeps the cache in the SQLite file across restarts, word index included', async () => {
    const first = await open();
    await first.getEntry('2024-06-10');
    await first.findWord('ebullient');
    await first.close();
    const second = await open();
    expect((await second.getEntry('2024-06-05')).fromCache).toBe(true);
    expect((await second.findWord('ebullient')).fromCache).toBe(true);
    expect(await second.suggestWords('E', 3)).toEqual(['ebullient']);
    // The week up to 2024-06-10 holds eight different words.
    expect(await second.suggestWords('', 25)).toHaveLength(8);
    expect(calls).toHaveLength(2);
  });

  it('asks /query for the one date when read-ahead is off', async () => {
    const adapter = await open({ readAhead: 0 });
    await adapter.getEntry('2024-06-01');
    expect(calls.map((call) => call.path)).toEqual(['/query']);
    expect((await drive(clock, adapter, adapter.getEntry('2024-05-31'))).fromCache).toBe(false);
    expect(calls).toHaveLength(2);
  });

  it('reports a date without an entry as not found', async () => {
    const adapter = await open();
    await expect(adapter.getEntry('2024-04-20')).rejects.toMatchObject({ code: 'not_found' });
    await expect(adapter.getEntry('2024-04-20')).rejects.toMatchObject({ code: 'not_found' });
    await expect(adapter.findWord('serendipity')).rejects.toMatchObject({ code: 'not_found' });
    const asked = calls.length;
    await expect(adapter.findWord('serendipity')).rejects.toMatchObject({ code: 'not_found' });
    expect(calls).toHaveLength(asked);
    // The empty page is believed once a dateless /query has shown the date format; B is asked two spellings.
    expect(calls.map((call) => call.path)).toEqual(
      variant === 'A'
        ? ['/query_previous', '/query', '/find_wotd']
        : ['/query_previous', '/query', '/find_wotd', '/find_wotd'],
    );
  });
});
