import { connect } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { wordKey } from '../../src/service/word-index.ts';
import { addDays, parseWireDate, toWireDate, type IsoDate, type Variant } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { tempDir } from '../service/http.ts';
import { DATES, nastyText, NUMBERS, PROPERTY_TIMEOUT_MS, settings, trackUnhandled, wellFormed, withinBound } from './generated.ts';

/**
 * Generated query strings and paths, sent as raw bytes over TCP to our real service on loopback (variants A and B):
 * every answer is JSON with the status the README documents (200, 400, 404 or 405; never a 500), an error names
 * what was wrong in one line, and nothing hangs.
 */

const SEED = 7_302;
const TODAY = '2025-01-20';
const ENDPOINTS = ['/query', '/query_previous', '/find_wotd', '/download'];

/** A month of words up to TODAY, with a gap, one word on three days and a word of the future. */
const ENTRIES: Entry[] = Array.from({ length: 30 }, (_, index) => addDays(TODAY, index - 28))
  .filter((date) => date !== '2025-01-10')
  .map((date, index) => ({
    date,
    word: index % 10 === 3 ? 'Echo' : `word${index}`,
    pos: 'noun',
    ipa: '/w/',
    definition: `Definition ${index}.`,
  }));

interface RawReply {
  status: number;
  headers: Map<string, string>;
  body: Buffer;
}

/**
 * One request written byte for byte on a fresh connection, so a target can hold what an HTTP client would refuse
 * to send (spaces, control characters, raw UTF-8, broken percent escapes).
 */
function rawRequest(port: number, method: string, target: string): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks);
      const split = raw.indexOf('\r\n\r\n');
      if (split === -1) {
        reject(new Error(`no HTTP answer, got ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`));
        return;
      }
      const [statusLine = '', ...lines] = raw.subarray(0, split).toString('latin1').split('\r\n');
      const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: raw.subarray(split + 4) });
    });
    socket.end(Buffer.from(requestHead(method, target), 'utf8'));
  });
}

