import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderTimestamps } from '../../src/console/render.ts';
import { INTERACTIVE, INTERACTIVE_MAX_WAIT_MS } from '../../src/replies/deliver.ts';
import { failureMessage } from '../../src/replies/messages.ts';
import { createWotdAdapter, type WotdAdapter } from '../../src/wotd/adapter.ts';
import { parseWireDate, toWireDate, type IsoDate, type Variant } from '../../src/wotd/dates.ts';
import { entrySchema, type Entry } from '../../src/wotd/entry.ts';
import { isWotdError } from '../../src/wotd/errors.ts';
import { getJson, MAX_RETRY_AFTER_MS } from '../../src/wotd/http-client.ts';
import { expectSpecific, settings, trackUnhandled, WORLD_RATE_LIMIT } from '../generated/generated.ts';
import { sampleEntries } from '../support/upstream/deployment-twin.ts';
import { ManualClock } from '../support/upstream/manual-clock.ts';
import { startScriptedUpstream, type ScriptedReply, type ScriptedUpstream } from '../support/upstream/scripted-upstream.ts';
import { recordGenerated } from './tally.ts';

/**
 * The upstream edge, generated (issue 20): a loopback service answers each of the three endpoints, in the date
 * format of variant A or B, with generated status × headers (Retry-After, Content-Type, Content-Length true or
 * lying, Content-Encoding including a gzip bomb, Location to this origin or another) × bodies (valid, truncated,
 * wrong types, wrong dates, huge, HTML, empty, invalid UTF-8, random bytes), one to three of them in a row, the
 * last repeated. The real adapter (production settings, a manual clock so pauses cost no real time) looks up
 * through the real HTTP client, over a fresh Keyv store per run. After every run:
 * - no unhandled rejection or exception, no TimeoutOverflowWarning;
 * - the person's lookup settled within 3 s of real time, and within their wait bound (10 s) plus the retries'
 *   back-off on the adapter's clock (the daily fetch: two 5-minute pauses); a value is the truth, a failure a
 *   WotdError whose reply is specific and, for "busy", names a time at most 5 minutes away;
 * - every record in the store is the truth: entries, searches and word indexes only what the service really
 *   holds, negative records only when the run served a 404 or an empty page, the variant only the one spoken;
 * - healthy afterwards: once the service answers well again (and the clock passed any pause), the same lookup
 *   is answered correctly and fresh.
 *
 * Fixed seeds; FC_SEED=<n> replays (see the `generated:` lines the fault reporter prints).
 */

const FILE = 'test/faults/upstream-responses.test.ts';
const TODAY: IsoDate = '2024-06-15';
const NOW = `${TODAY}T12:00:00Z`;
const TRUTH = sampleEntries('2024-05-01', 46);
const BY_DATE = new Map(TRUTH.map((entry) => [entry.date, entry]));
const WORDS = [...new Set(TRUTH.map((entry) => entry.word))];
/** Back-off of the adapter's two retries (250 ms base, doubled), at most. */
const BACKOFF_MS = 1_000;
const REAL_DEADLINE_MS = 3_000;
const HTML = '<!doctype html>\n<html lang=en>\n<title>502 Bad Gateway</title>\n<h1>Bad Gateway</h1>\n';

/** 400 MB of spaces in 1 KB: gzip members of 1 MB each, 400 of them, gzipped again (`gzip, gzip`). */
const BOMB = (() => {
  const member = gzipSync(Buffer.alloc(1024 * 1024, 0x20), { level: 9 });
  return gzipSync(Buffer.concat(Array.from({ length: 400 }, () => member)), { level: 9 });
})();

let service: ScriptedUpstream;
let elsewhere: ScriptedUpstream;
const unhandled = trackUnhandled();
const overflows: string[] = [];
const onWarning = (warning: Error): void => {
  if (warning.name === 'TimeoutOverflowWarning') overflows.push(warning.message);
};

beforeAll(async () => {
  service = await startScriptedUpstream(() => ({ status: 500 }));
  elsewhere = await startScriptedUpstream(() => ({ status: 200, body: JSON.stringify({ date: TODAY, word: 'elsewhere', pos: 'x', ipa: 'x', definition: 'x' }) }));
  process.on('warning', onWarning);
});

