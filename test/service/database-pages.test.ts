import { request as httpRequest } from 'node:http';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startWotdService, type RunningService, type ServiceOptions } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { sampleEntries } from '../support/upstream/deployment-twin.ts';
import { readSnapshot, SNAPSHOT_COLUMNS, SNAPSHOT_TABLE_SQL } from '../support/upstream/snapshot-file.ts';
import { ManualClock, send, tempDir, type Reply } from './http.ts';

/** Our own service's /databases pages, through real HTTP on loopback, from a real word list file. */

// 2024-01-10 … 2024-07-27; "today" is mid-June, so June and July's words are not yet published.
const ENTRIES = sampleEntries('2024-01-10', 200);
const NOW = '2024-06-15T12:00:00Z';
const PUBLISHED = ['wotd_2024-01.db', 'wotd_2024-02.db', 'wotd_2024-03.db', 'wotd_2024-04.db', 'wotd_2024-05.db'];

let dir: string;
let cleanup: () => Promise<void>;
let dbPath: string;
const running: RunningService[] = [];

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('database-pages'));
  dbPath = join(dir, 'words.sqlite');
  await writeWordDb(dbPath, ENTRIES);
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((service) => service.close()));
});
afterAll(async () => {
  await cleanup();
});

async function start(options: Partial<ServiceOptions> = {}): Promise<{ service: RunningService; clock: ManualClock; get: (path: string, headers?: Record<string, string>, method?: string) => Promise<Reply> }> {
  const clock = new ManualClock(Date.parse(NOW));
  const service = await startWotdService({ dbPath, variant: 'A', now: clock.now, rateLimitPerMinute: 0, ...options });
  running.push(service);
  return { service, clock, get: (path, headers, method) => send(`${service.url}${path}`, { ...(headers ? { headers } : {}), ...(method ? { method } : {}) }) };
}

