/**
 * One GET to the service, with a timeout, classified into what the adapter must do next.
 * Retries, rate limiting and caching live in the adapter; this module only talks HTTP.
 */

export type Attempt =
  | { kind: 'ok'; body: unknown }
  | { kind: 'not_found'; message: string }
  | { kind: 'bad_request'; message: string }
  | { kind: 'rate_limited'; retryAfterMs: number | null }
  /** Worth retrying: 5xx, timeout, connection refused or reset (`cause` says which, for the metrics). */
  | { kind: 'retryable'; message: string; cause: 'http_5xx' | 'timeout' | 'network' }
  /** `status` is set when the service answered with an unexpected HTTP status rather than a bad body. */
  | { kind: 'bad_response'; message: string; status?: number };

export type FetchLike = (input: string, init: { signal: AbortSignal; headers: Record<string, string> }) => Promise<Response>;

export interface GetOptions {
  timeoutMs: number;
  fetch?: FetchLike;
  /** Epoch ms, for turning an HTTP-date Retry-After into a delay. */
  now: number;
}

const USER_AGENT = 'wotd-bot (+https://github.com/wotd-bot)';

export async function getJson(url: string, options: GetOptions): Promise<Attempt> {
  const doFetch: FetchLike = options.fetch ?? fetch;
  let response: Response;
  let text: string;
  try {
    response = await doFetch(url, {
      signal: AbortSignal.timeout(options.timeoutMs),
      headers: { accept: 'application/json', 'user-agent': USER_AGENT },
    });
    text = await response.text();
  } catch (error) {
    return { kind: 'retryable', message: describeFailure(error, options.timeoutMs), cause: isTimeout(error) ? 'timeout' : 'network' };
  }
  const { status } = response;
  if (status === 429) return { kind: 'rate_limited', retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), options.now) };
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
