import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { FixedWindowLimiter } from '../../../src/service/rate-limit.ts';
import { addDays, parseWireDate, toWireDate, utcDateOf, type IsoDate, type Variant } from '../../../src/wotd/dates.ts';
import type { Entry } from '../../../src/wotd/entry.ts';
import { TWIN_DATABASE_RATE_LIMIT, TwinDatabaseFolder, type TwinDatabases } from './twin-databases.ts';

/**
 * Twins of the two real Word-of-the-Day deployments, answering as they do rather than as the contract says
 * (our own `serve` is better behaved; a test that passes only against it proves little):
 *
 * Both: errors are JSON {"error": …}; 10 requests per 60 s fixed window per client address AND per endpoint
 * (opened by the first request; 400/404 answers count), refused with 429, an HTML body and no Retry-After;
 * /query_previous is newest first, strictly before the date, skips gaps, limit=9+ → 500 JSON, a non-integer
 * limit → 3, limit=0 → no results, limit=-1 → the whole history; unknown paths → Flask's HTML 404.
 *
 * A (the Flask API at its head, YYYY-MM-DD): a malformed, impossible or empty date → 400
 * "Invalid date format. Use YYYY-MM-DD"; a future date → 400 "Date cannot be in the future";
 * /find_wotd → ONE object, the oldest match, case-insensitive, never a future entry; /metadata answers.
 *
 * B (the older DD-MM-YYYY version): never 400 for a date — /query answers 404 for anything it cannot find
 * (an A-format date, 30-02-2026, an empty date) and /query_previous an empty 200 page; future dates are
 * served everywhere; /find_wotd → an array in storage order (oldest first), exact case, future entries
 * included; /metadata → HTML 404.
 *
 * A's site also publishes monthly database snapshots: `/databases` and `/databases/download/wotd_YYYY-MM.db`, 30
 * requests a minute per client and page, with the site's own quirks (twin-databases.ts). B has no such pages (HTML 404).
 *
 * On demand, faults a real deployment also shows now and then: 500, slow answers, invalid JSON, wrong field
 * types, a reset connection, an extra HTML 429.
 */

export type Fault = 'server500' | 'slow' | 'invalidJson' | 'wrongTypes' | 'reset' | 'html429';

export interface DeploymentTwinOptions {
  variant: Variant;
  entries: Entry[];
  /** Requests per endpoint per client in each fixed 60 s window; the real 10 unless given, 0 turns it off. */
  rateLimitPerMinute?: number;
  now?: () => Date;
  /** How long a 'slow' fault holds the answer back (real ms). */
  slowMs?: number;
  /** A: requests per client to each /databases page in each fixed 60 s window; the real 30 unless given, 0 turns it off. */
  databaseRateLimitPerMinute?: number;
  /** A: the folder its snapshot files are kept in; default a temporary folder removed at close. */
  databaseDir?: string;
  /**
   * A: where /databases is published. 'site' (the default, as the real deployment: wotd.site beside api.wotd.site)
   * is a second origin, `siteUrl`, whose other paths are 404, while the API's origin answers 404 for /databases;
   * 'api' puts them on the API's own origin, as our `serve` does.
   */
  databasesOn?: 'site' | 'api';
}

export interface RecordedRequest {
  path: string;
  query: Record<string, string>;
  status: number | 'reset';
  /** When it arrived, on the twin's clock (epoch ms). */
  at: number;
}

export interface DeploymentTwin {
  url: string;
  /** The website's origin (A's /databases); the API's `url` where the databases are on it, and for B. */
  siteUrl: string;
  readonly variant: Variant;
  readonly requests: RecordedRequest[];
  /** The next `times` requests meet `fault` (default once). */
  fail(fault: Fault, times?: number): void;
  /** Every request meets `fault` until called with null. */
  failAlways(fault: Fault | null): void;
  /** A: the snapshot files behind /databases, to make months missing, rewrite one, put a hostile or stray file; B: undefined. */
  readonly databases: TwinDatabases | undefined;
  /** The most requests any one endpoint received in any 60 s span (the budget a client spent). */
  maxPerEndpointPerMinute(): number;
  close(): Promise<void>;
}

