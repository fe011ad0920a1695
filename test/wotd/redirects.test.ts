import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WotdAdapter } from '../../src/wotd/adapter.ts';
import type { UpstreamEvent } from '../../src/wotd/upstream-request.ts';
import { MAX_REDIRECTS } from '../../src/wotd/http-client.ts';
import type { WotdLookup } from '../../src/wotd/lookup.ts';
import { readKeyvRows } from '../faults/world.ts';
import { ManualClock } from '../support/upstream/manual-clock.ts';
import { startScriptedUpstream, type ScriptedReply, type ScriptedUpstream } from '../support/upstream/scripted-upstream.ts';
import { drive, failure, sqliteAdapter, tempDir } from './harness.ts';

/**
 * Issue 20, finding 6: a redirect to another origin (another port here, or https to http) is refused with an error
 * naming both URLs, the other origin is never asked, and nothing is cached; a redirect within the service's own
 * origin is followed, at most MAX_REDIRECTS times.
 */

const TODAY = '2024-06-15';
const OURS = { date: TODAY, word: 'aplomb', pos: 'noun', ipa: '/əˈplɒm/', definition: 'self-confidence' };
const THEIRS = { date: TODAY, word: 'hijacked', pos: 'verb', ipa: '/x/', definition: 'served by another origin' };
const json = (value: unknown): ScriptedReply => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });
/** What another origin answers at each endpoint: well-formed, so only the redirect policy keeps it out of the cache. */
const theirAnswer = (path: string): ScriptedReply =>
  path === '/query_previous' ? json({ has_more: false, results: [{ ...THEIRS, date: '2024-06-14' }] }) : path === '/find_wotd' ? json(THEIRS) : json(THEIRS);

const TLS_DIR = join(import.meta.dirname, '../support/upstream/tls');

let service: ScriptedUpstream;
let elsewhere: ScriptedUpstream;
let dir: { path: string; cleanup: () => Promise<void> };
let clock: ManualClock;
let adapter: WotdAdapter | undefined;
let events: UpstreamEvent[];

beforeAll(async () => {
  service = await startScriptedUpstream(() => json(OURS));
  elsewhere = await startScriptedUpstream(({ path }) => theirAnswer(path));
});

afterAll(async () => {
  await service.close();
  await elsewhere.close();
});

beforeEach(async () => {
  dir = await tempDir();
  clock = new ManualClock(`${TODAY}T12:00:00Z`);
  events = [];
  elsewhere.reset(({ path }) => theirAnswer(path));
});

afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
  await dir.cleanup();
});

async function open(baseUrl: string): Promise<WotdAdapter> {
  adapter = await sqliteAdapter(dir.path, clock, { baseUrl, variant: 'A', retries: 0, onRequest: (event) => events.push(event) });
  return adapter;
}

/** Every key of the cache file but the sweep's own record, and whether any row holds the other origin's word. */
async function cached(): Promise<{ keys: string[]; theirs: boolean }> {
  const rows = await readKeyvRows(join(dir.path, 'cache.sqlite'));
  return {
    keys: rows.map((row) => row.key.replace(/^wotd-cache:/, '')).filter((key) => key !== 'swept'),
    theirs: rows.some((row) => row.value.includes(THEIRS.word)),
  };
}

const LOOKUPS: Array<[string, string, (lookup: WotdLookup) => Promise<unknown>]> = [
  ['/query', "today's entry", (lookup) => lookup.getEntry(TODAY)],
  ['/query_previous', 'a history page', (lookup) => lookup.getPrevious(TODAY, 1)],
  ['/find_wotd', 'a search', (lookup) => lookup.findWord('hijacked')],
];

describe('redirects from the service', () => {
  it.each(LOOKUPS)('refuses a %s redirect to another origin for %s: both URLs named, that origin never asked, nothing cached', async (path, _what, lookup) => {
    service.reset((request) => ({ status: 302, headers: { location: `${elsewhere.url}${request.path}?from=service` } }));
    const wotd = await open(service.url);
    const error = await failure(drive(clock, wotd, lookup(wotd) as Promise<unknown>));
    expect(error.code).toBe('bad_response');
    expect(error.message).toContain(`${service.url}${path}`);
    expect(error.message).toContain(`${elsewhere.url}${path}?from=service`);
    expect(error.message).toMatch(/another origin/);
    expect(events.find((event) => event.path === path)?.detail).toContain(elsewhere.url);
    expect(elsewhere.requests).toEqual([]);
    expect(await cached()).toEqual({ keys: [], theirs: false });
  });

  it('refuses a redirect from https to http, naming both URLs', async () => {
    const tls = createServer({ key: readFileSync(join(TLS_DIR, 'loopback-key.pem')), cert: readFileSync(join(TLS_DIR, 'loopback-cert.pem')) }, (request, response) => {
      response.writeHead(301, { location: `${elsewhere.url}${request.url ?? '/'}` });
      response.end();
    });
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    // The test certificate is self-signed; this file's process trusts it by not checking (loopback only).
    const previous = process.env.NODE_TLS_REJECT_UNAUTHORIZED;
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    try {
      const base = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
      const wotd = await open(base);
      const error = await failure(drive(clock, wotd, wotd.getEntry(TODAY)));
      expect(error.code).toBe('bad_response');
      expect(error.message).toContain(`${base}/query?date=${TODAY}`);
      expect(error.message).toContain(`${elsewhere.url}/query?date=${TODAY}`);
      expect(error.message).toMatch(/from https to http/);
      expect(elsewhere.requests).toEqual([]);
      expect(await cached()).toEqual({ keys: [], theirs: false });
    } finally {
      if (previous === undefined) delete process.env.NODE_TLS_REJECT_UNAUTHORIZED;
      else process.env.NODE_TLS_REJECT_UNAUTHORIZED = previous;
      tls.closeAllConnections();
      await new Promise<void>((resolve) => tls.close(() => resolve()));
    }
  });

  it('follows a redirect within the service’s origin and caches the answer', async () => {
    service.reset((request) => (request.path === '/query' ? { status: 307, headers: { location: `/v2/query?date=${request.query.date ?? ''}` } } : json(OURS)));
    const wotd = await open(service.url);
    expect((await drive(clock, wotd, wotd.getEntry(TODAY))).value).toEqual(OURS);
    expect(service.requests.map((request) => request.path)).toEqual(['/query', '/v2/query']);
    expect((await cached()).keys).toContain(`e:${TODAY}`);
  });

  it(`stops after ${MAX_REDIRECTS} redirects within the origin, caching nothing`, async () => {
    let hop = 0;
    service.reset(() => ({ status: 302, headers: { location: `/loop/${++hop}` } }));
    const wotd = await open(service.url);
    const error = await failure(drive(clock, wotd, wotd.getEntry(TODAY)));
    expect(error.code).toBe('bad_response');
    expect(error.message).toMatch(new RegExp(`more than ${MAX_REDIRECTS} times`));
    expect(service.requests).toHaveLength(MAX_REDIRECTS + 1);
    expect(await cached()).toEqual({ keys: [], theirs: false });
  });

  it('refuses a redirect without a usable Location', async () => {
    service.reset(() => ({ status: 301, headers: {} }));
    const wotd = await open(service.url);
    const error = await failure(drive(clock, wotd, wotd.getEntry(TODAY)));
    expect(error.code).toBe('bad_response');
    expect(error.message).toMatch(/without a usable Location/);
    expect(await cached()).toEqual({ keys: [], theirs: false });
  });
});