afterAll(async () => {
  process.off('warning', onWarning);
  unhandled.stop();
  await service?.close();
  await elsewhere?.close();
});

// ------------------------------------------------------------------------------------------ the truthful service

interface Truthful {
  status: number;
  body: unknown;
}

const wire = (entry: Entry, variant: Variant) => ({ ...entry, date: toWireDate(entry.date, variant) });

/** What a well-behaved deployment of `variant` answers (the twins' rules, minus the rate limit). */
function truthful(variant: Variant, path: string, query: Record<string, string>): Truthful {
  const dated = (fallback: IsoDate): IsoDate | null => (query.date === undefined ? fallback : parseWireDate(query.date, variant));
  switch (path) {
    case '/query': {
      const date = dated(TODAY);
      if (date === null) return variant === 'A' ? { status: 400, body: { error: 'Invalid date format. Use YYYY-MM-DD' } } : { status: 404, body: { error: 'Word not found for the specified date' } };
      const entry = BY_DATE.get(date);
      return entry ? { status: 200, body: wire(entry, variant) } : { status: 404, body: { error: 'Word not found for the specified date' } };
    }
    case '/query_previous': {
      const before = dated(TODAY);
      if (before === null) return variant === 'A' ? { status: 400, body: { error: 'Invalid date format. Use YYYY-MM-DD' } } : { status: 200, body: { has_more: false, results: [] } };
      const limit = Number(query.limit ?? '3');
      const older = TRUTH.filter((entry) => entry.date < before).reverse();
      return { status: 200, body: { has_more: older.length > limit, results: older.slice(0, limit).map((entry) => wire(entry, variant)) } };
    }
    case '/find_wotd': {
      const word = query.word ?? '';
      const matches = TRUTH.filter((entry) => (variant === 'A' ? entry.word.toLowerCase() === word.toLowerCase() : entry.word === word));
      const [oldest] = matches;
      if (!oldest) return { status: 404, body: { error: 'Word not found' } };
      return { status: 200, body: variant === 'A' ? wire(oldest, variant) : matches.map((entry) => wire(entry, variant)) };
    }
    case '/metadata':
      return variant === 'A' ? { status: 200, body: { site_name: 'Word of the Day', version: 'v1.3.0' } } : { status: 404, body: HTML };
    default:
      return { status: 404, body: HTML };
  }
}

function truthfulReply(variant: Variant): (request: { path: string; query: Record<string, string> }) => ScriptedReply {
  return ({ path, query }) => {
    const { status, body } = truthful(variant, path, query);
    return { status, headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) };
  };
}

// ------------------------------------------------------------------------------------------ generated answers

type BodyKind = 'valid' | 'errorJson' | 'truncated' | 'wrongTypes' | 'wrongDate' | 'html' | 'empty' | 'invalidUtf8' | 'huge' | 'junk';
type Encoding = 'none' | 'gzip' | 'deflate' | 'br' | 'bomb' | 'unknown' | 'notGzip';
type Length = 'auto' | 'exact' | 'short' | 'long' | 'huge' | 'garbage';
type Location = null | 'same' | 'other' | 'garbage';

