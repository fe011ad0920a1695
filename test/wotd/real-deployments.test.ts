import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import type { WotdAdapter, WotdAdapterOptions } from '../../src/wotd/adapter.ts';
import type { Variant } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { ManualClock } from '../support/upstream/manual-clock.ts';
import { sampleEntries, startDeploymentTwin, type DeploymentTwin } from '../support/upstream/deployment-twin.ts';
import { drive, failure, sqliteAdapter, tempDir } from './harness.ts';

/**
 * The adapter against twins of the two real deployments (test/support/upstream/deployment-twin.ts), from a fresh
 * store unless a test says otherwise. Each test here failed against the adapter before variant verification.
 */

const TODAY = '2024-06-15';
const GAP = '2024-06-10';

/** 2024-05-01 … 2024-06-20 (five days in the future), no entry on GAP, "Sisyphean" on 06-08 and again on 06-18. */
function entries(): Entry[] {
  return sampleEntries('2024-05-01', 51)
    .filter((entry) => entry.date !== GAP)
    .map((entry) =>
      entry.date === '2024-06-08' || entry.date === '2024-06-18'
        ? { ...entry, word: 'Sisyphean', pos: 'adjective', ipa: '/ˌsɪsɪˈfiːən/', definition: 'Endless and futile.' }
        : entry,
    );
}

const byDate = new Map(entries().map((entry) => [entry.date, entry]));
const dates = (list: Entry[]) => list.map((entry) => entry.date);

let dir: { path: string; cleanup: () => Promise<void> };
let clock: ManualClock;
let twin: DeploymentTwin | undefined;
let adapter: WotdAdapter | undefined;

beforeEach(async () => {
  dir = await tempDir();
  clock = new ManualClock(`${TODAY}T12:00:00Z`);
});

afterEach(async () => {
  await adapter?.close();
  await twin?.close();
  adapter = undefined;
  twin = undefined;
  await dir.cleanup();
});

async function setUp(variant: Variant, adapterOptions: Partial<WotdAdapterOptions> = {}) {
  twin = await startDeploymentTwin({ variant, entries: entries(), now: clock.now });
  adapter = await sqliteAdapter(dir.path, clock, { baseUrl: twin.url, ...adapterOptions });
  return { twin, adapter };
}

const refused = (deployment: DeploymentTwin) => deployment.requests.filter((request) => request.status === 429);

describe.each(['A', 'B'] as Variant[])('with the default auto against deployment %s', (variant) => {
  it('answers today, a past day, a day without an entry and a history page rightly', async () => {
    const { twin, adapter } = await setUp(variant);
    expect((await drive(clock, adapter, adapter.getEntry())).value).toEqual(byDate.get(TODAY));
    expect((await drive(clock, adapter, adapter.getEntry('2024-06-03'))).value).toEqual(byDate.get('2024-06-03'));
    expect((await failure(drive(clock, adapter, adapter.getEntry(GAP)))).code).toBe('not_found');
    const page = await drive(clock, adapter, adapter.getPrevious(TODAY, 8));
    // The service skips the day without an entry.
    expect(dates(page.value.entries)).toEqual(['2024-06-14', '2024-06-13', '2024-06-12', '2024-06-11', '2024-06-09', '2024-06-08', '2024-06-07', '2024-06-06']);
    expect(page.value.hasMore).toBe(true);
    expect(adapter.variant).toBe(variant);
    expect(refused(twin)).toEqual([]);
    // Today's entry came with the probe: one dateless /query, then history pages only.
    expect(twin.requests.filter((request) => request.path === '/query')).toEqual([expect.objectContaining({ query: {} })]);
  });

  it('never shows an entry before its day', async () => {
    const { adapter } = await setUp(variant);
    const found = await drive(clock, adapter, adapter.findWord('sisyphean'));
    expect(dates(found.value.entries)).toEqual(['2024-06-08']);
    expect((await failure(adapter.getEntry('2024-06-18'))).code).toBe('future_date');
    const page = await drive(clock, adapter, adapter.getPrevious(undefined, 3));
    expect(dates(page.value.entries)).toEqual(['2024-06-14', '2024-06-13', '2024-06-12']);
  });
});

