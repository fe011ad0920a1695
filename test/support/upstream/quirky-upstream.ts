import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseWireDate, toWireDate, utcDateOf, type IsoDate, type Variant } from '../../../src/wotd/dates.ts';
import type { Entry } from '../../../src/wotd/entry.ts';

/**
 * A Word-of-the-Day upstream that behaves like the live deployments at their worst, for the adapter's tests:
 * - 429 with an HTML body and no Retry-After, from a fixed 60 s window per client;
 * - a non-integer limit silently becomes 3, a limit above 8 is a 500;
 * - find_wotd as one object (first match, case-insensitive) or as an array oldest first (case-sensitive);
 * - variant B answers future dates, variant A refuses them with 400;
 * - on demand: 500, answers slower than a timeout, invalid JSON, wrong field types, a reset connection.
 */

export type Fault = 'server500' | 'slow' | 'invalidJson' | 'wrongTypes' | 'reset' | 'html429';

export interface QuirkyUpstreamOptions {
  entries: Entry[];
  variant: Variant;
  findStyle?: 'object' | 'array-oldest-first';
  /** Requests per fixed 60 s window; 0 (default) turns limiting off. */
  rateLimitPerMinute?: number;
  now?: () => Date;
  /** How long a 'slow' fault holds the answer back (real ms). */
  slowMs?: number;
}

export interface RecordedRequest {
  path: string;
  query: Record<string, string>;
  status: number | 'reset';
}

export interface QuirkyUpstream {
  url: string;
  readonly requests: RecordedRequest[];
  /** The next `times` requests meet `fault` (default once). */
  fail(fault: Fault, times?: number): void;
  /** Every request meets `fault` until called with null. */
  failAlways(fault: Fault | null): void;
  close(): Promise<void>;
}

const HTML_429 = '<!DOCTYPE html>\n<html><head><title>429 Too Many Requests</title></head><body><h1>Too Many Requests</h1></body></html>';

export async function startQuirkyUpstream(options: QuirkyUpstreamOptions): Promise<QuirkyUpstream> {
  const { variant } = options;
  const now = options.now ?? (() => new Date());
  const sorted = [...options.entries].sort((a, b) => (a.date < b.date ? -1 : 1));
  const byDate = new Map(sorted.map((entry) => [entry.date, entry]));
  const requests: RecordedRequest[] = [];
  const queued: Fault[] = [];
  let always: Fault | null = null;
  const windows = new Map<string, { start: number; count: number }>();
  const sockets = new Set<import('node:net').Socket>();

  const wire = (entry: Entry) => ({ ...entry, date: toWireDate(entry.date, variant) });

  function limited(client: string, nowMs: number): boolean {
    const limit = options.rateLimitPerMinute ?? 0;
    if (limit <= 0) return false;
    let window = windows.get(client);
    if (!window || nowMs >= window.start + 60_000) {
      window = { start: nowMs, count: 0 };
      windows.set(client, window);
    }
    if (window.count >= limit) return true;
    window.count++;
    return false;
  }

  function answer(path: string, params: URLSearchParams, today: IsoDate): { status: number; body: string } {
    const json = (status: number, value: unknown) => ({ status, body: JSON.stringify(value) });
    const dateParam = (): IsoDate | { error: string } => {
      const text = params.get('date');
      if (text === null) return today;
      const date = parseWireDate(text, variant);
      if (date === null) return { error: `malformed date ${text}` };
      if (variant === 'A' && date > today) return { error: 'date is in the future' };
      return date;
    };
    switch (path) {
      case '/query': {
        const date = dateParam();
        if (typeof date !== 'string') return json(400, date);
        const entry = byDate.get(date);
        return entry ? json(200, wire(entry)) : json(404, { error: 'no entry for that date' });
      }
      case '/query_previous': {
        const date = dateParam();
        if (typeof date !== 'string') return json(400, date);
        const text = params.get('limit');
        let limit = text !== null && /^-?\d+$/.test(text) ? Number(text) : 3;
        if (limit > 8) return json(500, { error: 'internal server error' });
        if (limit < 1) limit = 3;
        const before = sorted.filter((entry) => entry.date < date);
        const results = before.slice(-limit).reverse();
        return json(200, { has_more: before.length > limit, results: results.map(wire) });
      }
      case '/find_wotd': {
        const word = params.get('word');
        if (word === null || word === '') return json(400, { error: 'word is required' });
        if ((options.findStyle ?? 'array-oldest-first') === 'object') {
          const first = sorted.find((entry) => entry.word.toLowerCase() === word.toLowerCase());
          return first ? json(200, wire(first)) : json(404, { error: 'no match' });
        }
        const matches = sorted.filter((entry) => entry.word === word);
        return matches.length > 0 ? json(200, matches.map(wire)) : json(404, { error: 'no match' });
      }
      default:
        return json(404, { error: 'no such endpoint' });
    }
  }

  function handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://upstream.test');
    const record: RecordedRequest = { path: url.pathname, query: Object.fromEntries(url.searchParams), status: 200 };
    requests.push(record);
    const instant = now();
    const fault = queued.shift() ?? always;
    const reply = (status: number, body: string, type = 'application/json') => {
      record.status = status;
      response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
      response.end(body);
    };
    if (fault === 'html429' || limited(request.socket.remoteAddress ?? '?', instant.getTime())) {
      reply(429, HTML_429, 'text/html');
      return;
    }
    switch (fault) {
      case 'server500':
        reply(500, JSON.stringify({ error: 'internal server error' }));
        return;
      case 'invalidJson':
        reply(200, '{"date": "2024-01-0');
        return;
      case 'wrongTypes':
        reply(200, JSON.stringify({ date: 20240101, word: 42, pos: null, ipa: [], definition: true }));
        return;
      case 'reset':
        record.status = 'reset';
        request.socket.destroy();
        return;
      default:
        break;
    }
    const { status, body } = answer(url.pathname, url.searchParams, utcDateOf(instant));
    if (fault === 'slow') {
      const timer = setTimeout(() => {
        if (!response.destroyed) reply(status, body);
      }, options.slowMs ?? 2_000);
      response.on('close', () => clearTimeout(timer));
      return;
    }
    reply(status, body);
  }

  const server = createServer(handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    fail(fault, times = 1) {
      for (let i = 0; i < times; i++) queued.push(fault);
    },
    failAlways(fault) {
      always = fault;
    },
    close() {
      return new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      });
    },
  };
}

/** A small consecutive run of made-up entries, ending on `last`, for tests that need no real word list. */
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