interface Spec {
  status: 'truthful' | number;
  body: BodyKind;
  /** Where a truncated body ends, as a fraction of it; which field a wrong type replaces; how far dates move. */
  fraction: number;
  field: number;
  shift: number;
  hugeBytes: number;
  junk: Uint8Array;
  contentType: string | null;
  length: Length;
  encoding: Encoding;
  retryAfter: string | null;
  location: Location;
  /** The connection is cut after this many body bytes. */
  cutAfter: number | null;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const two = (n: number): string => String(n).padStart(2, '0');
const clockOf = (d: Date): string => `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;

/** An HTTP-date in one of its three forms (RFC 9110: IMF-fixdate, RFC 850, asctime). */
function httpDate(at: Date, form: 0 | 1 | 2): string {
  const year = String(at.getUTCFullYear()).padStart(4, '0');
  const day = DAYS[at.getUTCDay()] ?? 'Mon';
  const month = MONTHS[at.getUTCMonth()] ?? 'Jan';
  if (form === 0) return `${day}, ${two(at.getUTCDate())} ${month} ${year} ${clockOf(at)} GMT`;
  if (form === 1) return `${LONG_DAYS[at.getUTCDay()] ?? 'Monday'}, ${two(at.getUTCDate())}-${month}-${year.slice(-2)} ${clockOf(at)} GMT`;
  return `${day} ${month} ${String(at.getUTCDate()).padStart(2, ' ')} ${clockOf(at)} ${year}`;
}

/** The header's whole domain: delay-seconds up to 1e15, fractions, negatives, garbage, and HTTP-dates from year 1 to 9999. */
const retryAfterArb: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 900 }).map(String) },
  { weight: 2, arbitrary: fc.bigInt({ min: 0n, max: 10n ** 15n }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('0', '86400', '99999999999', '1000000000000000', '9'.repeat(40), ' 30 ', '00030') },
  { weight: 1, arbitrary: fc.double({ min: 0, max: 1e7, noNaN: true }).map(String) },
  { weight: 1, arbitrary: fc.integer({ min: -1e12, max: -1 }).map(String) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 24 }) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.oneof(fc.integer({ min: -3_600_000, max: 3_600_000 }).map((offset) => Date.parse(NOW) + offset), fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_000 })),
        fc.constantFrom<0 | 1 | 2>(0, 1, 2),
      )
      .map(([ms, form]) => httpDate(new Date(Math.floor(ms / 1000) * 1000), form)),
  },
);

const specArb: fc.Arbitrary<Spec> = fc.record({
  status: fc.oneof(
    { weight: 4, arbitrary: fc.constant<'truthful'>('truthful') },
    { weight: 4, arbitrary: fc.constantFrom(200, 201, 204, 206, 301, 302, 303, 307, 308, 304, 400, 401, 403, 404, 410, 418, 429, 500, 502, 503, 504) },
    { weight: 1, arbitrary: fc.integer({ min: 200, max: 599 }) },
  ),
  body: fc.constantFrom<BodyKind>('valid', 'valid', 'errorJson', 'truncated', 'wrongTypes', 'wrongDate', 'html', 'empty', 'invalidUtf8', 'huge', 'junk'),
  fraction: fc.double({ min: 0, max: 0.999, noNaN: true }),
  field: fc.nat(20),
  shift: fc.integer({ min: -40, max: 40 }).filter((shift) => shift !== 0),
  hugeBytes: fc.integer({ min: 260 * 1024, max: 3 * 1024 * 1024 }),
  junk: fc.uint8Array({ maxLength: 48 }),
  contentType: fc.constantFrom(null, 'application/json', 'application/json; charset=utf-8', 'text/html; charset=utf-8', 'text/plain', 'application/octet-stream', 'application/json; charset=iso-8859-1', '*/*;;'),
  length: fc.constantFrom<Length>('auto', 'auto', 'auto', 'exact', 'short', 'long', 'huge', 'garbage'),
  encoding: fc.constantFrom<Encoding>('none', 'none', 'none', 'none', 'gzip', 'deflate', 'br', 'bomb', 'unknown', 'notGzip'),
  retryAfter: retryAfterArb,
  location: fc.constantFrom<Location>(null, null, null, 'same', 'other', 'garbage'),
  cutAfter: fc.option(fc.nat(64), { freq: 8 }),
});

const WRONG_VALUES: unknown[] = [42, null, [], {}, true, '', 'x'.repeat(3)];
const FIELDS = ['date', 'word', 'pos', 'ipa', 'definition'];

/** The truthful body with one value of the wrong type: a field of the (first) entry, has_more or results. */
function wrongTypes(body: unknown, field: number): unknown {
  const copy = structuredClone(body) as Record<string, unknown> | unknown[];
  const wrong = WRONG_VALUES[field % WRONG_VALUES.length];
  const target = Array.isArray(copy) ? copy[0] : Array.isArray(copy.results) ? (field % 3 === 0 ? null : copy.results[0]) : copy;
  if (!Array.isArray(copy) && Array.isArray(copy.results) && target === null) {
    copy[field % 2 === 0 ? 'has_more' : 'results'] = field % 2 === 0 ? 'yes' : wrong;
    return copy;
  }
  if (typeof target !== 'object' || target === null) return wrong;
  const record = target as Record<string, unknown>;
  const name = FIELDS[field % FIELDS.length] ?? 'date';
  // A wrong type that still passes as the right one is no wrong type: a string field gets a non-string.
  record[name] = typeof wrong === 'string' ? 7 : wrong;
  return copy;
}

/** The truthful body with every date moved by `shift` days (still in the variant's format). */
function wrongDates(body: unknown, shift: number, variant: Variant): unknown {
  const move = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(move);
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      const date = key === 'date' && typeof inner === 'string' ? parseWireDate(inner, variant) : null;
      out[key] = date ? toWireDate(new Date(Date.parse(`${date}T00:00:00Z`) + shift * 86_400_000).toISOString().slice(0, 10), variant) : move(inner);
    }
    return out;
  };
  return move(body);
}

function bodyBytes(spec: Spec, truth: Truthful, variant: Variant): Buffer {
  const text = typeof truth.body === 'string' ? truth.body : JSON.stringify(truth.body);
  switch (spec.body) {
    case 'valid':
      return Buffer.from(text);
    case 'errorJson':
      return Buffer.from(JSON.stringify({ error: 'Something upstream' }));
    case 'truncated':
      return Buffer.from(text).subarray(0, Math.floor(Buffer.byteLength(text) * spec.fraction));
    case 'wrongTypes':
      return Buffer.from(JSON.stringify(wrongTypes(truth.body, spec.field)));
    case 'wrongDate':
      return Buffer.from(JSON.stringify(wrongDates(truth.body, spec.shift, variant)));
    case 'html':
      return Buffer.from(HTML);
    case 'empty':
      return Buffer.alloc(0);
    case 'invalidUtf8': {
      // Bytes that are no UTF-8 inside the first string value: a lone continuation byte and an overlong form.
      const at = text.indexOf(':"') + 2;
      if (at < 2) return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text)]);
      return Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from([0x80, 0xc0, 0xaf, 0xff]), Buffer.from(text.slice(at))]);
    }
    case 'huge': {
      const padding = 'a'.repeat(spec.hugeBytes);
      return Buffer.from(text.replace(/"definition":"/, `"definition":"${padding}`).replace(/^\{"error":"/, `{"error":"${padding}`));
    }
    case 'junk':
      return Buffer.from(spec.junk);
  }
}

