/**
 * The two requests the mirror makes of the service's site: the `/databases` listing page, and one snapshot's
 * download, streamed into a file with a size cap and revalidated with the validators of the copy already held
 * (If-None-Match, If-Modified-Since; a 304 keeps it). Same conventions as the API client (http-client.ts): a
 * deadline held by a timer of our own, redirects followed only within the site's origin, every answer classified.
 * Rate limiting and the shared budget are the caller's (UpstreamRequester.siteRequest).
 */
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import {
  describeFailure,
  fetchFollowingSameOrigin,
  isTimeout,
  parseRetryAfter,
  preview,
  readBounded,
  whenAborted,
  type FetchLike,
} from '../http-client.ts';
import type { UpstreamResult } from '../upstream-result.ts';
import { newestSnapshots, type SnapshotLink } from './snapshot-listing.ts';

/** The listing is a short HTML page; anything past this is not one. */
export const MAX_LISTING_BYTES = 1024 * 1024;
/** The default cap on a snapshot's size (WOTD_MIRROR's files hold a few thousand rows: a few MB). */
export const DEFAULT_MAX_SNAPSHOT_BYTES = 50 * 1024 * 1024;
/** A download may take this long in all, however steadily its bytes arrive. */
export const DEFAULT_DOWNLOAD_DEADLINE_MS = 5 * 60_000;
/** Validators longer than this are not kept (nor sent back). */
const MAX_VALIDATOR_LENGTH = 256;

export interface SiteRequestOptions {
  /** How long the site may take to answer, and (for a download) to send the next bytes. */
  timeoutMs: number;
  /** Epoch ms, for an HTTP-date Retry-After. */
  now: number;
  fetch?: FetchLike;
  /** Stops the request (the mirror is closing). */
  signal?: AbortSignal;
}

/** Every answer says how the metrics count it; a failure says why in one line. */
interface Counted {
  result: UpstreamResult;
  detail?: string;
}

export type ListingAnswer =
  | ({ kind: 'ok'; snapshots: SnapshotLink[] } & Counted)
  /** 404: this site publishes no snapshots (deployment B, or a site without the page). */
  | ({ kind: 'none'; detail: string } & Counted)
  | ({ kind: 'failed'; detail: string; retryAfterMs: number | null } & Counted);

/** What a copy held was served with, sent back to revalidate it. */
export interface Validators {
  etag: string | null;
  lastModified: string | null;
}

export type DownloadAnswer =
  | ({ kind: 'downloaded'; bytes: number; validators: Validators } & Counted)
  | ({ kind: 'not_modified' } & Counted)
  /** Refused for its size, by Content-Length or while reading; nothing more was read. */
  | ({ kind: 'too_large'; detail: string; validators: Validators } & Counted)
  | ({ kind: 'failed'; detail: string; retryAfterMs: number | null } & Counted);

/** GET <origin>/databases: the snapshots it links to, newest first. */
export async function fetchListing(origin: string, options: SiteRequestOptions): Promise<ListingAnswer> {
  const url = new URL('/databases', origin).href;
  const abort = linkedAbort(options.signal);
  const deadline = setTimeout(() => abort.abort(new DOMException(`no answer within ${options.timeoutMs} ms`, 'TimeoutError')), options.timeoutMs);
  try {
    const reached = await fetchFollowingSameOrigin(options.fetch ?? fetch, url, abort.signal, { accept: 'text/html' });
    if (reached.kind === 'refused') return { kind: 'failed', detail: reached.message, retryAfterMs: null, result: 'bad_response' };
    const { response } = reached;
    const failure = failedStatus(response, url, options.now);
    if (failure) {
      await response.body?.cancel().catch(() => undefined);
      if (response.status === 404) return { kind: 'none', detail: `${url} answered 404: the site publishes no database snapshots`, result: 'not_found' };
      return failure;
    }
    const read = await readBounded(response, MAX_LISTING_BYTES, abort);
    if (read.kind !== 'text') return { kind: 'failed', detail: `${url}: ${read.message}`, retryAfterMs: null, result: 'bad_response' };
    return { kind: 'ok', snapshots: newestSnapshots(read.text, origin), result: 'ok' };
  } catch (error) {
    return transportFailure(error, url, options.timeoutMs);
  } finally {
    clearTimeout(deadline);
    abort.dispose();
  }
}

export interface DownloadOptions extends SiteRequestOptions {
  /** The largest file accepted, in bytes (default DEFAULT_MAX_SNAPSHOT_BYTES). */
  maxBytes?: number;
  /** The whole download's deadline (default DEFAULT_DOWNLOAD_DEADLINE_MS). */
  deadlineMs?: number;
  /** The validators of the copy held: a 304 answers "not modified". */
  validators?: Validators | null;
}

/**
 * Streams `url` into a new file at `path` (created here, mode 0600, never an existing one), refusing it as soon
 * as its declared or counted size passes `maxBytes`. The file holds the body only when the answer is `downloaded`.
 */
