import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { hasWireShape, parseWireDate, toWireDate, utcDateOf, wireFormat, type IsoDate, type Variant } from '../wotd/dates.ts';
import { ListenError } from '../config/listen-error.ts';
import { quoted } from '../config/message-text.ts';
import { readWordDb, WordDbError } from './word-db.ts';
import { WordIndex } from './word-index.ts';
import { FixedWindowLimiter } from './rate-limit.ts';
import { clientAddress, COMMON_HEADERS, rateHeaders, send } from './http-reply.ts';
import { SnapshotShelf } from './snapshots.ts';
import { databaseRoute, DatabasePages, DEFAULT_DATABASE_RATE_LIMIT } from './database-pages.ts';

export interface ServiceOptions {
  /** SQLite file with table words(date TEXT PRIMARY KEY, word TEXT NOT NULL, ipa TEXT, pos TEXT, definition TEXT). */
  dbPath: string;
  variant: Variant;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Requests per 60 s per client address; default 10, 0 turns limiting off. */
  rateLimitPerMinute?: number;
  /** The clock; "today" is the UTC date of now(). */
  now?: () => Date;
  /**
   * Variant A: the folder the monthly snapshots of /databases are written to (created when missing, kept at close).
   * Default: a new temporary folder, removed at close.
   */
  snapshotDir?: string;
  /** Variant A: how many monthly snapshots are offered, newest first; default 24. */
  snapshotKeep?: number;
  /** Requests per 60 s per client address to each /databases page; default 30, or 0 when rateLimitPerMinute is 0. */
  databaseRateLimitPerMinute?: number;
}

export interface RunningService {
  url: string;
  port: number;
  /** Variant A: the folder the /databases snapshots are written to; undefined in variant B. */
  snapshotDir: string | undefined;
  close(): Promise<void>;
}

export const DEFAULT_RATE_LIMIT = 10;
export const MAX_PREVIOUS_LIMIT = 8;
export const DEFAULT_PREVIOUS_LIMIT = 3;
const RATE_WINDOW_MS = 60_000;
const ENDPOINTS = ['/query', '/query_previous', '/find_wotd', '/download'] as const;
const ALLOW = 'GET, HEAD';

/** A request the service refuses: the status and the one-line message sent as {"error": message}. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: OutgoingHttpHeaders = {},
  ) {
    super(message);
  }
}

/** One query parameter: absent, or given exactly once. */
function singleParam(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw new HttpError(400, `give ${name} at most once, got it ${values.length} times`);
  return values[0];
}

/** User text inside an error message: quoted, and cut short so a huge parameter cannot make a huge answer. */
function quote(text: string): string {
  return quoted(text, 80);
}

function downloadName(dbPath: string): string {
  const name = basename(dbPath).replace(/[^A-Za-z0-9._-]/g, '_');
  return /^[A-Za-z0-9]/.test(name) ? name : 'words.sqlite';
}

/**
 * The answer to a request Node cannot parse, which never reaches the handler: a space, control character or raw
 * non-ASCII byte in its target, a broken header. It is JSON, as every answer of the service is, and says what to fix.
 */
function unparsableAnswer(error: NodeJS.ErrnoException): Buffer {
  const [status, reason, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'the request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'the request was not received in time']
        : [
            400,
            'Bad Request',
            `malformed HTTP request (${error.code ?? 'unparsable'}): write spaces, control characters and non-ASCII text in the path and query as %XX escapes`,
          ];
  const body = Buffer.from(JSON.stringify({ error: message }), 'utf8');
  const head = [
    `HTTP/1.1 ${status} ${reason}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${body.length}`,
    ...Object.entries(COMMON_HEADERS).map(([name, value]) => `${name}: ${String(value)}`),
    'connection: close',
  ].join('\r\n');
  return Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), body]);
}

/**
 * Starts the Word-of-the-Day service: the whole word list is read and checked once, then every answer comes
 * from memory. Rejects with a WordDbError when the database is missing, unreadable or holds a bad row.
 */