function encoded(spec: Spec, raw: Buffer): { body: Buffer; encoding: string | null } {
  switch (spec.encoding) {
    case 'none':
      return { body: raw, encoding: null };
    case 'gzip':
      return { body: gzipSync(raw), encoding: 'gzip' };
    case 'deflate':
      return { body: deflateSync(raw), encoding: 'deflate' };
    case 'br':
      return { body: brotliCompressSync(raw), encoding: 'br' };
    case 'bomb':
      return { body: BOMB, encoding: 'gzip, gzip' };
    case 'unknown':
      return { body: raw, encoding: 'x-squash' };
    case 'notGzip':
      return { body: raw, encoding: 'gzip' };
  }
}

/** What the service sends for `spec`, given what a truthful deployment would have answered. */
function generatedReply(spec: Spec, truth: Truthful, variant: Variant, request: { path: string; query: Record<string, string> }): ScriptedReply {
  const { body, encoding } = encoded(spec, bodyBytes(spec, truth, variant));
  const headers: Record<string, string> = {};
  if (spec.contentType !== null) headers['content-type'] = spec.contentType;
  if (encoding !== null) headers['content-encoding'] = encoding;
  if (spec.retryAfter !== null) headers['retry-after'] = spec.retryAfter;
  const search = new URLSearchParams(request.query).toString();
  if (spec.location === 'same') headers.location = `/moved${request.path}?${search}`;
  if (spec.location === 'other') headers.location = `${elsewhere.url}${request.path}?${search}`;
  if (spec.location === 'garbage') headers.location = 'http://[::1';
  const lengths: Record<Length, string | null> = {
    auto: null,
    exact: String(body.length),
    short: String(Math.max(0, body.length - 1 - (spec.field % 7))),
    long: String(body.length + 1 + spec.field),
    huge: '999999999',
    garbage: ['abc', '-1', '1, 2', '0x10', ' '][spec.field % 5] ?? 'abc',
  };
  const length = lengths[spec.length];
  if (length !== null) headers['content-length'] = length;
  return {
    status: spec.status === 'truthful' ? truth.status : spec.status,
    headers,
    body,
    ...(spec.cutAfter !== null ? { cutAfter: spec.cutAfter } : {}),
  };
}

