import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/settings.ts';
import { DEFAULT_API_URL, openWotdAdapter, type WotdAdapter } from '../../src/wotd/adapter.ts';
import { openStore } from '../../src/store/open-store.ts';
import { ManualClock } from '../support/upstream/manual-clock.ts';
import { sampleEntries, startDeploymentTwin, type DeploymentTwin } from '../support/upstream/deployment-twin.ts';
import { drive, failure, sqliteAdapter, tempDir } from './harness.ts';

const ENTRIES = sampleEntries('2024-05-01', 46);
const TODAY = '2024-06-15';

let dir: { path: string; cleanup: () => Promise<void> };
let clock: ManualClock;
let upstream: DeploymentTwin;
let adapter: WotdAdapter;

beforeEach(async () => {
  dir = await tempDir();
  clock = new ManualClock(`${TODAY}T12:00:00Z`);
  upstream = await startDeploymentTwin({ entries: ENTRIES, variant: 'A', now: clock.now, rateLimitPerMinute: 10 });
  adapter = await sqliteAdapter(dir.path, clock, { baseUrl: upstream.url, variant: 'A', rateLimit: 1, readAhead: 0 });
});

afterEach(async () => {
  await adapter.close();
  await upstream.close();
  await dir.cleanup();
});

const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 20));

describe('bounded waits, priorities and coalescing', () => {
  it('says "busy, retry at …" at once when the limiter cannot serve within maxWaitMs', async () => {
    await adapter.getEntry('2024-06-01');
    const error = await failure(adapter.getEntry('2024-06-02', { maxWaitMs: 30_000 }));
    expect(error.code).toBe('rate_limited');
    expect(error.retryAt?.getTime()).toBeGreaterThanOrEqual(clock.ms + 60_000);
    expect(adapter.stats().busy).toBe(1);
    // Willing to wait a minute and a bit, the lookup is served when the slot frees.
    const served = await drive(clock, adapter, adapter.getEntry('2024-06-02', { maxWaitMs: 61_000 }));
    expect(served.value.date).toBe('2024-06-02');
    expect(upstream.requests).toHaveLength(2);
  });

  it('gives up at the deadline when more urgent work overtakes, and then sends nothing for it', async () => {
    await adapter.getEntry('2024-06-01');
    const patient = failure(adapter.getEntry('2024-06-02', { priority: 'background', maxWaitMs: 90_000 }));
    await settle();
    const urgent = adapter.getEntry('2024-06-03', { priority: 'scheduled' });
    await settle();
    clock.advance(60_000);
    expect((await urgent).value.date).toBe('2024-06-03');
    clock.advance(30_000);
    const error = await patient;
    expect(error.code).toBe('rate_limited');
    expect(error.retryAt?.getTime()).toBeGreaterThan(clock.ms);
    clock.advance(10 * 60_000);
    await settle();
    expect(upstream.requests.map((request) => request.query.date)).toEqual(['2024-06-01', '2024-06-03']);
  });

  it('raises a queued request when a scheduled caller joins it', async () => {
    await adapter.getEntry('2024-06-01');
    const background = adapter.getEntry('2024-06-05', { priority: 'background' });
    const interactive = adapter.getEntry('2024-06-04');
    await settle();
    expect(adapter.stats()).toMatchObject({ queued: 2, waitingLookups: 2 });
    const joined = adapter.getEntry('2024-06-05', { priority: 'scheduled' });
    await settle();
    expect(adapter.stats()).toMatchObject({ queued: 2, waitingLookups: 3, coalesced: 1 });
    const [a, b, c] = await drive(clock, adapter, Promise.all([background, interactive, joined]));
    expect([a.value.date, b.value.date, c.value.date]).toEqual(['2024-06-05', '2024-06-04', '2024-06-05']);
    // The shared 2024-06-05 request went first although it was queued as background work.
    expect(upstream.requests.map((request) => request.query.date)).toEqual(['2024-06-01', '2024-06-05', '2024-06-04']);
  });

  it('serves a stale search result when the search is due again and the service is down', async () => {
    const fresh = await adapter.findWord('bucolic');
    clock.advance(61 * 60_000);
    upstream.failAlways('server500');
    const stale = await drive(clock, adapter, adapter.findWord('Bucolic'));
    expect(stale).toMatchObject({ stale: true, fromCache: true, value: fresh.value });
  });

  it('remembers has_more so a cached history page needs no request', async () => {
    await drive(clock, adapter, adapter.getPrevious('2024-06-10', 8));
    const page = await adapter.getPrevious('2024-06-10', 8);
    expect(page).toMatchObject({ fromCache: true, value: { hasMore: true } });
    const shorter = await adapter.getPrevious('2024-06-08', 6);
    expect(shorter).toMatchObject({ fromCache: true, value: { hasMore: true } });
    expect(upstream.requests).toHaveLength(1);
  });

  it('rejects lookups once closed', async () => {
    await adapter.close();
    expect((await failure(adapter.getEntry('2024-06-01'))).code).toBe('unavailable');
  });
});

describe('openWotdAdapter', () => {
  it('uses the public service unless WOTD_API_URL says otherwise', async () => {
    const urls: string[] = [];
    const body = JSON.stringify({ date: '2024-06-15', word: 'aplomb', pos: 'noun', ipa: '/əˈplɒm/', definition: 'poise' });
    const fake = async (url: string) => {
      urls.push(url);
      return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const store = await openStore('memory://', 'wotd-cache');
    const fromDefaults = await openWotdAdapter(loadConfig({}), { store, fetch: fake, now: clock.now, readAhead: 0 });
    await fromDefaults.getEntry();
    await fromDefaults.close();
    const configured = await openWotdAdapter(loadConfig({ WOTD_API_URL: 'http://127.0.0.1:9/' }), {
      store: await openStore('memory://', 'wotd-cache'),
      fetch: fake,
      now: clock.now,
    });
    await configured.getEntry();
    await configured.close();
    // Both 'auto': today's entry is asked without a date, which also shows the service's date format.
    expect(urls).toEqual([`${DEFAULT_API_URL}/query`, 'http://127.0.0.1:9/query']);
    expect(DEFAULT_API_URL).toBe('https://api.wotd.site');
  });
});
