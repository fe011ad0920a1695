import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WotdAdapter, WotdAdapterOptions } from '../../src/wotd/adapter.ts';
import type { Variant } from '../../src/wotd/dates.ts';
import { ManualClock } from '../support/upstream/manual-clock.ts';
import { sampleEntries, startDeploymentTwin, type DeploymentTwin, type DeploymentTwinOptions } from '../support/upstream/deployment-twin.ts';
import { drive, failure, sqliteAdapter, tempDir } from './harness.ts';

// Entries run from 2024-05-01 to 2024-06-20; "today" is 2024-06-15, so five of them lie in the future.
const ENTRIES = sampleEntries('2024-05-01', 51);
const TODAY = '2024-06-15';

let dir: { path: string; cleanup: () => Promise<void> };
let clock: ManualClock;
let upstream: DeploymentTwin | undefined;
let adapter: WotdAdapter | undefined;

beforeEach(async () => {
  dir = await tempDir();
  clock = new ManualClock(`${TODAY}T12:00:00Z`);
});

afterEach(async () => {
  await adapter?.close();
  await upstream?.close();
  adapter = undefined;
  upstream = undefined;
  await dir.cleanup();
});

async function setUp(
  upstreamOptions: Partial<DeploymentTwinOptions> & { variant?: Variant } = {},
  adapterOptions: Partial<WotdAdapterOptions> = {},
): Promise<{ upstream: DeploymentTwin; adapter: WotdAdapter }> {
  upstream = await startDeploymentTwin({ entries: ENTRIES, variant: 'A', now: clock.now, ...upstreamOptions });
  adapter = await sqliteAdapter(dir.path, clock, {
    baseUrl: upstream.url,
    variant: upstreamOptions.variant ?? 'A',
    ...adapterOptions,
  });
  return { upstream, adapter };
}