// ------------------------------------------------------------------------------------------ one run

type Endpoint = '/query' | '/query_previous' | '/find_wotd';

interface Ask {
  describe: string;
  run(adapter: WotdAdapter, priority: 'interactive' | 'scheduled'): Promise<unknown>;
  /** Throws when `value` is not the truth. */
  check(value: unknown, variant: Variant): void;
}

function askFor(endpoint: Endpoint, pick: number, limit: number, wordCase: number): Ask {
  const options = (priority: 'interactive' | 'scheduled') => (priority === 'interactive' ? INTERACTIVE : { priority });
  if (endpoint === '/query') {
    return {
      describe: `getEntry(${TODAY})`,
      run: (adapter, priority) => adapter.getEntry(TODAY, options(priority)),
      check: (value) => expect(value).toEqual(BY_DATE.get(TODAY)),
    };
  }
  if (endpoint === '/query_previous') {
    const before = TRUTH[1 + (pick % (TRUTH.length - 1))]?.date ?? TODAY;
    if (pick % 3 === 0) {
      // A past day: one history page ending on it.
      const day = TRUTH[pick % (TRUTH.length - 1)]?.date ?? TODAY;
      return {
        describe: `getEntry(${day})`,
        run: (adapter, priority) => adapter.getEntry(day, options(priority)),
        check: (value) => expect(value).toEqual(BY_DATE.get(day)),
      };
    }
    return {
      describe: `getPrevious(${before}, ${limit})`,
      run: (adapter, priority) => adapter.getPrevious(before, limit, options(priority)),
      check: (value) => {
        const older = TRUTH.filter((entry) => entry.date < before).reverse();
        expect(value).toEqual({ entries: older.slice(0, limit), hasMore: older.length > limit });
      },
    };
  }
  const word = WORDS[pick % WORDS.length] ?? 'aplomb';
  const typed = wordCase === 0 ? word : wordCase === 1 ? word.toUpperCase() : `${word.charAt(0).toUpperCase()}${word.slice(1)}`;
  return {
    describe: `findWord(${typed})`,
    run: (adapter, priority) => adapter.findWord(typed, options(priority)),
    check: (value, variant) => {
      const matches = TRUTH.filter((entry) => entry.word === word).reverse();
      const found = value as { entries: Entry[]; complete: boolean };
      if (variant === 'B') expect(found).toEqual({ entries: matches, complete: true });
      else {
        expect(found.complete).toBe(false);
        for (const entry of found.entries) expect(matches).toContainEqual(entry);
        expect(found.entries).toContainEqual(matches.at(-1));
      }
    },
  };
}

/** Settles `promise` while moving the manual clock whenever no request is in flight; no real waiting. */
async function settle<T>(clock: ManualClock, adapter: WotdAdapter, promise: Promise<T>): Promise<{ value: T } | { error: unknown }> {
  let outcome: { value: T } | { error: unknown } | null = null;
  promise.then(
    (value) => (outcome = { value }),
    (error: unknown) => (outcome = { error }),
  );
  let idle = 0;
  while (outcome === null) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (outcome !== null || adapter.stats().inFlight > 0) continue;
    if (clock.runNext()) idle = 0;
    else if (++idle > 20_000) throw new Error('the lookup never settled and nothing was left to run');
  }
  return outcome;
}

interface Served {
  status: number;
  path: string;
  /** A 404, or a truthful 200 page with no results: the kinds of answer a negative record may come from. */
  negative: boolean;
  /**
   * A 2xx whose entries carry other dates than the truth's, well-formed: where the request named no date (the
   * variant probe) or the dates stay plausible (a history page), no client can tell this lie from the truth.
   */
  lie: boolean;
}