const WINDOW_MS = 60_000;
const HTML_429 =
  '<!doctype html>\n<html lang=en>\n<title>429 Too Many Requests</title>\n<h1>Too Many Requests</h1>\n<p>10 per 1 minute</p>\n';
const HTML_404 =
  '<!doctype html>\n<html lang=en>\n<title>404 Not Found</title>\n<h1>Not Found</h1>\n<p>The requested URL was not found on the server.</p>\n';
const ENDPOINTS = new Set(['/query', '/query_previous', '/find_wotd', '/metadata']);
const DATABASES_PATH = '/databases';
const DOWNLOAD_PREFIX = '/databases/download/';
const html429 = (limit: number): string =>
  `<!doctype html>\n<html lang=en>\n<title>429 Too Many Requests</title>\n<h1>Too Many Requests</h1>\n<p>${limit} per 1 minute</p>\n`;

interface Reply {
  status: number;
  body: string;
  type?: string;
}

const json = (status: number, value: unknown): Reply => ({ status, body: JSON.stringify(value) });
const htmlNotFound: Reply = { status: 404, body: HTML_404, type: 'text/html; charset=utf-8' };

/** Flask's `request.args.get('limit', 3, type=int)`: anything int() refuses becomes the default. */
function flaskInt(text: string | null, fallback: number): number {
  if (text === null) return fallback;
  const trimmed = text.trim();
  return /^[+-]?\d+$/.test(trimmed) ? Number(trimmed) : fallback;
}

/** What SQLite's `ORDER BY date DESC LIMIT n` gives: a negative limit means no limit. */
function takeNewest(before: Entry[], limit: number): { results: Entry[]; has_more: boolean } {
  if (limit < 0) return { results: [...before].reverse(), has_more: false };
  return { results: before.slice(Math.max(0, before.length - limit)).reverse(), has_more: before.length > limit };
}

interface WordList {
  /** Storage order: oldest first. */
  sorted: Entry[];
  byWireDate: Map<string, Entry>;
}

function answerAsDeployment(variant: Variant, words: WordList, path: string, params: URLSearchParams, today: IsoDate): Reply {
  const { sorted, byWireDate } = words;
  const wire = (entry: Entry) => ({ ...entry, date: toWireDate(entry.date, variant) });
  if (variant === 'A') {
    const dateParam = (): IsoDate | Reply => {
      const text = params.get('date');
      if (text === null) return today;
      const date = parseWireDate(text, 'A');
      if (date === null) return json(400, { error: 'Invalid date format. Use YYYY-MM-DD' });
      if (date > today) return json(400, { error: 'Date cannot be in the future' });
      return date;
    };
    switch (path) {
      case '/query': {
        const date = dateParam();
        if (typeof date !== 'string') return date;
        const entry = byWireDate.get(date);
        return entry ? json(200, wire(entry)) : json(404, { error: 'Word not found for the specified date' });
      }
      case '/query_previous': {
        const date = dateParam();
        if (typeof date !== 'string') return date;
        const limit = flaskInt(params.get('limit'), 3);
        if (limit > 8) return json(500, { error: 'Internal server error' });
        const page = takeNewest(sorted.filter((entry) => entry.date < date), limit);
        return json(200, { has_more: page.has_more, results: page.results.map(wire) });
      }
      case '/find_wotd': {
        const word = params.get('word');
        if (!word) return json(400, { error: 'Word parameter is required' });
        const first = sorted.find((entry) => entry.date <= today && entry.word.toLowerCase() === word.toLowerCase());
        return first ? json(200, wire(first)) : json(404, { error: 'Word not found' });
      }
      case '/metadata':
        return json(200, { site_name: 'Word of the Day', version: 'v1.3.0' });
      default:
        return htmlNotFound;
    }
  }
  // B compares the date text with what it stores, so a date it cannot read is simply a date it does not have.
  const dateText = (): string => params.get('date') ?? toWireDate(today, 'B');
  switch (path) {
    case '/query': {
      const entry = byWireDate.get(dateText());
      return entry ? json(200, wire(entry)) : json(404, { error: 'Word not found for the specified date' });
    }
    case '/query_previous': {
      const limit = flaskInt(params.get('limit'), 3);
      if (limit > 8) return json(500, { error: 'Internal server error' });
      const date = parseWireDate(dateText(), 'B');
      if (date === null) return json(200, { has_more: false, results: [] });
      const page = takeNewest(sorted.filter((entry) => entry.date < date), limit);
      return json(200, { has_more: page.has_more, results: page.results.map(wire) });
    }
    case '/find_wotd': {
      const word = params.get('word');
      if (!word) return json(400, { error: 'Word parameter is required' });
      const matches = sorted.filter((entry) => entry.word === word);
      return matches.length > 0 ? json(200, matches.map(wire)) : json(404, { error: 'Word not found' });
    }
    default:
      return htmlNotFound;
  }
}