export async function startWotdService(options: ServiceOptions): Promise<RunningService> {
  const variant = options.variant;
  if (variant !== 'A' && variant !== 'B') throw new TypeError(`variant must be A or B, got ${String(variant)}`);
  const host = options.host ?? '127.0.0.1';
  const rateLimit = options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT;
  if (!Number.isSafeInteger(rateLimit) || rateLimit < 0) {
    throw new TypeError(`rateLimitPerMinute must be a whole number, 0 or more; got ${String(rateLimit)}`);
  }
  const now = options.now ?? (() => new Date());

  const entries = await readWordDb(options.dbPath);
  const index = new WordIndex(entries, variant);
  // The download is the file as it was when the service read it, so it always matches the answers.
  let download: Buffer | undefined;
  if (variant === 'A') {
    try {
      download = await readFile(options.dbPath);
    } catch (error) {
      throw new WordDbError(`cannot read word database ${options.dbPath}: ${(error as Error).message}`);
    }
  }
  const downloadHeaders: OutgoingHttpHeaders = {
    'content-type': 'application/vnd.sqlite3',
    'content-disposition': `attachment; filename="${downloadName(options.dbPath)}"`,
  };
  const limiter = rateLimit > 0 ? new FixedWindowLimiter(rateLimit, RATE_WINDOW_MS) : undefined;
  // Variant A publishes monthly snapshots on /databases (written when first asked for), as the public site does.
  let snapshots: { shelf: SnapshotShelf; pages: DatabasePages; temporary: boolean } | undefined;
  if (variant === 'A') {
    const temporary = options.snapshotDir === undefined;
    const shelf = new SnapshotShelf({
      entries,
      dir: options.snapshotDir ?? (await mkdtemp(join(tmpdir(), 'wotd-snapshots-'))),
      ...(options.snapshotKeep === undefined ? {} : { keep: options.snapshotKeep }),
    });
    const pages = new DatabasePages({
      shelf,
      rateLimitPerMinute: options.databaseRateLimitPerMinute ?? (rateLimit === 0 ? 0 : DEFAULT_DATABASE_RATE_LIMIT),
      onError: (error) => process.emitWarning(error),
    });
    snapshots = { shelf, pages, temporary };
  }
  const format = wireFormat(variant);
  const toWire = (date: IsoDate): string => toWireDate(date, variant);

  /** A date parameter in the variant's format; absent means today. Future dates are refused. */
  function requestedDate(params: URLSearchParams, today: IsoDate): IsoDate {
    const text = singleParam(params, 'date');
    if (text === undefined) return today;
    if (text === '') throw new HttpError(400, `date must not be empty; give it as ${format} or leave it out for today`);
    const date = parseWireDate(text, variant);
    if (date === null) {
      throw new HttpError(
        400,
        hasWireShape(text, variant)
          ? `date ${quote(text)} is not a real calendar date`
          : `date must be ${format}, got ${quote(text)}`,
      );
    }
    if (date > today) {
      throw new HttpError(
        400,
        `date ${text} is in the future; the latest date is ${toWire(today)} (UTC)`,
      );
    }
    return date;
  }

  function previousLimit(params: URLSearchParams): number {
    const text = singleParam(params, 'limit');
    if (text === undefined) return DEFAULT_PREVIOUS_LIMIT;
    const value = /^\d{1,3}$/.test(text) ? Number(text) : Number.NaN;
    if (!(value >= 1 && value <= MAX_PREVIOUS_LIMIT)) {
      throw new HttpError(400, `limit must be a whole number from 1 to ${MAX_PREVIOUS_LIMIT}, got ${quote(text)}`);
    }
    return value;
  }

  function answer(path: string, params: URLSearchParams, today: IsoDate): { body: string | Buffer; headers?: OutgoingHttpHeaders } {
    switch (path) {
      case '/query': {
        const date = requestedDate(params, today);
        const json = index.entryJson(date);
        if (json === undefined) throw new HttpError(404, `no word of the day for ${toWire(date)}`);
        return { body: json };
      }
      case '/query_previous': {
        const date = requestedDate(params, today);
        const limit = previousLimit(params);
        const { results, hasMore } = index.previousJson(date, limit);
        return { body: `{"has_more":${hasMore},"results":[${results.join(',')}]}` };
      }
      case '/find_wotd': {
        const word = singleParam(params, 'word');
        if (word === undefined) throw new HttpError(400, 'word is required, as in /find_wotd?word=serendipity');
        if (word.trim() === '') throw new HttpError(400, 'word must not be empty');
        const results = index.findJson(word, today);
        if (results.length === 0) {
          throw new HttpError(404, `${quote(word.trim())} has never been the word of the day`);
        }
        return { body: `[${results.join(',')}]` };
      }
      case '/download': {
        if (download === undefined) {
          throw new HttpError(404, 'the database download is offered by variant A services only');
        }
        return { body: download, headers: downloadHeaders };
      }
      default:
        throw new HttpError(404, `no such endpoint ${quote(path)}; try ${ENDPOINTS.join(', ')}`);
    }
  }

  /** The response each connection is sending, so that a parse error arriving meanwhile never writes into it. */
  const sending = new WeakMap<Duplex, ServerResponse>();

  function handle(request: IncomingMessage, response: ServerResponse): void {
    sending.set(request.socket, response);
    try {
      respond(request, response);
    } catch (error) {
      // Only a fault of ours lands here (a bad injected clock, say); the service keeps running.
      if (!response.headersSent) send(request, response, 500, JSON.stringify({ error: 'internal error' }), {});
      else response.destroy();
      process.emitWarning(error instanceof Error ? error : new Error(String(error)));
    }
  }

  function respond(request: IncomingMessage, response: ServerResponse): void {
    const instant = now();
    const target = request.url ?? '/';
    const queryStart = target.indexOf('?');
    const path = queryStart === -1 ? target : target.slice(0, queryStart);
    const params = new URLSearchParams(queryStart === -1 ? '' : target.slice(queryStart + 1));

    const route = snapshots ? databaseRoute(path) : undefined;
    if (snapshots && route) {
      void snapshots.pages.answer(request, response, route, path, instant);
      return;
    }

    let headers: OutgoingHttpHeaders = {};
    // Every request counts against the window, whatever its answer, as on the live service.
    if (limiter) {
      const decision = limiter.take(clientAddress(request), instant.getTime());
      headers = rateHeaders(decision);
      if (!decision.allowed) {
        send(
          request,
          response,
          429,
          JSON.stringify({
            error: `rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.resetSeconds} s`,
          }),
          { ...headers, 'retry-after': String(decision.resetSeconds) },
        );
        return;
      }
    }
    try {
      const known = (ENDPOINTS as readonly string[]).includes(path);
      if (known && request.method !== 'GET' && request.method !== 'HEAD') {
        throw new HttpError(405, `method ${request.method ?? '?'} is not allowed; use GET or HEAD`, { allow: ALLOW });
      }
      const result = answer(path, params, utcDateOf(instant));
      send(request, response, 200, result.body, { ...headers, ...result.headers });
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      send(request, response, error.status, JSON.stringify({ error: error.message }), { ...headers, ...error.headers });
    }
  }

  const server = createServer(handle);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const current = sending.get(socket);
    // After an answer that closes the connection, more bytes from the client (a body it sent on) get no second one.
    const closing = error.code === 'HPE_CLOSED_CONNECTION' || (current !== undefined && !current.writableFinished);
    if (error.code === 'ECONNRESET' || !socket.writable || closing) {
      socket.destroy();
      return;
    }
    socket.end(unparsableAnswer(error));
  });
  // Slow or silent clients must not hold sockets for long.
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  server.keepAliveTimeout = 5_000;

  const listening = new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      const reason =
        error.code === 'EADDRINUSE'
          ? 'the port is already in use'
          : error.code === 'EADDRNOTAVAIL'
            ? 'no such local address'
            : error.code === 'EACCES'
              ? 'permission denied'
              : error.message;
      reject(new ListenError(`cannot listen on ${host}:${options.port ?? 0}: ${reason}`, error.code, host, options.port ?? 0, { cause: error }));
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(options.port ?? 0, host);
  });
  try {
    await listening;
  } catch (error) {
    if (snapshots?.temporary) await rm(snapshots.shelf.dir, { recursive: true, force: true });
    throw error;
  }

  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    snapshotDir: snapshots?.shelf.dir,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
        // Requests still running get a moment to finish; then their connections go too.
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      }).then(async () => {
        if (!snapshots) return;
        await snapshots.shelf.settled();
        if (snapshots.temporary) await rm(snapshots.shelf.dir, { recursive: true, force: true });
      });
      return closing;
    },
  };
}
