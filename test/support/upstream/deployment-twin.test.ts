import { afterEach, describe, expect, it } from 'vitest';
import type { Variant } from '../../../src/wotd/dates.ts';
import { ManualClock } from './manual-clock.ts';
import { sampleEntries, startDeploymentTwin, type DeploymentTwin } from './deployment-twin.ts';

/** The twins answer as the real deployments were seen to (issue 9's table), not as the contract reads. */

const TODAY = '2024-06-15';
// 2024-05-01 … 2024-06-20 without 2024-06-10; "Cogent" (capitalised) replaces cogent on 2024-06-12.
const ENTRIES = sampleEntries('2024-05-01', 51)
  .filter((entry) => entry.date !== '2024-06-10')
  .map((entry) => (entry.date === '2024-06-12' ? { ...entry, word: 'Cogent' } : entry));

let twin: DeploymentTwin | undefined;
let clock: ManualClock;
afterEach(async () => {
  await twin?.close();
  twin = undefined;
});

async function start(variant: Variant, rateLimitPerMinute?: number): Promise<DeploymentTwin> {
  clock = new ManualClock(`${TODAY}T12:00:00Z`);
  twin = await startDeploymentTwin({ variant, entries: ENTRIES, now: clock.now, ...(rateLimitPerMinute === undefined ? {} : { rateLimitPerMinute }) });
  return twin;
}

async function get(path: string): Promise<{ status: number; type: string; body: unknown; text: string; retryAfter: string | null }> {
  const response = await fetch(`${twin?.url}${path}`);
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // HTML
  }
  return { status: response.status, type: response.headers.get('content-type') ?? '', body, text, retryAfter: response.headers.get('retry-after') };
}

const datesOf = (body: unknown) => ((body as { results: Array<{ date: string }> }).results ?? []).map((entry) => entry.date);

describe('twin of deployment A (YYYY-MM-DD)', () => {
  it('refuses malformed, impossible, empty and future dates with 400', async () => {
    await start('A', 0);
    for (const date of ['15-06-2024', '2024-02-30', '']) {
      expect(await get(`/query?date=${date}`)).toMatchObject({ status: 400, body: { error: 'Invalid date format. Use YYYY-MM-DD' } });
    }
    expect(await get('/query?date=2024-06-16')).toMatchObject({ status: 400, body: { error: 'Date cannot be in the future' } });
    expect(await get('/query_previous?date=2024-06-16')).toMatchObject({ status: 400 });
    expect(await get('/query?date=2024-06-10')).toMatchObject({ status: 404, body: { error: 'Word not found for the specified date' } });
    expect(await get('/query')).toMatchObject({ status: 200, body: { date: TODAY } });
  });

  it('finds one object, the oldest match in any case, never a future one', async () => {
    await start('A', 0);
    expect(await get('/find_wotd?word=COGENT')).toMatchObject({ status: 200, body: { date: '2024-05-03', word: 'cogent' } });
    // jocund's last day, 2024-06-19, is in the future; its first is not.
    expect(await get('/find_wotd?word=jocund')).toMatchObject({ body: { date: '2024-05-10' } });
    expect(await get('/find_wotd?word=nothing')).toMatchObject({ status: 404, body: { error: 'Word not found' } });
    expect(await get('/metadata')).toMatchObject({ status: 200, body: { site_name: 'Word of the Day', version: 'v1.3.0' } });
  });
});

describe('twin of deployment B (DD-MM-YYYY)', () => {
  it('never answers 400 for a date: 404 from /query, an empty page from /query_previous', async () => {
    await start('B', 0);
    for (const date of ['2024-06-01', '30-02-2024', '']) {
      expect(await get(`/query?date=${date}`)).toMatchObject({ status: 404, body: { error: 'Word not found for the specified date' } });
    }
    expect(await get('/query_previous?date=2024-06-01')).toMatchObject({ status: 200, body: { has_more: false, results: [] } });
    expect(await get('/query?date=01-06-2024')).toMatchObject({ status: 200, body: { date: '01-06-2024' } });
  });

  it('serves future dates everywhere', async () => {
    await start('B', 0);
    expect(await get('/query?date=19-06-2024')).toMatchObject({ status: 200, body: { date: '19-06-2024' } });
    expect(datesOf((await get('/query_previous?date=20-06-2024&limit=2')).body)).toEqual(['19-06-2024', '18-06-2024']);
    const jocund = (await get('/find_wotd?word=jocund')).body as Array<{ date: string }>;
    expect(jocund.map((entry) => entry.date)).toEqual(['10-05-2024', '20-05-2024', '30-05-2024', '09-06-2024', '19-06-2024']);
  });

  it('finds the exact spelling only, oldest first; /metadata is an HTML 404', async () => {
    await start('B', 0);
    const lower = (await get('/find_wotd?word=cogent')).body as Array<{ date: string }>;
    expect(lower.map((entry) => entry.date)).toEqual(['03-05-2024', '13-05-2024', '23-05-2024', '02-06-2024']);
    expect(await get('/find_wotd?word=Cogent')).toMatchObject({ status: 200, body: [{ date: '12-06-2024', word: 'Cogent' }] });
    expect(await get('/find_wotd?word=COGENT')).toMatchObject({ status: 404 });
    const metadata = await get('/metadata');
    expect(metadata.status).toBe(404);
    expect(metadata.type).toMatch(/text\/html/);
  });
});

describe.each(['A', 'B'] as Variant[])('both twins (%s)', (variant) => {
  it('page newest first, strictly before, skipping gaps, with Flask-like limits', async () => {
    await start(variant, 0);
    const date = variant === 'A' ? '2024-06-12' : '12-06-2024';
    const page = await get(`/query_previous?date=${date}&limit=3`);
    expect(datesOf(page.body).map((text) => text.replace(/^(\d\d)-(\d\d)-(\d{4})$/, '$3-$2-$1'))).toEqual(['2024-06-11', '2024-06-09', '2024-06-08']);
    expect(page.body).toMatchObject({ has_more: true });
    expect(datesOf((await get(`/query_previous?date=${date}&limit=abc`)).body)).toHaveLength(3);
    expect(datesOf((await get(`/query_previous?date=${date}&limit=0`)).body)).toHaveLength(0);
    expect(datesOf((await get(`/query_previous?date=${date}&limit=-1`)).body)).toHaveLength(41);
    expect(await get(`/query_previous?date=${date}&limit=9`)).toMatchObject({ status: 500, body: { error: expect.any(String) } });
    const early = variant === 'A' ? '2024-04-01' : '01-04-2024';
    expect(await get(`/query_previous?date=${early}`)).toMatchObject({ status: 200, body: { has_more: false, results: [] } });
  });

  it('limit 10 a minute per client and per endpoint, 404s counted, with an HTML 429 and no Retry-After', async () => {
    await start(variant);
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push((await get('/query?date=nope')).status);
    expect(statuses.slice(0, 10).every((status) => status === 400 || status === 404)).toBe(true);
    const refused = await get('/query');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBeNull();
    expect(refused.type).toMatch(/text\/html/);
    expect(refused.text).toMatch(/Too Many Requests/);
    // Another endpoint has a window of its own.
    expect((await get('/query_previous')).status).toBe(200);
    // The window is fixed from its first request.
    clock.advance(60_000);
    expect((await get('/query')).status).toBe(200);
  });
});