/** Every record in the store is the truth (see the file's comment); `served` says whether negatives may exist. */
function expectStoreTruthful(map: Map<string, unknown>, served: Served[], variant: Variant, serviceUrl: string): void {
  const negativesServed = served.some((answer) => answer.negative);
  const lied = served.some((answer) => answer.lie);
  for (const [rawKey, rawValue] of map) {
    const key = rawKey.replace(/^keyv:/, '');
    const record = (JSON.parse(String(rawValue)) as { value: unknown }).value;
    const stored = record as { v?: unknown };
    const where = `store record ${key} = ${String(rawValue).slice(0, 200)}`;
    if (key === 'swept') continue;
    if (key.startsWith('e:')) {
      expect(entrySchema.safeParse(stored.v).success, where).toBe(true);
      if (!lied) expect(stored.v, where).toEqual(BY_DATE.get(key.slice(2)));
      else expect((stored.v as Entry).date, where).toBe(key.slice(2));
    } else if (key.startsWith('f:')) {
      const found = stored.v as { entries: Entry[] };
      for (const entry of found.entries) expect(entrySchema.safeParse(entry).success && (lied || BY_DATE.get(entry.date)?.word === entry.word), where).toBe(true);
      expect(found.entries.length, where).toBeGreaterThan(0);
    } else if (key.startsWith('w:')) {
      if (!lied) for (const date of stored.v as IsoDate[]) expect(BY_DATE.get(date)?.word.toLowerCase(), where).toBe(key.slice(2));
    } else if (key === 'words') {
      for (const word of record as string[]) expect(WORDS, where).toContain(word);
    } else if (key === 'earliest') {
      if (!lied) expect(BY_DATE.has(stored.v as IsoDate), where).toBe(true);
    } else if (key.startsWith('b:')) {
      const before = key.slice(2);
      const exists = TRUTH.some((entry) => entry.date < before);
      if (stored.v === true) expect(exists || lied, where).toBe(true);
      // "Nothing before" is the truth before the first entry; elsewhere only a 404 or an empty page could say it.
      else if (exists) expect(negativesServed, `${where}, with no 404 or empty page served`).toBe(true);
    } else if (key.startsWith('m:') || key.startsWith('fm:')) {
      expect(negativesServed, `${where}, with no 404 or empty page served`).toBe(true);
    } else if (key === `variant:${serviceUrl}`) {
      expect(stored.v, where).toBe(variant);
    } else {
      throw new Error(`unexpected ${where}`);
    }
  }
}

/** A failure a person may be shown: a WotdError with its specific reply, "busy" naming a time at most 5 minutes on. */
function expectSpecificFailure(error: unknown, now: number): void {
  if (!isWotdError(error)) throw error;
  const reply = failureMessage(error).content ?? '';
  expectSpecific(reply, `${error.code}: ${error.message}`);
  if (error.code === 'rate_limited') {
    const retryAt = error.retryAt?.getTime() ?? Number.NaN;
    expect(retryAt, error.message).toBeLessThanOrEqual(now + MAX_RETRY_AFTER_MS);
    expect(renderTimestamps(reply, new Date(now)), error.message).toMatch(/try again (now|in \d+ seconds?|in [1-5] minutes?)\.$/);
  }
}

/** An empty history page after the service itself answered 404 or an empty page: its answer, and remembered a while. */
function emptyFromNegative(value: unknown, served: Served[]): boolean {
  const page = value as { entries?: unknown[] };
  return served.some((answer) => answer.negative) && Array.isArray(page.entries) && page.entries.length === 0;
}

interface Run {
  variant: Variant;
  configured: Variant | 'auto';
  specs: Spec[];
  priority: 'interactive' | 'scheduled';
  pick: number;
  limit: number;
  wordCase: number;
}

