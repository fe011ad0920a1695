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

export type FetchLike = (
  input: string,
  init: { signal: AbortSignal; headers: Record<string, string>; redirect: 'manual' },
) => Promise<Response>;

/**
 * The largest answer read, in bytes. A day's entry is a few hundred bytes and a full history page a few KB; a
 * body far past that is a fault (a proxy's error page, a runaway response), and reading it all would only cost
 * memory and time.
 */
export const MAX_BODY_BYTES = 256 * 1024;

/**
 * The longest any Retry-After (429 or 503, seconds or HTTP-date) holds requests back: the service's own window is
 * 60 s, and a wild value (a day, 1e15 seconds, a date in 9999) must not silence the bot, overflow a timer or make
 * an invalid Date. parseRetryAfter clamps to it, so nothing downstream sees a longer delay.
 */
export const MAX_RETRY_AFTER_MS = 5 * 60_000;

/**
 * Same-origin redirects followed per request (a moved path on the service's own host). A redirect to another
 * origin, https to http included, is never followed: its answer would be cached as the service's.
 */
export const MAX_REDIRECTS = 3;

export interface GetOptions {
  /** Deadline for the whole exchange, body included: an answer that arrives a byte at a time is cut off at it. */
  timeoutMs: number;
  /** Refuse a body larger than this (default MAX_BODY_BYTES), by its Content-Length or while reading it. */
  maxBodyBytes?: number;
  fetch?: FetchLike;
  /** Epoch ms, for turning an HTTP-date Retry-After into a delay. */
  now: number;
}

export const USER_AGENT = 'wotd-bot (+https://github.com/wotd-bot)';

export type BodyText = { kind: 'text'; text: string } | { kind: 'too_large' | 'invalid_text'; message: string };

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
    const reached = await fetchFollowingSameOrigin(doFetch, url, abort.signal);
    if (reached.kind === 'refused') return { kind: 'bad_response', message: reached.message, status: reached.status };
    response = reached.response;
    read = await readBounded(response, limit, abort);
  } catch (error) {
    return { kind: 'retryable', message: describeFailure(error, options.timeoutMs), cause: isTimeout(error) ? 'timeout' : 'network' };
  } finally {
    clearTimeout(deadline);
  }
  return classify(response, read, options.now);
}

function classify(response: Response, read: BodyText, now: number): Attempt {
  const { status } = response;
  if (read.kind !== 'text' && status >= 200 && status < 300) return { kind: 'bad_response', message: read.message };
  // An error answer too large to read is still classified by its status, without its text.
  const text = read.kind === 'text' ? read.text : '';
  if (status === 429) return { kind: 'rate_limited', retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), now) };
  if (status === 503) {
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), now);
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

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export type Reached = { kind: 'response'; response: Response } | { kind: 'refused'; message: string; status: number };

/**
 * Fetches without letting fetch follow redirects: up to MAX_REDIRECTS to the same origin as `url` are followed;
 * one to another origin (another host or port, or https to http) is refused unread, naming both URLs.
 */
export async function fetchFollowingSameOrigin(
  doFetch: FetchLike,
  url: string,
  signal: AbortSignal,
  headers: Record<string, string> = { accept: 'application/json' },
): Promise<Reached> {
  const origin = new URL(url).origin;
  let current = url;
  for (let hops = 0; ; hops++) {
    const response = await doFetch(current, { signal, headers: { ...headers, 'user-agent': USER_AGENT }, redirect: 'manual' });
    if (!REDIRECT_STATUSES.has(response.status)) return { kind: 'response', response };
    await response.body?.cancel().catch(() => undefined);
    const status = response.status;
    const location = response.headers.get('location');
    let target: URL | null = null;
    try {
      target = location === null ? null : new URL(location, current);
    } catch {
      target = null;
    }
    if (target === null) {
      return { kind: 'refused', status, message: `the service answered ${status} for ${current} without a usable Location (${preview(location ?? '')}); not followed` };
    }
    if (target.origin !== origin) {
      const why = new URL(current).protocol === 'https:' && target.protocol === 'http:' ? 'from https to http' : 'to another origin';
      return { kind: 'refused', status, message: `the service redirected ${current} ${why}, ${target.href}; redirects leave only within ${origin}, so it was not followed` };
    }
    if (hops >= MAX_REDIRECTS) {
      return { kind: 'refused', status, message: `the service redirected ${url} more than ${MAX_REDIRECTS} times (last to ${target.href}); not followed` };
    }
    current = target.href;
  }
}

/**
 * The body as text, or why it was refused: a Content-Length over `limit` is refused before reading, and a body
 * without one (or lying about it) as soon as the bytes read pass `limit`. `stop` aborts the request, so the
 * connection is closed rather than drained.
 */