function requestHead(method: string, target: string): string {
  return `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;
}

// ------------------------------------------------------------------------------------------ generated requests

const paramName = fc.constantFrom('date', 'limit', 'word', 'Date', 'dates', 'x', '', 'date[]', 'word ', '%64ate');
const paramValue = fc.oneof(
  nastyText({
    extra: [...DATES, ...NUMBERS, 'Echo', ' echo ', 'ECHO', 'word3', '%', '%zz', '%E0%A4', '%00', '+', '&', '='],
    huge: 3_000,
  }),
  fc.constantFrom(...DATES, ...NUMBERS, ...ENTRIES.map((entry) => entry.date), ...ENTRIES.map((entry) => toWireDate(entry.date, 'B'))),
  // Long runs of characters outside the BMP, at either parity: where an error quoting the value cuts it short.
  fc
    .tuple(fc.constantFrom('', 'a', 'ab', 'abc'), fc.constantFrom('😀', '𝄞', '𓀀'), fc.integer({ min: 35, max: 90 }))
    .map(([prefix, astral, count]) => `${prefix}${astral.repeat(count)}`),
);
/** How a pair is written into the query: encoded as a browser would, as raw text, or with its '=' left out. */
const writing = fc.constantFrom('encoded', 'raw', 'bare');

const query = fc.array(fc.tuple(paramName, paramValue, writing), { maxLength: 4 }).map((pairs) =>
  pairs
    .map(([name, value, how]) => {
      if (how === 'bare') return name;
      // CR and LF would end the request line itself: that is HTTP framing, not a query string.
      if (how === 'raw') return `${name}=${value.replace(/[\r\n]/g, '')}`;
      return new URLSearchParams([[name, value]]).toString();
    })
    .join('&'),
);

const path = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...ENDPOINTS) },
  { weight: 1, arbitrary: fc.constantFrom('/', '/QUERY', '/query/', '//query', '/qu%65ry', '/query;x', '/../query', '/find_wotd.json', '*') },
  { weight: 1, arbitrary: nastyText({ maxPieces: 4 }).map((text) => `/${text.replace(/[\r\n]/g, '')}`) },
);

const variantOf = fc.constantFrom<Variant>('A', 'B');
const method = fc.oneof({ weight: 8, arbitrary: fc.constant('GET') }, { weight: 1, arbitrary: fc.constantFrom('HEAD', 'POST', 'DELETE', 'OPTIONS', 'PUT') });

/** Bytes an HTTP/1.1 request target cannot carry (space, controls, raw non-ASCII): malformed, whatever the service. */
const UNSENDABLE = /[^\x21-\x7e]/;
/** A target of only the characters URLs are made of (RFC 3986) is never malformed. */
const URL_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;

// ------------------------------------------------------------------------------------------ the documented contract

/** What the README says the answer to a well-formed request is: its status, and words its error must contain. */
function documented(variant: Variant, methodName: string, target: string): { status: number; names: RegExp } {
  const queryStart = target.indexOf('?');
  const pathPart = queryStart === -1 ? target : target.slice(0, queryStart);
  const params = new URLSearchParams(queryStart === -1 ? '' : target.slice(queryStart + 1));
  if (!ENDPOINTS.includes(pathPart)) return { status: 404, names: /no such endpoint/ };
  if (methodName !== 'GET' && methodName !== 'HEAD') return { status: 405, names: /method .* is not allowed/ };
  const once = (name: string): string | undefined | 'twice' => {
    const values = params.getAll(name);
    return values.length > 1 ? 'twice' : values[0];
  };
  const date = (): { status: number; names: RegExp } | IsoDate => {
    const text = once('date');
    if (text === 'twice') return { status: 400, names: /give date at most once/ };
    if (text === undefined) return TODAY;
    if (text === '') return { status: 400, names: /date must not be empty/ };
    const parsed = parseWireDate(text, variant);
    if (parsed === null) return { status: 400, names: /date .*(not a real calendar date|must be (YYYY-MM-DD|DD-MM-YYYY))/ };
    if (parsed > TODAY) return { status: 400, names: /date .* is in the future/ };
    return parsed;
  };
  switch (pathPart) {
    case '/query': {
      const day = date();
      if (typeof day !== 'string') return day;
      return ENTRIES.some((entry) => entry.date === day) ? { status: 200, names: /$^/ } : { status: 404, names: /no word of the day for/ };
    }
    case '/query_previous': {
      const day = date();
      if (typeof day !== 'string') return day;
      const limit = once('limit');
      if (limit === 'twice') return { status: 400, names: /give limit at most once/ };
      if (limit !== undefined && !/^[1-8]$|^0{1,2}[1-8]$/.test(limit)) return { status: 400, names: /limit must be a whole number from 1 to 8/ };
      return { status: 200, names: /$^/ };
    }
    case '/find_wotd': {
      const word = once('word');
      if (word === 'twice') return { status: 400, names: /give word at most once/ };
      if (word === undefined) return { status: 400, names: /word is required/ };
      if (word.trim() === '') return { status: 400, names: /word must not be empty/ };
      const found = ENTRIES.some((entry) => wordKey(entry.word) === wordKey(word) && entry.date <= TODAY);
      return found ? { status: 200, names: /$^/ } : { status: 404, names: /has never been the word of the day/ };
    }
    default:
      return variant === 'A' ? { status: 200, names: /$^/ } : { status: 404, names: /download .* variant A/ };
  }
}

let dir: Awaited<ReturnType<typeof tempDir>>;
const services = new Map<Variant, RunningService>();
const unhandled = trackUnhandled();

beforeAll(async () => {
  dir = await tempDir('generated-queries');
  const dbPath = join(dir.dir, 'words.sqlite');
  await writeWordDb(dbPath, ENTRIES);
  const now = () => new Date(`${TODAY}T12:00:00Z`);
  for (const variant of ['A', 'B'] as const) {
    services.set(variant, await startWotdService({ dbPath, variant, rateLimitPerMinute: 0, now }));
  }
});

afterAll(async () => {
  unhandled.stop();
  for (const service of services.values()) await service.close();
  await dir?.cleanup();
  expect(unhandled.problems).toEqual([]);
});

describe('generated query strings and paths', () => {
  it('get JSON with the documented status, and an error that names the problem in one line', async () => {
    await fc.assert(
      fc.asyncProperty(variantOf, method, path, fc.option(query, { nil: undefined }), async (variant, methodName, pathText, queryText) => {
        const service = services.get(variant) as RunningService;
        const target = queryText === undefined ? pathText : `${pathText}?${queryText}`;
        const reply = await withinBound(`${methodName} ${JSON.stringify(target)}`, rawRequest(service.port, methodName, target));
        const where = `variant ${variant}: ${methodName} ${JSON.stringify(target.slice(0, 300))} → ${reply.status} ${reply.body.toString('utf8').slice(0, 300)}`;
        // Node refuses a request line and headers past 16 KiB before the service sees it (documented as 431),
        // unless it meets a character it cannot take first.
        const headBytes = Buffer.byteLength(requestHead(methodName, target));
        if (headBytes > 16 * 1024 + 100) expect([400, 431], where).toContain(reply.status);
        if (headBytes > 16 * 1024 - 100 && reply.status === 431) {
          expect(JSON.parse(reply.body.toString('utf8')), where).toEqual({ error: 'the request headers are too large' });
          return;
        }
        expect([200, 400, 404, 405], where).toContain(reply.status);
        const isDownload = reply.status === 200 && target.startsWith('/download');
        expect(reply.headers.get('content-type'), where).toBe(isDownload ? 'application/vnd.sqlite3' : 'application/json; charset=utf-8');
        if (methodName === 'HEAD' || isDownload) return;
        const body: unknown = JSON.parse(reply.body.toString('utf8'));
        const malformed = reply.status === 400 && /^malformed HTTP request/.test((body as { error?: string }).error ?? '');
        // Spaces at the end read as the gap before "HTTP/1.1".
        const sent = target.replace(/ +$/, '');
        if (UNSENDABLE.test(sent)) expect(malformed, `${where}: should be refused as malformed`).toBe(true);
        if (malformed) {
          expect(URL_CHARACTERS.test(sent), `${where}: a target of URL characters only is not malformed`).toBe(false);
          return;
        }
        const expected = documented(variant, methodName, sent);
        expect(reply.status, where).toBe(expected.status);
        if (reply.status === 200) return;
        const error = (body as { error?: unknown }).error;
        expect(typeof error, where).toBe('string');
        expect(error as string, where).toMatch(expected.names);
        expect(error as string, where).not.toMatch(/\n/);
        expect(wellFormed(error as string), `${where}: the error is not well-formed text`).toBe(true);
        expect(error as string, `${where}: the error quotes half a character`).not.toMatch(/\\u[dD][89a-fA-F]/);
      }),
      settings(SEED, 2_000),
    );
  }, PROPERTY_TIMEOUT_MS);
});
