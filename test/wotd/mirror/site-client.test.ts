import { readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_SNAPSHOT_BYTES, downloadSnapshot, fetchListing } from '../../../src/wotd/mirror/site-client.ts';
import { lastDayOfMonth, newestSnapshots, snapshotMonth } from '../../../src/wotd/mirror/snapshot-listing.ts';
import { sampleEntries } from '../../support/upstream/deployment-twin.ts';
import { startSnapshotSite, type SnapshotSite } from '../../support/upstream/snapshot-site.ts';
import { tempDir } from '../harness.ts';
import { writeSnapshot } from './snapshot-files.ts';

/** The mirror's two requests to the site, against a loopback site that answers as the real one does. */

let dir: { path: string; cleanup: () => Promise<void> };
let site: SnapshotSite;

beforeEach(async () => {
  dir = await tempDir();
  const files = [];
  for (const month of ['2024-04', '2024-06', '2024-05']) {
    const path = join(dir.path, `wotd_${month}.db`);
    await writeSnapshot(path, sampleEntries(`${month}-01`, 3));
    files.push({ name: `wotd_${month}.db`, path });
  }
  site = await startSnapshotSite({ files });
});

afterEach(async () => {
  await site.close();
  await dir.cleanup();
});

const options = () => ({ timeoutMs: 2_000, now: Date.now() });

describe('the listing', () => {
  it('gives the snapshots newest month first, whatever the page order, each on the site’s own origin', async () => {
    site.extraHtml = '<a href="https://elsewhere.example/databases/download/wotd_2024-07.db">x</a> <a href="/databases/download/wotd_2024-13.db">bad</a>';
    const listing = await fetchListing(site.url, options());
    expect(listing.kind).toBe('ok');
    if (listing.kind !== 'ok') return;
    expect(listing.snapshots.map((snapshot) => snapshot.name)).toEqual(['wotd_2024-07.db', 'wotd_2024-06.db', 'wotd_2024-05.db', 'wotd_2024-04.db']);
    expect(listing.snapshots.every((snapshot) => snapshot.url.startsWith(`${site.url}/databases/download/`))).toBe(true);
  });

  it('404: the site publishes none', async () => {
    site.noListing = true;
    expect(await fetchListing(site.url, options())).toMatchObject({ kind: 'none', result: 'not_found' });
  });

  it('500 (a stray file on the server): a failure to retry later', async () => {
    site.listingFails = true;
    expect(await fetchListing(site.url, options())).toMatchObject({ kind: 'failed', result: 'http_5xx', retryAfterMs: null });
  });

  it('429 as HTML without Retry-After, past 30 a minute', async () => {
    for (let i = 0; i < 30; i++) expect((await fetchListing(site.url, options())).kind).toBe('ok');
    const refused = await fetchListing(site.url, options());
    expect(refused).toMatchObject({ kind: 'failed', result: 'rate_limited', retryAfterMs: null });
    // Each endpoint has its own window: a download still goes through.
    const answer = await downloadSnapshot(`${site.url}/databases/download/wotd_2024-06.db`, join(dir.path, 'got.db'), options());
    expect(answer.kind).toBe('downloaded');
  });

  it('a site that accepts and never answers: a timeout', async () => {
    const silent = await silentServer();
    try {
      const listing = await fetchListing(silent.url, { timeoutMs: 200, now: Date.now() });
      expect(listing).toMatchObject({ kind: 'failed', result: 'timeout' });
    } finally {
      await silent.close();
    }
  });
});

describe('a download', () => {
  const url = () => `${site.url}/databases/download/wotd_2024-06.db`;

  it('streams the file and keeps its validators; the same request with them gets 304', async () => {
    const path = join(dir.path, 'got.db');
    const answer = await downloadSnapshot(url(), path, options());
    expect(answer.kind).toBe('downloaded');
    if (answer.kind !== 'downloaded') return;
    expect((await readFile(path)).equals(await readFile(join(dir.path, 'wotd_2024-06.db')))).toBe(true);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(answer.validators.etag).toMatch(/^"[0-9a-f]+"$/);
    expect(answer.validators.lastModified).toMatch(/GMT$/);
    const again = await downloadSnapshot(url(), join(dir.path, 'again.db'), { ...options(), validators: answer.validators });
    expect(again.kind).toBe('not_modified');
    expect(site.requests.at(-1)).toMatchObject({ status: 304, headers: { 'if-none-match': answer.validators.etag } });
  });

  it('never writes over an existing file', async () => {
    const path = join(dir.path, 'wotd_2024-05.db');
    const before = await readFile(path);
    expect(await downloadSnapshot(url(), path, options())).toMatchObject({ kind: 'failed' });
    expect((await readFile(path)).equals(before)).toBe(true);
  });

  it('404 with the plain body "Database file not found"', async () => {
    const answer = await downloadSnapshot(`${site.url}/databases/download/wotd_1999-01.db`, join(dir.path, 'x.db'), options());
    expect(answer).toMatchObject({ kind: 'failed', result: 'not_found' });
    expect(answer.kind === 'failed' && answer.detail).toMatch(/404 \(Database file not found\)/);
  });

  it('a download that never comes: cut off after the timeout', async () => {
    site.downloadsHang = true;
    const answer = await downloadSnapshot(url(), join(dir.path, 'x.db'), { timeoutMs: 200, now: Date.now() });
    expect(answer).toMatchObject({ kind: 'failed', result: 'timeout' });
  });

  it.each([false, true])('a 500 MB body (Content-Length declared: %s) is refused at the 50 MB cap, never read whole', async (declareLength) => {
    site.huge = { bytes: 500 * 1024 * 1024, declareLength };
    const path = join(dir.path, 'huge.db');
    const answer = await downloadSnapshot(url(), path, options());
    expect(answer.kind).toBe('too_large');
    // The site stopped well short of 500 MB: the client stopped reading (and what it read went to the file, bounded).
    expect(site.hugeSent.bytes).toBeLessThan(DEFAULT_MAX_SNAPSHOT_BYTES + 32 * 1024 * 1024);
    const written = await stat(path).then((info) => info.size, () => 0);
    expect(written).toBeLessThanOrEqual(DEFAULT_MAX_SNAPSHOT_BYTES);
    if (declareLength) expect(written).toBe(0);
  });
});

describe('snapshot names', () => {
  it('months from file names, and their last days', () => {
    expect(snapshotMonth('wotd_2024-02.db')).toBe('2024-02');
    expect(snapshotMonth('wotd_2024-00.db')).toBeNull();
    expect(snapshotMonth('words.sqlite')).toBeNull();
    expect(lastDayOfMonth('2024-02')).toBe('2024-02-29');
    expect(lastDayOfMonth('2023-12')).toBe('2023-12-31');
    expect(newestSnapshots('/databases/download/wotd_2024-01.db.bak /databases/download/wotd_2024-02.dbx', 'http://x')).toEqual([]);
  });
});

/** A loopback server that accepts connections and never answers. */
async function silentServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer(() => undefined);
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