async function oneRun(endpoint: Endpoint, input: Run): Promise<void> {
  const { variant, specs } = input;
  const clock = new ManualClock(NOW);
  const map = new Map<string, unknown>();
  const served: Served[] = [];
  let count = 0;
  service.reset((request) => {
    const spec = specs[Math.min(count++, specs.length - 1)] as Spec;
    const truth = truthful(variant, request.path, request.query);
    const reply = generatedReply(spec, truth, variant, request);
    const page = truth.body as { results?: unknown[] };
    const emptyPage = reply.status >= 200 && reply.status < 300 && spec.body === 'valid' && Array.isArray(page.results) && page.results.length === 0;
    const ok = reply.status >= 200 && reply.status < 300;
    served.push({ status: reply.status, path: request.path, negative: reply.status === 404 || emptyPage, lie: ok && spec.body === 'wrongDate' });
    return reply;
  });
  const adapter = await createWotdAdapter({
    baseUrl: service.url,
    store: new Keyv({ store: map }),
    variant: input.configured,
    rateLimit: WORLD_RATE_LIMIT,
    // Three attempts (two retries) inside a person's 3 s: the deadline is what ends a body that never finishes.
    timeoutMs: 800,
    now: clock.now,
    timers: clock,
    random: () => 0.5,
  });
  const ask = askFor(endpoint, input.pick, input.limit, input.wordCase);
  try {
    const started = clock.ms;
    const real = performance.now();
    const outcome = await settle(clock, adapter, ask.run(adapter, input.priority));
    const context = `${ask.describe} at ${input.priority} priority`;
    expect(performance.now() - real, `${context}: real milliseconds`).toBeLessThanOrEqual(REAL_DEADLINE_MS);
    const bound = input.priority === 'interactive' ? INTERACTIVE_MAX_WAIT_MS + BACKOFF_MS : 2 * MAX_RETRY_AFTER_MS + BACKOFF_MS;
    expect(clock.ms - started, `${context}: milliseconds on the adapter's clock`).toBeLessThanOrEqual(bound);
    const lied = served.some((answer) => answer.lie);
    if ('value' in outcome) {
      const value = (outcome.value as { value: unknown }).value;
      if (!lied && !emptyFromNegative(value, served)) ask.check(value, variant);
    } else expectSpecificFailure(outcome.error, clock.ms);
    await adapter.settled();
    expectStoreTruthful(map, served, variant, service.url);

    // The service is well again; past any pause, the same lookup is answered with the truth.
    service.answer = truthfulReply(variant);
    clock.advance(MAX_RETRY_AFTER_MS + 11 * 60_000);
    const after = await settle(clock, adapter, ask.run(adapter, 'interactive'));
    if ('error' in after) {
      // A negative the service itself gave (a 404, an empty page) may be remembered a while: that is its answer.
      if (!(isWotdError(after.error, 'not_found') && served.some((answer) => answer.negative))) {
        throw new Error(`not healthy after the run: ${ask.describe} failed with ${String(after.error)}`);
      }
    } else {
      const lookup = after.value as { value: unknown; stale: boolean };
      expect(lookup.stale, `${ask.describe} after the service recovered`).toBe(false);
      // A lie already believed stays until it expires (past entries are kept for good): it cannot be checked.
      if (!lied && !emptyFromNegative(lookup.value, served)) ask.check(lookup.value, variant);
    }
    expectStoreTruthful(map, served, variant, service.url);
    expect(unhandled.problems, 'unhandled rejections or exceptions').toEqual([]);
    expect(overflows, 'TimeoutOverflowWarning').toEqual([]);
  } finally {
    await adapter.close();
  }
}

const runArb = (variant: Variant): fc.Arbitrary<Run> =>
  fc.record({
    variant: fc.constant(variant),
    configured: fc.constantFrom<Variant | 'auto'>(variant, variant, variant, 'auto'),
    specs: fc.array(specArb, { minLength: 1, maxLength: 3 }),
    priority: fc.constantFrom<'interactive' | 'scheduled'>('interactive', 'interactive', 'interactive', 'scheduled'),
    pick: fc.nat(1_000),
    limit: fc.integer({ min: 1, max: 8 }),
    wordCase: fc.nat(2),
  });

// ------------------------------------------------------------------------------------------ the properties

const RUNS_PER_ENDPOINT = 150;
const SEEDS: Record<Endpoint, Record<Variant, number>> = {
  '/query': { A: 20_201, B: 20_202 },
  '/query_previous': { A: 20_203, B: 20_204 },
  '/find_wotd': { A: 20_205, B: 20_206 },
};
const replay = (seed: number, name: string): string => `FC_SEED=${seed} npx vitest run ${FILE} -t '${name}'`;