export async function downloadSnapshot(url: string, path: string, options: DownloadOptions): Promise<DownloadAnswer> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_SNAPSHOT_BYTES;
  const abort = linkedAbort(options.signal);
  const deadlineMs = options.deadlineMs ?? DEFAULT_DOWNLOAD_DEADLINE_MS;
  const deadline = setTimeout(() => abort.abort(new DOMException(`not downloaded within ${deadlineMs} ms`, 'TimeoutError')), deadlineMs);
  // Until the answer begins, and between any two reads of it: a site that stops sending is cut off.
  let idle: NodeJS.Timeout | undefined;
  const awake = (): void => {
    clearTimeout(idle);
    idle = setTimeout(() => abort.abort(new DOMException(`no data for ${options.timeoutMs} ms`, 'TimeoutError')), options.timeoutMs);
  };
  awake();
  try {
    const headers: Record<string, string> = { accept: 'application/x-sqlite3, application/octet-stream;q=0.9, */*;q=0.1' };
    if (options.validators?.etag) headers['if-none-match'] = options.validators.etag;
    if (options.validators?.lastModified) headers['if-modified-since'] = options.validators.lastModified;
    const reached = await fetchFollowingSameOrigin(options.fetch ?? fetch, url, abort.signal, headers);
    if (reached.kind === 'refused') return { kind: 'failed', detail: reached.message, retryAfterMs: null, result: 'bad_response' };
    const { response } = reached;
    if (response.status === 304) {
      await response.body?.cancel().catch(() => undefined);
      return { kind: 'not_modified', result: 'ok' };
    }
    const failure = failedStatus(response, url, options.now);
    if (failure) {
      // A 404's plain body ("Database file not found") names the problem; read a little of it for the log.
      const read = await readBounded(response, 1024, abort).catch(() => null);
      const text = read?.kind === 'text' && read.text.trim() !== '' ? ` (${preview(read.text)})` : '';
      return { ...failure, detail: `${failure.detail}${text}` };
    }
    const validators = { etag: validator(response.headers.get('etag')), lastModified: validator(response.headers.get('last-modified')) };
    const declared = response.headers.get('content-length');
    if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) {
      abort.abort();
      return { kind: 'too_large', detail: `${url} is ${Number(declared)} bytes, over the ${maxBytes}-byte limit; not downloaded`, validators, result: 'bad_response' };
    }
    const file = await open(path, 'wx', 0o600);
    let bytes: number | 'too_large';
    try {
      bytes = await streamInto(response, file, maxBytes, abort, awake);
    } finally {
      await file.close();
    }
    if (bytes === 'too_large') {
      return { kind: 'too_large', detail: `${url} passed the ${maxBytes}-byte limit; the download was stopped`, validators, result: 'bad_response' };
    }
    return { kind: 'downloaded', bytes, validators, result: 'ok' };
  } catch (error) {
    return transportFailure(error, url, options.timeoutMs);
  } finally {
    clearTimeout(deadline);
    clearTimeout(idle);
    abort.dispose();
  }
}

/** Writes the body chunk by chunk; stops (and aborts the request) once it passes `maxBytes`. */
async function streamInto(response: Response, file: FileHandle, maxBytes: number, abort: AbortController, awake: () => void): Promise<number | 'too_large'> {
  if (!response.body) return 0;
  const reader = response.body.getReader();
  const aborted = whenAborted(abort);
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) return size;
      awake();
      size += value.byteLength;
      if (size > maxBytes) {
        abort.abort();
        return 'too_large';
      }
      await file.write(value);
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/** A non-2xx answer as a failure (null for 2xx). 404 included: the caller decides what it means. */
function failedStatus(response: Response, url: string, now: number): (ListingAnswer & { kind: 'failed' }) | null {
  const { status } = response;
  if (status >= 200 && status < 300) return null;
  if (status === 429) {
    // The site answers 429 as an HTML page without Retry-After: its window is a minute.
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), now);
    return { kind: 'failed', detail: `${url} answered 429 (too many requests)`, retryAfterMs, result: 'rate_limited' };
  }
  const result: UpstreamResult = status === 404 ? 'not_found' : status >= 500 ? 'http_5xx' : status >= 400 ? 'http_4xx' : 'bad_response';
  return { kind: 'failed', detail: `${url} answered ${status}`, retryAfterMs: null, result };
}

function transportFailure(error: unknown, url: string, timeoutMs: number): { kind: 'failed'; detail: string; retryAfterMs: null; result: UpstreamResult } {
  const timeout = isTimeout(error);
  const message = timeout && error instanceof Error && error.message ? error.message : describeFailure(error, timeoutMs);
  return { kind: 'failed', detail: `${url}: ${message}`, retryAfterMs: null, result: timeout ? 'timeout' : 'network' };
}

/** An ETag or Last-Modified worth sending back: printable ASCII of a sane length, else none. */
function validator(value: string | null): string | null {
  if (value === null) return null;
  const text = value.trim();
  return text !== '' && text.length <= MAX_VALIDATOR_LENGTH && /^[\x20-\x7e]+$/.test(text) ? text : null;
}

/** An AbortController that also aborts when `outer` does; dispose() stops listening. */
function linkedAbort(outer: AbortSignal | undefined): AbortController & { dispose(): void } {
  const controller = new AbortController() as AbortController & { dispose(): void };
  const follow = (): void => controller.abort(outer?.reason);
  if (outer?.aborted) follow();
  else outer?.addEventListener('abort', follow, { once: true });
  controller.dispose = () => outer?.removeEventListener('abort', follow);
  return controller;
}