describe('negative answers', () => {
  it('are not believed from a store an earlier version filled with answers to wrongly formatted dates', async () => {
    // What the adapter on `auto` used to leave after sending YYYY-MM-DD dates to B: an empty page kept forever,
    // a 404 for a day that has an entry, and a miss for the lower-case spelling of a capitalised word.
    const poisoned = await openStore<unknown>(`sqlite://${join(dir.path, 'cache.sqlite')}`, 'wotd-cache');
    await poisoned.set(`b:${TODAY}`, { v: false, exp: null });
    await poisoned.set('m:2024-06-03', { v: true, exp: clock.ms + 6 * 3_600_000 }, 6 * 3_600_000);
    await poisoned.set('f:sisyphean', { v: [], exp: clock.ms + 3_600_000 }, 3_600_000);
    await poisoned.disconnect();
    const { adapter } = await setUp('B', { variant: 'B' });
    expect(dates((await drive(clock, adapter, adapter.getPrevious(TODAY, 3))).value.entries)).toEqual(['2024-06-14', '2024-06-13', '2024-06-12']);
    expect((await drive(clock, adapter, adapter.getEntry('2024-06-03'))).value).toEqual(byDate.get('2024-06-03'));
    expect(dates((await drive(clock, adapter, adapter.findWord('sisyphean'))).value.entries)).toEqual(['2024-06-08']);
  });

  it('keep an empty history page before the first entry for an hour, not for ever', async () => {
    const { twin, adapter } = await setUp('B');
    const before = '2024-04-20';
    expect((await drive(clock, adapter, adapter.getPrevious(before, 3))).value).toEqual({ entries: [], hasMore: false });
    const asked = twin.requests.length;
    expect((await adapter.getPrevious(before, 3)).fromCache).toBe(true);
    expect(twin.requests).toHaveLength(asked);
    clock.advance(61 * 60_000);
    await drive(clock, adapter, adapter.getPrevious(before, 3));
    expect(twin.requests).toHaveLength(asked + 1);
  });

  it('are not cached when the service will not show its date format', async () => {
    twin = await startDeploymentTwin({ variant: 'B', entries: [], now: clock.now });
    adapter = await sqliteAdapter(dir.path, clock, { baseUrl: twin.url });
    expect((await drive(clock, adapter, adapter.getPrevious(TODAY, 3))).value.entries).toEqual([]);
    expect(adapter.variant).toBeNull();
    const asked = twin.requests.length;
    await drive(clock, adapter, adapter.getPrevious(TODAY, 3));
    expect(twin.requests.length).toBeGreaterThan(asked);
  });
});

describe('a configured variant the service contradicts', () => {
  it.each([
    ['A', 'B'],
    ['B', 'A'],
  ] as Array<[Variant, Variant]>)('%s against deployment %s is corrected with one warning', async (configured, actual) => {
    const warnings: string[] = [];
    const { twin, adapter } = await setUp(actual, { variant: configured, onWarning: (message) => warnings.push(message) });
    expect((await drive(clock, adapter, adapter.getEntry('2024-06-03'))).value).toEqual(byDate.get('2024-06-03'));
    expect(dates((await drive(clock, adapter, adapter.getPrevious('2024-05-20', 2))).value.entries)).toEqual(['2024-05-19', '2024-05-18']);
    expect((await drive(clock, adapter, adapter.getEntry('2024-05-02'))).value).toEqual(byDate.get('2024-05-02'));
    expect(adapter.variant).toBe(actual);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`WOTD_API_VARIANT is ${configured}`);
    expect(warnings[0]).toContain(`using ${actual}`);
    expect(refused(twin)).toEqual([]);
  });
});