export async function startDeploymentTwin(options: DeploymentTwinOptions): Promise<DeploymentTwin> {
  const { variant } = options;
  const now = options.now ?? (() => new Date());
  const sorted = [...options.entries].sort((a, b) => (a.date < b.date ? -1 : 1));
  const words: WordList = { sorted, byWireDate: new Map(sorted.map((entry) => [toWireDate(entry.date, variant), entry])) };
  const requests: RecordedRequest[] = [];
  const queued: Fault[] = [];
  let always: Fault | null = null;
  const limit = options.rateLimitPerMinute ?? 10;
  const limiter = limit > 0 ? new FixedWindowLimiter(limit, WINDOW_MS) : null;
  const sockets = new Set<Socket>();
  const databaseLimit = options.databaseRateLimitPerMinute ?? TWIN_DATABASE_RATE_LIMIT;
  const databaseLimiter = databaseLimit > 0 ? new FixedWindowLimiter(databaseLimit, WINDOW_MS) : null;
  const databases = variant === 'A' ? await TwinDatabaseFolder.create(sorted, now, options.databaseDir) : undefined;

  /** The site's database pages (A only): the listing, or one download for all file names (one rate-limit window). */
  function databasePage(path: string, onSite: boolean): '/databases' | '/databases/download' | undefined {
    if (!databases || onSite !== (options.databasesOn !== 'api')) return undefined;
    if (path === DATABASES_PATH) return DATABASES_PATH;
    return path.startsWith(DOWNLOAD_PREFIX) ? '/databases/download' : undefined;
  }

  async function answerDatabasePage(page: '/databases' | '/databases/download', request: IncomingMessage, response: ServerResponse, path: string): Promise<number> {
    const folder = databases as TwinDatabaseFolder;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const body = '<!doctype html>\n<html lang=en>\n<title>405 Method Not Allowed</title>\n<h1>Method Not Allowed</h1>\n';
      response.writeHead(405, { 'content-type': 'text/html; charset=utf-8', allow: 'GET, HEAD, OPTIONS', 'content-length': Buffer.byteLength(body) });
      response.end(body);
      return 405;
    }
    if (page === '/databases/download') return folder.download(request, response, path.slice(DOWNLOAD_PREFIX.length), HTML_404);
    const { status, body, headers } = await folder.listing();
    response.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
    response.end(request.method === 'HEAD' ? undefined : body);
    return status;
  }

  function handle(request: IncomingMessage, response: ServerResponse, onSite = false): void {
    const url = new URL(request.url ?? '/', 'http://twin.test');
    const instant = now();
    const record: RecordedRequest = { path: url.pathname, query: Object.fromEntries(url.searchParams), status: 200, at: instant.getTime() };
    requests.push(record);
    const fault = queued.shift() ?? always;
    const reply = ({ status, body, type = 'application/json' }: Reply): void => {
      record.status = status;
      response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      response.end(body);
    };
    const page = databasePage(url.pathname, onSite);
    if (onSite && !page) return reply({ status: 404, body: HTML_404, type: 'text/html; charset=utf-8' });
    const client = `${request.socket.remoteAddress ?? '?'} ${page ?? url.pathname}`;
    const limited = page
      ? databaseLimiter !== null && !databaseLimiter.take(client, instant.getTime()).allowed
      : ENDPOINTS.has(url.pathname) && limiter !== null && !limiter.take(client, instant.getTime()).allowed;
    if (limited && page) return reply({ status: 429, body: html429(databaseLimit), type: 'text/html; charset=utf-8' });
    if (fault === 'html429' || limited) return reply({ status: 429, body: HTML_429, type: 'text/html; charset=utf-8' });
    switch (fault) {
      case 'server500':
        return reply(json(500, { error: 'Internal server error' }));
      case 'invalidJson':
        return reply({ status: 200, body: '{"date": "2024-01-0' });
      case 'wrongTypes':
        return reply(json(200, { date: 20240101, word: 42, pos: null, ipa: [], definition: true }));
      case 'reset':
        record.status = 'reset';
        request.socket.destroy();
        return;
      default:
        break;
    }
    if (page) {
      answerDatabasePage(page, request, response, url.pathname).then(
        (status) => {
          record.status = status;
        },
        (error: unknown) => {
          record.status = 500;
          process.emitWarning(error instanceof Error ? error : new Error(String(error)));
          if (!response.headersSent) reply(json(500, { error: 'Internal server error' }));
          else response.destroy();
        },
      );
      return;
    }
    const answer = answerAsDeployment(variant, words, url.pathname, url.searchParams, utcDateOf(instant));
    if (fault === 'slow') {
      const timer = setTimeout(() => {
        if (!response.destroyed) reply(answer);
      }, options.slowMs ?? 2_000);
      response.on('close', () => clearTimeout(timer));
      return;
    }
    reply(answer);
  }

  const listen = async (onSite: boolean): Promise<{ server: Server; url: string }> => {
    const server = createServer((request, response) => handle(request, response, onSite));
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  };
  const api = await listen(false);
  const site = databases && options.databasesOn !== 'api' ? await listen(true) : null;
  const servers = [api.server, ...(site ? [site.server] : [])];
  return {
    url: api.url,
    siteUrl: site?.url ?? api.url,
    variant,
    requests,
    databases,
    fail(fault, times = 1) {
      for (let i = 0; i < times; i++) queued.push(fault);
    },
    failAlways(fault) {
      always = fault;
    },
    maxPerEndpointPerMinute() {
      let max = 0;
      for (const [index, request] of requests.entries()) {
        const inSpan = requests.slice(index).filter((other) => other.path === request.path && other.at < request.at + WINDOW_MS);
        max = Math.max(max, inSpan.length);
      }
      return max;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
      await databases?.close();
    },
  };
}

