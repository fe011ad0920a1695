import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { utcDateOf } from '../wotd/dates.ts';
import { clientAddress, COMMON_HEADERS, rateHeaders, send } from './http-reply.ts';
import { FixedWindowLimiter } from './rate-limit.ts';
import { SNAPSHOT_NAME_PATTERN, type SnapshotShelf } from './snapshots.ts';

/**
 * The public site's database pages, on our own service: `GET /databases` lists the monthly snapshots as links, in the
 * folder's own order (as the site does, not sorted), and `GET /databases/download/wotd_YYYY-MM.db` sends one.
 * These are pages of the site rather than API endpoints, so they answer HTML and plain text, not JSON.
 */

export const DATABASES_PATH = '/databases';
export const DOWNLOAD_PREFIX = '/databases/download/';
export const SNAPSHOT_CONTENT_TYPE = 'application/x-sqlite3';
export const NOT_FOUND_TEXT = 'Database file not found';
/** The public site's allowance for these pages: 30 requests a minute per client and page. */
export const DEFAULT_DATABASE_RATE_LIMIT = 30;
const WINDOW_MS = 60_000;
const PLAIN = 'text/plain; charset=utf-8';

export type DatabaseRoute = 'listing' | 'download';

/** Which database page a path is, or undefined for any other path. */
export function databaseRoute(path: string): DatabaseRoute | undefined {
  if (path === DATABASES_PATH) return 'listing';
  if (path.startsWith(DOWNLOAD_PREFIX)) return 'download';
  return undefined;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function listingHtml(names: readonly string[]): string {
  const items = names.map((name) => `<li><a href="${DOWNLOAD_PREFIX}${escapeHtml(name)}">${escapeHtml(name)}</a></li>`);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><title>Word of the Day | Databases</title></head>',
    '<body>',
    '<h1>Databases</h1>',
    '<p>Monthly snapshots of the word list. Each file is a SQLite database with one table,',
    'words(date, word, ipa, pos, definition), holding every word of the day up to the end of its month.</p>',
    items.length === 0 ? '<p>No snapshots yet.</p>' : `<ul>\n${items.join('\n')}\n</ul>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** True when an If-None-Match header names this entity tag (weak comparison) or is `*`. */
function matchesEtag(header: string, etag: string): boolean {
  const bare = (tag: string): string => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === bare(etag));
}

/** True when If-Modified-Since is a date at or after the last modification (whole seconds, as HTTP dates are). */
function notModifiedSince(header: string, modifiedMs: number): boolean {
  const since = Date.parse(header);
  return Number.isFinite(since) && Math.floor(modifiedMs / 1000) * 1000 <= since;
}

export interface DatabasePagesOptions {
  shelf: SnapshotShelf;
  /** Requests per 60 s per client address to each page (the listing; every download together); 0 for no limit. */
  rateLimitPerMinute: number;
  /** Where a fault of ours is reported (a snapshot that cannot be written or read). */
  onError: (error: Error) => void;
}

export class DatabasePages {
  private readonly limiter: FixedWindowLimiter | undefined;
  /** Entity tags by file identity, so a file is hashed once, not at every request. */
  private readonly etags = new Map<string, { identity: string; tag: string }>();

  constructor(private readonly options: DatabasePagesOptions) {
    const limit = options.rateLimitPerMinute;
    if (!Number.isSafeInteger(limit) || limit < 0) {
      throw new TypeError(`the database pages' rate limit must be a whole number, 0 or more; got ${String(limit)}`);
    }
    this.limiter = limit > 0 ? new FixedWindowLimiter(limit, WINDOW_MS) : undefined;
  }

  /** Answers a request for `route`; never rejects (a fault of ours is a 500 and reported). */
  async answer(request: IncomingMessage, response: ServerResponse, route: DatabaseRoute, path: string, instant: Date): Promise<void> {
    try {
      await this.respond(request, response, route, path, instant);
    } catch (error) {
      const fault = error instanceof Error ? error : new Error(String(error));
      this.options.onError(fault);
      if (!response.headersSent) {
        // The reason (which names files on this machine) goes to the operator, not to the client.
        send(request, response, 500, 'The database snapshots are not available right now; try again later', {
          'content-type': PLAIN,
          'cache-control': 'no-cache',
        });
      } else {
        response.destroy();
      }
    }
  }

  private async respond(request: IncomingMessage, response: ServerResponse, route: DatabaseRoute, path: string, instant: Date): Promise<void> {
    let headers: OutgoingHttpHeaders = { 'cache-control': 'no-cache' };
    if (this.limiter) {
      const decision = this.limiter.take(`${clientAddress(request)} ${route}`, instant.getTime());
      headers = { ...headers, ...rateHeaders(decision) };
      if (!decision.allowed) {
        send(request, response, 429, `Too many requests: ${decision.limit} a minute for this page; retry in ${decision.resetSeconds} s`, {
          ...headers,
          'content-type': PLAIN,
          'retry-after': String(decision.resetSeconds),
        });
        return;
      }
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      send(request, response, 405, `Method ${request.method ?? '?'} is not allowed; use GET or HEAD`, { ...headers, 'content-type': PLAIN, allow: 'GET, HEAD' });
      return;
    }
    const today = utcDateOf(instant);
    if (route === 'listing') {
      const names = await this.options.shelf.list(today);
      send(request, response, 200, listingHtml(names), { ...headers, 'content-type': 'text/html; charset=utf-8' });
      return;
    }
    // The name is taken as sent, undecoded: only wotd_YYYY-MM.db itself names a file, so an escaped slash, a dot
    // segment or any other name can never reach the file system.
    const name = path.slice(DOWNLOAD_PREFIX.length);
    const file = SNAPSHOT_NAME_PATTERN.test(name) ? await this.options.shelf.find(name, today) : undefined;
    if (!file) {
      send(request, response, 404, NOT_FOUND_TEXT, { ...headers, 'content-type': PLAIN });
      return;
    }
    await this.sendFile(request, response, file.path, headers);
  }

  private async sendFile(request: IncomingMessage, response: ServerResponse, path: string, headers: OutgoingHttpHeaders): Promise<void> {
    // One open file throughout, so a snapshot renamed over this one meanwhile cannot mix two versions.
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      send(request, response, 404, NOT_FOUND_TEXT, { ...headers, 'content-type': PLAIN });
      return;
    }
    try {
      const info = await handle.stat();
      const identity = `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}`;
      let body: Buffer | undefined;
      let tag = this.etags.get(path)?.identity === identity ? this.etags.get(path)?.tag : undefined;
      if (tag === undefined) {
        body = await handle.readFile();
        tag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
        this.etags.set(path, { identity, tag });
      }
      const fileHeaders: OutgoingHttpHeaders = {
        ...headers,
        etag: tag,
        'last-modified': new Date(info.mtimeMs).toUTCString(),
      };
      const ifNoneMatch = request.headers['if-none-match'];
      const ifModifiedSince = request.headers['if-modified-since'];
      const unchanged =
        ifNoneMatch !== undefined ? matchesEtag(ifNoneMatch, tag) : ifModifiedSince !== undefined && notModifiedSince(ifModifiedSince, info.mtimeMs);
      if (unchanged) {
        response.writeHead(304, { ...COMMON_HEADERS, ...fileHeaders });
        response.end();
        return;
      }
      if (request.method === 'GET') body ??= await handle.readFile();
      response.writeHead(200, {
        ...COMMON_HEADERS,
        ...fileHeaders,
        'content-type': SNAPSHOT_CONTENT_TYPE,
        'content-disposition': 'inline',
        'content-length': info.size,
      });
      response.end(request.method === 'HEAD' ? undefined : body);
    } finally {
      await handle.close();
    }
  }
}