describe('/find_wotd as each deployment answers it', () => {
  it('A: says the service reported only the first date, and adds the later dates the bot has seen', async () => {
    const { twin, adapter } = await setUp('A');
    // A member's earlier history lookup put 2024-06-12 (cogent) in the cache.
    await drive(clock, adapter, adapter.getPrevious('2024-06-13', 1));
    const found = await drive(clock, adapter, adapter.findWord('COGENT'));
    expect(found.value.complete).toBe(false);
    expect(dates(found.value.entries)).toEqual(['2024-06-12', '2024-05-03']);
    expect(twin.requests.filter((request) => request.path === '/find_wotd')).toHaveLength(1);
    // Cached, and still honest about what it knows.
    const again = await adapter.findWord('cogent');
    expect(again).toMatchObject({ fromCache: true, value: { complete: false } });
  });

  it('B: finds a capitalised word typed in lower case, then under its own spelling from the cache', async () => {
    const { twin, adapter } = await setUp('B');
    const found = await drive(clock, adapter, adapter.findWord('sisyphean'));
    expect(found.value).toEqual({ entries: [byDate.get('2024-06-08')], complete: true });
    expect((await adapter.findWord('Sisyphean')).fromCache).toBe(true);
    expect(twin.requests.filter((request) => request.path === '/find_wotd').map((request) => [request.query.word, request.status])).toEqual([
      ['sisyphean', 404],
      ['Sisyphean', 200],
    ]);
  });

  it('B: remembers a miss only under the spellings it asked', async () => {
    const { twin, adapter } = await setUp('B');
    expect((await failure(drive(clock, adapter, adapter.findWord('quixotic')))).code).toBe('not_found');
    expect((await failure(adapter.findWord('Quixotic'))).code).toBe('not_found');
    expect((await failure(drive(clock, adapter, adapter.findWord('QUIXOTIC')))).code).toBe('not_found');
    expect(twin.requests.filter((request) => request.path === '/find_wotd').map((request) => request.query.word)).toEqual([
      'quixotic',
      'Quixotic',
      'QUIXOTIC',
    ]);
  });

  it('A: one miss answers for every spelling', async () => {
    const { twin, adapter } = await setUp('A');
    expect((await failure(drive(clock, adapter, adapter.findWord('quixotic')))).code).toBe('not_found');
    expect((await failure(drive(clock, adapter, adapter.findWord('Quixotic')))).code).toBe('not_found');
    expect(twin.requests.filter((request) => request.path === '/find_wotd').map((request) => request.query.word)).toEqual(['quixotic']);
  });
});

describe('the upstream budget', () => {
  const thirtyLookups = (adapter: WotdAdapter) => [
    ...Array.from({ length: 10 }, (_, i) => adapter.getEntry(`2024-05-${String(i + 1).padStart(2, '0')}`)),
    ...Array.from({ length: 10 }, (_, i) => adapter.getPrevious(`2024-06-${String(i + 1).padStart(2, '0')}`, 1)),
    ...['aplomb', 'bucolic', 'cogent', 'dulcet', 'ebullient', 'fecund', 'garrulous', 'halcyon', 'insouciant', 'jocund'].map((word) =>
      adapter.findWord(word),
    ),
  ];

  it('is 10 a minute over all endpoints by default', async () => {
    const { twin, adapter } = await setUp('A', { variant: 'A', readAhead: 0 });
    const started = clock.ms;
    await drive(clock, adapter, Promise.all(thirtyLookups(adapter)));
    expect(clock.ms - started).toBeGreaterThanOrEqual(120_000);
    expect(refused(twin)).toEqual([]);
  });

  it('is 10 a minute per endpoint when configured so, as the deployments count', async () => {
    const { twin, adapter } = await setUp('A', { variant: 'A', readAhead: 0, rateLimitScope: 'endpoint' });
    const started = clock.ms;
    await drive(clock, adapter, Promise.all(thirtyLookups(adapter)));
    expect(clock.ms - started).toBeLessThan(60_000);
    expect(twin.maxPerEndpointPerMinute()).toBe(10);
    expect(refused(twin)).toEqual([]);
  });
});