export async function readBounded(response: Response, limit: number, abort: AbortController): Promise<BodyText> {
  const declared = response.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > limit) {
    abort.abort();
    return { kind: 'too_large', message: `the service's answer is ${Number(declared)} bytes, over the ${limit}-byte limit; not read` };
  }
  if (!response.body) return { kind: 'text', text: '' };
  const reader = response.body.getReader();
  const aborted = whenAborted(abort);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      // Decoded bytes: fetch has already undone any Content-Encoding, so a gzip bomb is cut here too.
      size += value.byteLength;
      if (size > limit) {
        abort.abort();
        return { kind: 'too_large', message: `the service's answer passed the ${limit}-byte limit; stopped reading it` };
      }
      chunks.push(value);
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  const bytes = Buffer.concat(chunks);
  try {
    return { kind: 'text', text: UTF8.decode(bytes) };
  } catch {
    return { kind: 'invalid_text', message: `the service's answer is not valid UTF-8 (${bytes.length} bytes)` };
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A promise that rejects (with the abort's reason) once `abort` fires, to race against each read of a body: a body
 * whose decoding broke (Content-Encoding: gzip over bytes that are not, cut short) can leave a read pending for
 * ever, deaf to the abort, so the deadline ends the read itself. Never an unhandled rejection.
 */
export function whenAborted(abort: AbortController): Promise<never> {
  const aborted = new Promise<never>((_resolve, reject) => {
    const fail = (): void => reject(abort.signal.reason instanceof Error ? abort.signal.reason : new DOMException('aborted', 'AbortError'));
    if (abort.signal.aborted) fail();
    else abort.signal.addEventListener('abort', fail, { once: true });
  });
  aborted.catch(() => undefined);
  return aborted;
}

/**
 * Retry-After as a delay in milliseconds from `now`, always within [0, MAX_RETRY_AFTER_MS]; null when absent or
 * unreadable (the caller then uses its own default). Delay-seconds (a fraction tolerated) or an HTTP-date in any
 * of its three forms; a date in the past is 0. Anything else (a negative number, "1e3", text) is unreadable.
 */
export function parseRetryAfter(header: string | null, now: number): number | null {
  if (header === null) return null;
  const text = header.trim();
  let delay: number;
  if (/^\d+(\.\d+)?$/.test(text)) delay = Number(text) * 1000;
  else {
    const at = parseHttpDate(text, now);
    if (at === null) return null;
    delay = at - now;
  }
  if (Number.isNaN(delay)) return null;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, Math.ceil(delay)));
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH = '(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)';
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** RFC 9110 §5.6.7: IMF-fixdate, the obsolete RFC 850 form (two-digit year) and asctime (no zone: GMT). */
const IMF_FIXDATE = new RegExp(`^[a-z]{3}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`, 'i');
const RFC850_DATE = new RegExp(`^[a-z]{6,9}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`, 'i');
const ASCTIME_DATE = new RegExp(`^[a-z]{3} ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`, 'i');

interface DateParts {
  day: string;
  month: string;
  year: number;
  hours: string;
  minutes: string;
  seconds: string;
}

/** The parts of an HTTP-date in any of its three forms, or null. */
function httpDateParts(text: string, now: number): DateParts | null {
  const imf = IMF_FIXDATE.exec(text);
  if (imf) {
    const [, day = '', month = '', year = '', hours = '', minutes = '', seconds = ''] = imf;
    return { day, month, year: Number(year), hours, minutes, seconds };
  }
  const rfc850 = RFC850_DATE.exec(text);
  if (rfc850) {
    const [, day = '', month = '', twoDigits = '', hours = '', minutes = '', seconds = ''] = rfc850;
    // A two-digit year more than 50 years ahead is the most recent past year with those digits.
    const thisYear = new Date(now).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(twoDigits);
    if (year > thisYear + 50) year -= 100;
    return { day, month, year, hours, minutes, seconds };
  }
  const asctime = ASCTIME_DATE.exec(text);
  if (asctime) {
    const [, month = '', day = '', hours = '', minutes = '', seconds = '', year = ''] = asctime;
    return { day, month, year: Number(year), hours, minutes, seconds };
  }
  return null;
}

/** Epoch ms of an HTTP-date, or null. Parsed by hand: Date.parse reads "1.5" or "x 2" as dates and asctime as local time. */
function parseHttpDate(text: string, now: number): number | null {
  const parts = httpDateParts(text, now);
  if (!parts) return null;
  const month = MONTHS.indexOf(parts.month.toLowerCase());
  const day = Number(parts.day.trim());
  const [hours, minutes, seconds] = [parts.hours, parts.minutes, parts.seconds].map(Number) as [number, number, number];
  if (hours > 23 || minutes > 59 || seconds > 60) return null;
  const at = new Date(Date.UTC(2000, month, day, hours, minutes, seconds));
  at.setUTCFullYear(parts.year);
  // A day the month does not have (31 Feb) is no date.
  return at.getUTCDate() === day && at.getUTCMonth() === month ? at.getTime() : null;
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

export function preview(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 60 ? `${flat.slice(0, 57)}...` : flat || 'empty';
}

export function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

export function describeFailure(error: unknown, timeoutMs: number): string {
  if (isTimeout(error)) {
    return `no answer within ${timeoutMs} ms`;
  }
  const cause = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  const code = cause?.code;
  if (code) return `connection failed (${code})`;
  return `connection failed (${error instanceof Error ? error.message : String(error)})`;
}
