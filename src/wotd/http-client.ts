/**
 * One GET to the service, with a deadline and a bound on the answer's size, classified into what the adapter must
 * do next. Retries, rate limiting and caching live in the adapter; this module only talks HTTP.
 */

export type Attempt =
  | { kind: 'ok'; body: unknown }
  | { kind: 'not_found'; message: string }
  | { kind: 'bad_request'; message: string }
  | { kind: 'rate_limited'; retryAfterMs: number | null }
  /** Worth retrying: 5xx, timeout, connection refused or reset (`cause` says which, for the metrics). A 503 may say when (Retry-After). */
  | { kind: 'retryable'; message: string; cause: 'http_5xx' | 'timeout' | 'network'; retryAfterMs?: number | null }
  /** `status` is set when the service answered with an unexpected HTTP status rather than a bad body. */
  | { kind: 'bad_response'; message: string; status?: number };

export type FetchLike = (input: string, init: { signal: AbortSignal; headers: Record<string, string> }) => Promise<Response>;

/**
 * The largest answer read, in bytes. A day's entry is a few hundred bytes and a full history page a few KB; a
 * body far past that is a fault (a proxy's error page, a runaway response), and reading it all would only cost
 * memory and time.
 */
export const MAX_BODY_BYTES = 256 * 1024;

export interface GetOptions {
  /** Deadline for the whole exchange, body included: an answer that arrives a byte at a time is cut off at it. */
  timeoutMs: number;
  /** Refuse a body larger than this (default MAX_BODY_BYTES), by its Content-Length or while reading it. */
  maxBodyBytes?: number;
  fetch?: FetchLike;
  /** Epoch ms, for turning an HTTP-date Retry-After into a delay. */
  now: number;
}

const USER_AGENT = 'wotd-bot (+https://github.com/wotd-bot)';

type BodyText = { kind: 'text'; text: string } | { kind: 'too_large'; message: string };

export async function getJson(url: string, options: GetOptions): Promise<Attempt> {
  const doFetch: FetchLike = options.fetch ?? fetch;
  const limit = options.maxBodyBytes ?? MAX_BODY_BYTES;
  // One controller for the deadline and for refusing a body. A timer of our own, held until the exchange ends:
  // a signal made by AbortSignal.any() from AbortSignal.timeout() can be garbage-collected and never fire.
  const abort = new AbortController();
  const deadline = setTimeout(() => abort.abort(new DOMException(`no answer within ${options.timeoutMs} ms`, 'TimeoutError')), options.timeoutMs);
  let response: Response;
  let read: BodyText;
  try {
    response = await doFetch(url, { signal: abort.signal, headers: { accept: 'application/json', 'user-agent': USER_AGENT } });
    read = await readBounded(response, limit, () => abort.abort());
  } catch (error) {
    return { kind: 'retryable', message: describeFailure(error, options.timeoutMs), cause: isTimeout(error) ? 'timeout' : 'network' };
  } finally {
    clearTimeout(deadline);
  }
  const { status } = response;
  if (read.kind === 'too_large' && status >= 200 && status < 300) return { kind: 'bad_response', message: read.message };
  // An error answer too large to read is still classified by its status, without its text.
  const text = read.kind === 'text' ? read.text : '';
  if (status === 429) return { kind: 'rate_limited', retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), options.now) };
  if (status === 503) {
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), options.now);
    return { kind: 'retryable', message: `the service answered 503${errorText(text)}`, retryAfterMs, cause: 'http_5xx' };
  }
  if (status >= 500) return { kind: 'retryable', message: `the service answered ${status}${errorText(text)}`, cause: 'http_5xx' };
  if (status === 404) return { kind: 'not_found', message: errorText(text).replace(/^: /, '') || 'not found' };
  if (status === 400) return { kind: 'bad_request', message: errorText(text).replace(/^: /, '') || 'bad request' };
  if (status < 200 || status >= 300) return { kind: 'bad_response', message: `the service answered ${status}${errorText(text)}`, status };
  try {
    return { kind: 'ok', body: JSON.parse(text) as unknown };
  } catch {
    return { kind: 'bad_response', message: `the service sent a body that is not JSON (${preview(text)})` };
  }
}

/**
 * The body as text, or why it was refused: a Content-Length over `limit` is refused before reading, and a body
 * without one (or lying about it) as soon as the bytes read pass `limit`. `stop` aborts the request, so the
 * connection is closed rather than drained.
 */
async function readBounded(response: Response, limit: number, stop: () => void): Promise<BodyText> {
  const declared = response.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > limit) {
    stop();
    return { kind: 'too_large', message: `the service's answer is ${Number(declared)} bytes, over the ${limit}-byte limit; not read` };
  }
  if (!response.body) return { kind: 'text', text: '' };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      stop();
      await reader.cancel().catch(() => undefined);
      return { kind: 'too_large', message: `the service's answer passed the ${limit}-byte limit; stopped reading it` };
    }
    chunks.push(value);
  }
  return { kind: 'text', text: Buffer.concat(chunks).toString('utf8') };
}

/** Seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(header: string | null, now: number): number | null {
  if (header === null) return null;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function errorText(text: string): string {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { error?: unknown }).error === 'string') {
      return `: ${(parsed as { error: string }).error}`;
    }
  } catch {
    // not JSON: fall through to a short preview
  }
  return text.trim() === '' ? '' : ` (${preview(text)})`;
}

function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 60 ? `${flat.slice(0, 57)}...` : flat || 'empty';
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

function describeFailure(error: unknown, timeoutMs: number): string {
  if (isTimeout(error)) {
    return `no answer within ${timeoutMs} ms`;
  }
  const cause = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  const code = cause?.code;
  if (code) return `connection failed (${code})`;
  return `connection failed (${error instanceof Error ? error.message : String(error)})`;
}