/** A request with the path exactly as given: no URL parser resolves its dot segments first. */
function rawGet(service: RunningService, path: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: service.port, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const linksOf = (html: string): string[] => [...html.matchAll(/href="([^"]+)"/g)].map((match) => match[1] as string);

describe('GET /databases', () => {
  it('links every published month, in the folder order, and the newest can be picked by name', async () => {
    const snapshotDir = join(dir, 'listing');
    const { get } = await start({ snapshotDir });
    const page = await get('/databases');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    const links = linksOf(page.text);
    const folderOrder = (await readdir(snapshotDir)).filter((name) => name.startsWith('wotd_'));
    expect(links).toEqual(folderOrder.map((name) => `/databases/download/${name}`));
    expect([...links].sort()).toEqual(PUBLISHED.map((name) => `/databases/download/${name}`));
    const newest = links.map((link) => /wotd_(\d{4}-\d{2})\.db$/.exec(link)?.[1] ?? '').sort().at(-1);
    expect(newest).toBe('2024-05');
  });

  it('grows by a month when one ends, and never offers a month before it is over', async () => {
    const { get, clock } = await start();
    clock.set('2024-06-30T23:59:59.999Z');
    expect(linksOf((await get('/databases')).text)).not.toContain('/databases/download/wotd_2024-06.db');
    expect((await get('/databases/download/wotd_2024-06.db')).status).toBe(404);
    clock.set('2024-07-01T00:00:00.000Z');
    expect(linksOf((await get('/databases')).text)).toContain('/databases/download/wotd_2024-06.db');
    const june = await get('/databases/download/wotd_2024-06.db');
    expect(june.status).toBe(200);
    expect((await readSnapshot(june.body)).rows.at(-1)?.date).toBe('2024-06-30');
  });
});

describe('GET /databases/download/<file>', () => {
  it('sends the month as SQLite with the one table, cut at the month end, with the site headers', async () => {
    const { get } = await start();
    const reply = await get('/databases/download/wotd_2024-03.db');
    expect(reply.status).toBe(200);
    expect(reply.headers).toMatchObject({
      'content-type': 'application/x-sqlite3',
      'content-disposition': 'inline',
      'cache-control': 'no-cache',
      etag: expect.stringMatching(/^"[^"]+"$/),
      'last-modified': expect.stringMatching(/GMT$/),
    });
    expect(Number(reply.headers['content-length'])).toBe(reply.body.length);
    expect(reply.body.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
    const contents = await readSnapshot(reply.body);
    expect(contents.tables).toEqual([{ name: 'words', sql: SNAPSHOT_TABLE_SQL }]);
    expect(contents.columns).toEqual(SNAPSHOT_COLUMNS);
    expect(contents.rows.map((row) => row.date)).toEqual(ENTRIES.filter((entry) => entry.date <= '2024-03-31').map((entry) => entry.date));
    expect(contents.rows[0]).toEqual({ date: '2024-01-10', word: ENTRIES[0]?.word, ipa: ENTRIES[0]?.ipa, pos: ENTRIES[0]?.pos, definition: ENTRIES[0]?.definition });

    const head = await get('/databases/download/wotd_2024-03.db', undefined, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers.etag).toBe(reply.headers.etag);
    expect(head.headers['content-length']).toBe(reply.headers['content-length']);
  });

  it('answers a conditional request for the same file 304, and a stale one with the file', async () => {
    const { get } = await start();
    const first = await get('/databases/download/wotd_2024-05.db');
    const etag = first.headers.etag as string;
    const unchanged = await get('/databases/download/wotd_2024-05.db', { 'if-none-match': etag });
    expect(unchanged.status).toBe(304);
    expect(unchanged.body.length).toBe(0);
    expect(unchanged.headers.etag).toBe(etag);
    expect((await get('/databases/download/wotd_2024-05.db', { 'if-none-match': `"other", W/${etag}` })).status).toBe(304);
    expect((await get('/databases/download/wotd_2024-05.db', { 'if-none-match': '"other"' })).status).toBe(200);
    expect((await get('/databases/download/wotd_2024-05.db', { 'if-modified-since': first.headers['last-modified'] as string })).status).toBe(304);
    expect((await get('/databases/download/wotd_2024-05.db', { 'if-modified-since': 'Mon, 01 Jan 2024 00:00:00 GMT' })).status).toBe(200);
    // Another month is another file.
    expect((await get('/databases/download/wotd_2024-04.db', { 'if-none-match': etag })).status).toBe(200);
  });

  it('keeps the same ETag across a restart on the same folder when the words did not change', async () => {
    const snapshotDir = join(dir, 'restart');
    const first = await start({ snapshotDir });
    const etag = (await first.get('/databases/download/wotd_2024-05.db')).headers.etag as string;
    await first.service.close();
    const second = await start({ snapshotDir });
    expect((await second.get('/databases/download/wotd_2024-05.db', { 'if-none-match': etag })).status).toBe(304);
  });

  it('refuses every other name with a plain 404, whatever it is dressed as', async () => {
    const { service, get } = await start();
    const refused = [
      'wotd_2024-06.db', // not over yet
      'wotd_2023-12.db', // before the first word
      'wotd_2024-05.sqlite',
      'wotd_2024-05.db.tmp',
      'wotd_2024-13.db',
      'WOTD_2024-05.db',
      'wotd_2024-05%2Edb',
      '..%2fwords.sqlite',
      '..%2F..%2F..%2Fetc%2Fpasswd',
      '%2e%2e%2fwords.sqlite',
      'wotd_2024-05.db%2f',
      'wotd_2024-05.db%00',
      '..%5cwords.sqlite',
      'x%2f..%2fwotd_2024-05.db',
      '',
    ];
    for (const name of refused) {
      const reply = await get(`/databases/download/${name}`);
      expect(reply.status, name).toBe(404);
      expect(reply.text, name).toBe('Database file not found');
      expect(reply.headers['content-type'], name).toBe('text/plain; charset=utf-8');
    }
    for (const path of ['/databases/download/../../words.sqlite', '/databases/download/./wotd_2024-05.db', '/databases/download/sub/wotd_2024-05.db']) {
      expect(await rawGet(service, path), path).toEqual({ status: 404, text: 'Database file not found' });
    }
  });

  it('allows GET and HEAD only', async () => {
    const { get } = await start();
    const reply = await get('/databases/download/wotd_2024-05.db', undefined, 'POST');
    expect(reply.status).toBe(405);
    expect(reply.headers.allow).toBe('GET, HEAD');
  });
});

describe('limits and variants', () => {
  it('allows 30 requests a minute per client to each page, then 429 with Retry-After (politer than the site)', async () => {
    const { get, clock } = await start({ rateLimitPerMinute: 10 });
    for (let i = 0; i < 30; i += 1) expect((await get('/databases')).status).toBe(200);
    const refused = await get('/databases');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers['content-type']).toBe('text/plain; charset=utf-8');
    // The download page has a window of its own, and so does the API.
    expect((await get('/databases/download/wotd_2024-05.db')).status).toBe(200);
    expect((await get('/query')).status).toBe(200);
    clock.advance(60_000);
    expect((await get('/databases')).status).toBe(200);
  });

  it('no limit at all with --rate-limit 0', async () => {
    const { get } = await start({ rateLimitPerMinute: 0 });
    for (let i = 0; i < 35; i += 1) expect((await get('/databases/download/wotd_2024-01.db', undefined, 'HEAD')).status).toBe(200);
  });

  it('variant B publishes no snapshots, as deployment B', async () => {
    const { get } = await start({ variant: 'B' });
    for (const path of ['/databases', '/databases/download/wotd_2024-05.db']) {
      const reply = await get(path);
      expect(reply.status, path).toBe(404);
      expect(reply.json, path).toEqual({ error: expect.stringMatching(/no such endpoint/) });
    }
  });

  it('answers 500 without details when the snapshots cannot be written, reports why, and tries again next time', async () => {
    const blocked = join(dir, 'blocked');
    await writeFile(blocked, 'a file where the folder should be');
    const warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const { get } = await start({ snapshotDir: blocked });
      const failed = await get('/databases');
      expect(failed.status).toBe(500);
      expect(failed.text).toBe('The database snapshots are not available right now; try again later');
      expect(warnings).toHaveBeenCalledWith(expect.objectContaining({ message: expect.stringContaining(blocked) }));
      expect((await get('/databases/download/wotd_2024-05.db')).status).toBe(500);
      await rm(blocked);
      await mkdir(blocked);
      expect(linksOf((await get('/databases')).text)).toHaveLength(5);
    } finally {
      warnings.mockRestore();
    }
  });

  it('leaves no temporary snapshot folder behind when it cannot listen', async () => {
    const { service } = await start();
    const ownTmp = await mkdtemp(join(tmpdir(), 'wotd-tmpdir-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = ownTmp;
    try {
      await expect(startWotdService({ dbPath, variant: 'A', port: service.port })).rejects.toThrow(/already in use/);
      expect(await readdir(ownTmp)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await rm(ownTmp, { recursive: true, force: true });
    }
  });

  it('removes its temporary snapshot folder at close, and keeps one it was given', async () => {
    const given = join(dir, 'kept');
    const ownFolder = await start();
    const keptFolder = await start({ snapshotDir: given });
    await ownFolder.get('/databases');
    await keptFolder.get('/databases');
    const temporary = ownFolder.service.snapshotDir as string;
    expect(existsSync(join(temporary, 'wotd_2024-05.db'))).toBe(true);
    expect(keptFolder.service.snapshotDir).toBe(given);
    await ownFolder.service.close();
    await keptFolder.service.close();
    expect(existsSync(temporary)).toBe(false);
    expect(existsSync(join(given, 'wotd_2024-05.db'))).toBe(true);
  });
});
