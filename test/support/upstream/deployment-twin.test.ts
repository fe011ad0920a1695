import { afterEach, describe, expect, it } from 'vitest';
import type { Variant } from '../../../src/wotd/dates.ts';
import { ManualClock } from './manual-clock.ts';
import { sampleEntries, startDeploymentTwin, type DeploymentTwin } from './deployment-twin.ts';
import { readSnapshot, SNAPSHOT_COLUMNS, SNAPSHOT_TABLE_SQL } from './snapshot-file.ts';

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
  // A's database pages are on its website's origin, as the real deployment's (wotd.site, not api.wotd.site).
  const response = await fetch(`${path.startsWith('/databases') ? twin?.siteUrl : twin?.url}${path}`);
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

describe('the database pages of twin A (issue 23)', () => {
  // ENTRIES run 2024-05-01 … 2024-06-20: on 2024-06-15 only May is over. A longer list for the listing tests.
  const LONG = sampleEntries('2024-01-10', 200);

  async function startA(options: { entries?: typeof ENTRIES; databaseRateLimitPerMinute?: number } = {}): Promise<DeploymentTwin> {
    clock = new ManualClock(`${TODAY}T12:00:00Z`);
    twin = await startDeploymentTwin({ variant: 'A', entries: options.entries ?? LONG, now: clock.now, rateLimitPerMinute: 0, ...options });
    return twin;
  }

  async function download(path: string, headers: Record<string, string> = {}, method = 'GET') {
    const response = await fetch(`${twin?.siteUrl}/databases/download/${path}`, { headers, method });
    return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
  }

  const links = async (): Promise<string[]> => [...(await get('/databases')).text.matchAll(/href="([^"]+)"/g)].map((match) => match[1] as string);

  it('are on the website origin, as the real deployment publishes them: its API origin answers 404, and the site nothing else', async () => {
    const a = await startA();
    expect(a.siteUrl).not.toBe(a.url);
    expect((await fetch(`${a.url}/databases`)).status).toBe(404);
    expect((await fetch(`${a.siteUrl}/databases`)).status).toBe(200);
    expect((await fetch(`${a.siteUrl}/query`)).status).toBe(404);
    await a.close();
    // Our own `serve` publishes them on one origin with the API: so can the twin.
    twin = await startDeploymentTwin({ variant: 'A', entries: LONG, now: clock.now, rateLimitPerMinute: 0, databasesOn: 'api' });
    expect(twin.siteUrl).toBe(twin.url);
    expect((await fetch(`${twin.url}/databases`)).status).toBe(200);
  });

  it('lists every month that is over as a link, in the folder order, from the first word on', async () => {
    const a = await startA();
    const page = await get('/databases');
    expect(page.status).toBe(200);
    expect(page.type).toMatch(/text\/html/);
    const listed = await links();
    expect(listed).toEqual((await a.databases?.names())?.map((name) => `/databases/download/${name}`));
    expect([...listed].sort()).toEqual(['01', '02', '03', '04', '05'].map((month) => `/databases/download/wotd_2024-${month}.db`));
  });

  it('sends a month as SQLite with the one table, cut at its end, with the site headers; 304 when unchanged', async () => {
    await startA();
    const may = await download('wotd_2024-05.db');
    expect(may.status).toBe(200);
    expect(Object.fromEntries(may.headers)).toMatchObject({
      'content-type': 'application/x-sqlite3',
      'content-disposition': 'inline',
      'cache-control': 'no-cache',
      // Written on the 1st after the month, as the site does.
      'last-modified': 'Sat, 01 Jun 2024 00:00:00 GMT',
    });
    expect(may.headers.get('retry-after')).toBeNull();
    const contents = await readSnapshot(may.body);
    expect(contents.tables).toEqual([{ name: 'words', sql: SNAPSHOT_TABLE_SQL }]);
    expect(contents.columns).toEqual(SNAPSHOT_COLUMNS);
    expect(contents.rows.map((row) => row.date)).toEqual(LONG.filter((entry) => entry.date <= '2024-05-31').map((entry) => entry.date));
    const etag = may.headers.get('etag') as string;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect((await download('wotd_2024-05.db', { 'if-none-match': etag })).status).toBe(304);
    expect((await download('wotd_2024-05.db', { 'if-modified-since': 'Sat, 01 Jun 2024 00:00:00 GMT' })).status).toBe(304);
    const head = await download('wotd_2024-05.db', {}, 'HEAD');
    expect([head.status, head.body.length, head.headers.get('content-length')]).toEqual([200, 0, String(may.body.length)]);
  });

  it('can miss a month, and a rewrite on the 1st changes ETag and Last-Modified', async () => {
    const a = await startA();
    const before = await download('wotd_2024-04.db');
    await a.databases?.setMissing('2024-03');
    expect(await links()).not.toContain('/databases/download/wotd_2024-03.db');
    expect(await download('wotd_2024-03.db')).toMatchObject({ status: 404 });
    expect((await download('wotd_2024-03.db')).body.toString()).toBe('Database file not found');

    clock.advance(3_600_000);
    await a.databases?.rewrite('2024-04');
    const stale = await download('wotd_2024-04.db', { 'if-none-match': before.headers.get('etag') as string });
    expect(stale.status).toBe(200);
    expect(stale.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(stale.headers.get('last-modified')).toBe('Sat, 15 Jun 2024 13:00:00 GMT');
    // A month missing earlier is written when rewritten.
    await a.databases?.rewrite('2024-03');
    expect(await links()).toContain('/databases/download/wotd_2024-03.db');
  });

  it('a new month appears once it is over', async () => {
    await startA();
    expect(await links()).not.toContain('/databases/download/wotd_2024-06.db');
    clock.advanceTo(Date.parse('2024-07-01T00:00:00Z'));
    expect(await links()).toContain('/databases/download/wotd_2024-06.db');
    expect((await readSnapshot((await download('wotd_2024-06.db')).body)).rows.at(-1)?.date).toBe('2024-06-30');
  });

  it('a stray .db file makes the listing a 500 (the downloads still work); other files do not', async () => {
    const a = await startA();
    await a.databases?.put('notes.txt', 'not listed');
    expect((await get('/databases')).status).toBe(200);
    await a.databases?.put('backup.db', 'stray');
    const broken = await get('/databases');
    expect(broken.status).toBe(500);
    expect(broken.type).toMatch(/text\/html/);
    expect((await download('wotd_2024-05.db')).status).toBe(200);
    await a.databases?.remove('backup.db');
    expect((await get('/databases')).status).toBe(200);
  });

  it('serves what a test puts under a month name, a huge sparse file included', async () => {
    const a = await startA();
    await a.databases?.put('wotd_2024-05.db', 'SQLite format 3\0 truncated');
    expect((await download('wotd_2024-05.db')).body.toString('latin1')).toBe('SQLite format 3\0 truncated');
    await a.databases?.putSparse('wotd_2024-04.db', 500 * 1024 * 1024, 'SQLite format 3\0');
    const head = await download('wotd_2024-04.db', {}, 'HEAD');
    expect(head.headers.get('content-length')).toBe(String(500 * 1024 * 1024));
    // What was put stays, month changes or not.
    clock.advanceTo(Date.parse('2024-07-02T00:00:00Z'));
    expect((await download('wotd_2024-05.db')).body.toString('latin1')).toBe('SQLite format 3\0 truncated');
  });

  it('refuses names outside the folder: encoded slashes, dot segments, other extensions', async () => {
    await startA();
    for (const name of ['wotd_2024-07.db', 'wotd_2024-05.sqlite', 'words.db', '..%2f..%2fetc%2fpasswd', '..%2Fwotd_2024-05.db', '%2e%2e%2fwotd.db', 'wotd_2024-05.db%2f']) {
      const reply = await download(name);
      expect(reply.status, name).toBe(404);
      if (!/%2f/i.test(name)) expect(reply.body.toString(), name).toBe('Database file not found');
    }
  });

  it('allows 30 requests a minute per client and page, then an HTML 429 without Retry-After', async () => {
    await startA({ databaseRateLimitPerMinute: undefined });
    for (let i = 0; i < 30; i++) expect((await get('/databases')).status).toBe(200);
    const refused = await get('/databases');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBeNull();
    expect(refused.type).toMatch(/text\/html/);
    expect(refused.text).toMatch(/30 per 1 minute/);
    // Every download shares one window of its own; the API keeps its own too.
    for (let i = 0; i < 30; i++) expect((await download(i % 2 === 0 ? 'wotd_2024-05.db' : 'nothing.db', {}, 'HEAD')).status).not.toBe(429);
    expect((await download('wotd_2024-01.db')).status).toBe(429);
    expect((await get('/query')).status).toBe(200);
    clock.advance(60_000);
    expect((await get('/databases')).status).toBe(200);
  });

  it('twin B has no database pages', async () => {
    const b = await start('B', 0);
    expect(b.databases).toBeUndefined();
    for (const path of ['/databases', '/databases/download/wotd_2024-05.db']) {
      const reply = await get(path);
      expect(reply.status, path).toBe(404);
      expect(reply.type, path).toMatch(/text\/html/);
    }
  });
});