describe('generated upstream answers, through the real HTTP client and adapter', () => {
  it('Retry-After: every value of the header, on 429 and 503, reaches the adapter as 0 to 5 minutes', async ({ task }) => {
    const options = settings<[string | null, 429 | 503]>(20_200, 6_800);
    await fc.assert(
      fc.asyncProperty(retryAfterArb, fc.constantFrom<429 | 503>(429, 503), async (header, status) => {
        const headers: Record<string, string> = {};
        if (header !== null) headers['retry-after'] = header;
        service.reset(() => ({ status, headers, body: '<html>busy</html>' }));
        const now = Date.parse(NOW);
        const attempt = await getJson(`${service.url}/query`, { timeoutMs: 2_000, now });
        const retryAfterMs = attempt.kind === 'rate_limited' || attempt.kind === 'retryable' ? attempt.retryAfterMs : undefined;
        expect(attempt.kind).toBe(status === 429 ? 'rate_limited' : 'retryable');
        if (retryAfterMs === null || retryAfterMs === undefined) {
          expect(header === null || !/^\s*\d+\s*$/.test(header), `an unread delay-seconds ${header}`).toBe(true);
          return;
        }
        expect(retryAfterMs).toBeGreaterThanOrEqual(0);
        expect(retryAfterMs).toBeLessThanOrEqual(MAX_RETRY_AFTER_MS);
        // Where the header is plain seconds, the delay is exactly them, up to the bound.
        if (header !== null && /^\s*\d+\s*$/.test(header)) expect(retryAfterMs).toBe(Math.min(MAX_RETRY_AFTER_MS, Number(header.trim()) * 1000));
      }),
      options,
    );
    recordGenerated(task, { runs: options.numRuns ?? 0, seed: options.seed ?? 0, replay: replay(options.seed ?? 0, 'Retry-After: every value') });
  }, 120_000);

  it('Retry-After through the adapter: the daily fetch and a person’s lookup wait at most 5 minutes, and are answered once the service recovers', async ({ task }) => {
    const options = settings<[string | null, 429 | 503, number, 'interactive' | 'scheduled', Variant]>(20_207, 500);
    await fc.assert(
      fc.asyncProperty(
        retryAfterArb,
        fc.constantFrom<429 | 503>(429, 503),
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom<'interactive' | 'scheduled'>('interactive', 'scheduled'),
        fc.constantFrom<Variant>('A', 'B'),
        async (header, status, refusals, priority, variant) => {
          const refusal: Spec = {
            status,
            body: 'html',
            fraction: 0,
            field: 0,
            shift: 1,
            hugeBytes: 0,
            junk: new Uint8Array(),
            contentType: 'text/html',
            length: 'auto',
            encoding: 'none',
            retryAfter: header,
            location: null,
            cutAfter: null,
          };
          const truthfulSpec: Spec = { ...refusal, status: 'truthful', body: 'valid', contentType: 'application/json', retryAfter: null };
          await oneRun('/query', { variant, configured: variant, specs: [...Array.from({ length: refusals }, () => refusal), truthfulSpec], priority, pick: 0, limit: 1, wordCase: 0 });
        },
      ),
      options,
    );
    recordGenerated(task, { runs: options.numRuns ?? 0, seed: options.seed ?? 0, replay: replay(options.seed ?? 0, 'Retry-After through the adapter') });
  }, 120_000);

  for (const endpoint of ['/query', '/query_previous', '/find_wotd'] as const) {
    for (const variant of ['A', 'B'] as const) {
      const name = `${endpoint} of variant ${variant}`;
      it(`${name}: generated status × headers × bodies never crash, never cache a falsehood, and leave the adapter healthy`, async ({ task }) => {
        const options = settings<[Run]>(SEEDS[endpoint][variant], RUNS_PER_ENDPOINT);
        await fc.assert(
          fc.asyncProperty(runArb(variant), (input) => oneRun(endpoint, input)),
          options,
        );
        recordGenerated(task, { runs: options.numRuns ?? 0, seed: options.seed ?? 0, replay: replay(options.seed ?? 0, name) });
      }, 180_000);
    }
  }
});