/** A small consecutive run of made-up entries from `first`, for tests that need no real word list. */
export function sampleEntries(first: IsoDate, days: number): Entry[] {
  const words = ['aplomb', 'bucolic', 'cogent', 'dulcet', 'ebullient', 'fecund', 'garrulous', 'halcyon', 'insouciant', 'jocund'];
  const start = new Date(`${first}T00:00:00Z`).getTime();
  return Array.from({ length: days }, (_, i) => {
    const date = utcDateOf(new Date(start + i * 86_400_000));
    return {
      date,
      word: words[i % words.length] ?? 'word',
      pos: i % 2 === 0 ? 'adjective' : 'noun',
      ipa: `/ipa${i}/`,
      definition: i % 3 === 0 ? `(historical) meaning "${i}"` : `meaning ${i}`,
    };
  });
}

/**
 * The sample word list around `today` with the cases the real deployments get wrong in their own ways: `recurring`
 * on 40 and 3 days ago, `capitalised` 5 days ago, and no entry 10 days ago.
 */
export function withDeploymentCases(entries: Entry[], today: IsoDate): { entries: Entry[]; recurring: string; capitalised: string } {
  const recurring = 'melancholy';
  const capitalised = 'Sisyphean';
  const patch = new Map<IsoDate, Partial<Entry>>([
    [addDays(today, -40), { word: recurring, pos: 'noun', ipa: '/ˈmɛlənkɒli/', definition: 'A deep, long-lasting sadness.' }],
    [addDays(today, -3), { word: recurring, pos: 'adjective', ipa: '/ˈmɛlənkɒli/', definition: '(literary) Sad and "pensive".' }],
    [addDays(today, -5), { word: capitalised, pos: 'adjective', ipa: '/ˌsɪsɪˈfiːən/', definition: 'Endless and futile.' }],
  ]);
  const gap = addDays(today, -10);
  const words = entries
    .filter((entry) => entry.date !== gap && entry.word.toLowerCase() !== recurring && entry.word.toLowerCase() !== capitalised.toLowerCase())
    .map((entry) => ({ ...entry, ...patch.get(entry.date) }));
  return { entries: words, recurring, capitalised };
}