describe('adapter against a quirky upstream', () => {
  it('treats a 429 with an HTML body and no Retry-After as a 60 s pause for everyone, then retries', async () => {
    const { upstream, adapter } = await setUp();
    upstream.fail('html429');
    const first = adapter.getEntry(TODAY);
    const second = adapter.getEntry('2024-06-01', { priority: 'scheduled' });
    const started = clock.ms;
    const [a, b] = await drive(clock, adapter, Promise.all([first, second]));
    expect(a.value.date).toBe(TODAY);
    expect(b.value.date).toBe('2024-06-01');
    expect(adapter.stats().upstream429).toBe(1);
    // One refused request, then both lookups after the pause: three upstream calls.
    expect(upstream.requests.map((request) => request.status)).toEqual([429, 200, 200]);
    expect(clock.ms - started).toBeGreaterThanOrEqual(60_000);
  });

  it('answers "busy, retry at …" at once when the 429 pause is longer than the caller will wait', async () => {
    const { upstream, adapter } = await setUp();
    upstream.fail('html429');
    const error = await failure(drive(clock, adapter, adapter.getEntry(TODAY, { maxWaitMs: 5_000 })));
    expect(error.code).toBe('rate_limited');
    expect(error.retryAt?.getTime()).toBe(new Date(`${TODAY}T12:01:00Z`).getTime());
    const again = await failure(adapter.getEntry('2024-06-02', { maxWaitMs: 5_000 }));
    expect(again.code).toBe('rate_limited');
    expect(upstream.requests).toHaveLength(1);
  });

  it('retries a 500 and gives up after the bounded retries with "unavailable"', async () => {
    const { upstream, adapter } = await setUp({}, { retries: 2 });
    upstream.fail('server500');
    expect((await drive(clock, adapter, adapter.getEntry(TODAY))).value.date).toBe(TODAY);
    expect(upstream.requests.map((request) => request.status)).toEqual([500, 200]);

    upstream.failAlways('server500');
    const error = await failure(drive(clock, adapter, adapter.getEntry('2024-06-14', { maxWaitMs: 0 })));
    expect(error.code).toBe('unavailable');
    expect(error.message).toMatch(/500/);
    expect(upstream.requests).toHaveLength(2 + 3);
  });

  it('backs off between retries with jitter on the injected timers', async () => {
    const { upstream, adapter } = await setUp({}, { retries: 1, retryDelayMs: 1_000, random: () => 0.5 });
    upstream.fail('server500');
    const started = clock.ms;
    await drive(clock, adapter, adapter.getEntry(TODAY));
    expect(upstream.requests).toHaveLength(2);
    // Equal jitter: half the delay fixed, half random (0.5 of it here).
    expect(clock.ms - started).toBe(750);
  });

  it('gives up on an answer slower than the timeout, and retries it', async () => {
    const { upstream, adapter } = await setUp({ slowMs: 3_000 }, { timeoutMs: 150, retries: 1 });
    upstream.fail('slow', 2);
    const error = await failure(drive(clock, adapter, adapter.getEntry(TODAY)));
    expect(error.code).toBe('unavailable');
    expect(error.message).toMatch(/within 150 ms/);
    expect(upstream.requests).toHaveLength(2);
  });

  it('retries a reset connection', async () => {
    const { upstream, adapter } = await setUp();
    upstream.fail('reset');
    expect((await drive(clock, adapter, adapter.getEntry(TODAY))).value.word).toBeTruthy();
    expect(upstream.requests.map((request) => request.status)).toEqual(['reset', 200]);
  });

  it('reports invalid JSON and wrong field types as bad responses, without retrying', async () => {
    const { upstream, adapter } = await setUp();
    upstream.fail('invalidJson');
    const invalid = await failure(drive(clock, adapter, adapter.getEntry(TODAY)));
    expect(invalid.code).toBe('bad_response');
    expect(invalid.message).toMatch(/not JSON/);
    upstream.fail('wrongTypes');
    const wrong = await failure(drive(clock, adapter, adapter.getEntry(TODAY)));
    expect(wrong.code).toBe('bad_response');
    expect(wrong.message).toMatch(/date/);
    expect(upstream.requests).toHaveLength(2);
  });

  it('serves a cached value marked stale when the service fails', async () => {
    const { upstream, adapter } = await setUp();
    const fresh = await drive(clock, adapter, adapter.getEntry());
    expect(fresh).toMatchObject({ stale: false, fromCache: false });
    clock.advance(16 * 60_000);
    upstream.failAlways('server500');
    const stale = await drive(clock, adapter, adapter.getEntry());
    expect(stale).toMatchObject({ stale: true, fromCache: true, value: fresh.value });
    expect(adapter.stats().staleServed).toBe(1);
    expect(upstream.requests).toHaveLength(1 + 3);
  });

  it('maps 404 to not_found and remembers it briefly', async () => {
    const { upstream, adapter } = await setUp({}, { readAhead: 0 });
    const day = '2024-04-30';
    expect((await failure(drive(clock, adapter, adapter.getEntry(day)))).code).toBe('not_found');
    expect((await failure(adapter.getEntry(day))).code).toBe('not_found');
    // The 404 is believed only once a dateless /query has confirmed the configured date format.
    expect(upstream.requests.map((request) => [request.path, request.query.date])).toEqual([
      ['/query', day],
      ['/query', undefined],
    ]);
    clock.advance(7 * 60 * 60_000);
    expect((await failure(drive(clock, adapter, adapter.getEntry(day)))).code).toBe('not_found');
    expect(upstream.requests).toHaveLength(3);
  });

  it('catches invalid input before any request', async () => {
    const { upstream, adapter } = await setUp();
    const cases: Array<[Promise<unknown>, string]> = [
      [adapter.getEntry('2024-13-01'), 'invalid_input'],
      [adapter.getEntry('2023-02-29'), 'invalid_input'],
      [adapter.getEntry('yesterday'), 'invalid_input'],
      [adapter.getEntry('2024-06-16'), 'future_date'],
      [adapter.getPrevious(TODAY, 0), 'invalid_input'],
      [adapter.getPrevious(TODAY, 9), 'invalid_input'],
      [adapter.getPrevious(TODAY, 2.5), 'invalid_input'],
      [adapter.getPrevious('2024-06-16', 3), 'future_date'],
      [adapter.findWord('   '), 'invalid_input'],
      [adapter.findWord('x'.repeat(101)), 'invalid_input'],
    ];
    for (const [promise, code] of cases) expect((await failure(promise)).code).toBe(code);
    expect(upstream.requests).toHaveLength(0);
  });

  it('reads find_wotd as the single object variant A answers, and says the answer is not complete', async () => {
    const { upstream, adapter } = await setUp();
    const found = await drive(clock, adapter, adapter.findWord('Aplomb'));
    // A reports only the oldest match.
    expect(found.value.entries.map((entry) => entry.date)).toEqual(['2024-05-01']);
    expect(found.value.complete).toBe(false);
    expect(upstream.requests[0]?.query).toEqual({ word: 'aplomb' });
  });

  it('reads find_wotd as the oldest-first array variant B answers and returns it newest first', async () => {
    const { upstream, adapter } = await setUp({ variant: 'B' }, { variant: 'B' });
    const found = await drive(clock, adapter, adapter.findWord('  COGENT '));
    expect(found.value.entries.map((entry) => entry.date)).toEqual(['2024-06-12', '2024-06-02', '2024-05-23', '2024-05-13', '2024-05-03']);
    expect(found.value.complete).toBe(true);
    const again = await adapter.findWord('cogent');
    expect(again).toMatchObject({ fromCache: true, stale: false });
    expect(again.value).toEqual(found.value);
    // Each found entry is cached on its own too.
    expect((await adapter.getEntry('2024-05-13')).fromCache).toBe(true);
    // B matches the exact spelling: COGENT missed, cogent matched.
    expect(upstream.requests.map((request) => [request.query.word, request.status])).toEqual([
      ['COGENT', 404],
      ['cogent', 200],
    ]);
    expect(await adapter.suggestWords('co', 5)).toEqual(['cogent']);
  });

  it('never returns future entries that a variant-B service answers', async () => {
    const { upstream, adapter } = await setUp({ variant: 'B' }, { variant: 'B' });
    // 'jocund' falls every tenth day from 2024-05-10, the last time on 2024-06-19 (the future).
    const found = await drive(clock, adapter, adapter.findWord('jocund'));
    expect(found.value.entries.map((entry) => entry.date)).toEqual(['2024-06-09', '2024-05-30', '2024-05-20', '2024-05-10']);
    expect((await failure(adapter.getEntry('2024-06-19'))).code).toBe('future_date');
    expect(upstream.requests).toHaveLength(1);
  });

  it('with auto, asks a dateless /query before its first dated request, and sends B dates to B', async () => {
    const { upstream, adapter } = await setUp({ variant: 'B' }, { variant: 'auto' });
    expect(adapter.variant).toBeNull();
    const entry = await drive(clock, adapter, adapter.getEntry('2024-06-03'));
    expect(entry.value.date).toBe('2024-06-03');
    expect(adapter.variant).toBe('B');
    expect(upstream.requests.map((request) => [request.path, request.query.date, request.status])).toEqual([
      ['/query', undefined, 200],
      ['/query_previous', '04-06-2024', 200],
    ]);
    // The probe's answer, today's entry, is cached too.
    expect((await adapter.getEntry(TODAY)).fromCache).toBe(true);
    expect(upstream.requests).toHaveLength(2);
  });

  it('learns the variant from a search answer without a probe', async () => {
    const { upstream, adapter } = await setUp({ variant: 'B' }, { variant: 'auto' });
    await drive(clock, adapter, adapter.findWord('bucolic'));
    expect(adapter.variant).toBe('B');
    await drive(clock, adapter, adapter.getEntry('2024-06-03'));
    expect(upstream.requests.map((request) => request.status)).toEqual([200, 200]);
  });
});
