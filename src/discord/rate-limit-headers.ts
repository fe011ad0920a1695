import { DefaultRestOptions, type RESTOptions, type ResponseLike } from 'discord.js';

/**
 * Discord's rate-limit headers, made safe before discord.js reads them.
 *
 * discord.js turns Retry-After and X-RateLimit-Reset-After straight into timers and into the instant a bucket (or,
 * with X-RateLimit-Global, every request) is free again. A value past Node's timer range (24.8 days) fires at once,
 * so the bucket stays "limited" and discord.js spins on 1 ms timers for good; a long but valid one stalls the route
 * (or the whole bot) for that long; NaN or a negative one is read as "no wait" on a bucket it still thinks is empty.
 * One bad answer (from Discord or a proxy in front of it) must not stop the bot, so every such number is checked
 * here: not a finite non-negative number, the header is dropped (as if Discord had not sent it); above the bound,
 * it is cut to the bound.
 */

/** The longest any one rate limit makes the bot wait, in seconds (Discord's own are seconds; see README). */
export const MAX_RATE_LIMIT_WAIT_S = 60;

const WAIT_HEADERS = ['retry-after', 'x-ratelimit-reset-after'] as const;
const COUNT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining'] as const;
/** X-RateLimit-Reset is an epoch time in seconds; discord.js reads Reset-After, so it is only kept sane. */
const RESET_HEADER = 'x-ratelimit-reset';

/** A decimal number as Discord writes them ("1", "0.250"), nothing else (Number() takes "", " ", "0x10", "1e3"). */
function decimal(text: string): number | null {
  const trimmed = text.trim();
  if (!/^\d{1,15}(\.\d{1,6})?$/.test(trimmed)) return null;
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : null;
}

/** The headers with every rate-limit number checked: `maxWaitS` bounds the waits. */
export function saneRateLimitHeaders(headers: Headers, maxWaitS = MAX_RATE_LIMIT_WAIT_S): Headers {
  const sane = new Headers(headers);
  for (const name of WAIT_HEADERS) {
    const raw = sane.get(name);
    if (raw === null) continue;
    const seconds = decimal(raw);
    if (seconds === null) sane.delete(name);
    else if (seconds > maxWaitS) sane.set(name, String(maxWaitS));
  }
  for (const name of COUNT_HEADERS) {
    const raw = sane.get(name);
    if (raw === null) continue;
    const count = decimal(raw);
    if (count === null || !Number.isInteger(count)) sane.delete(name);
  }
  const reset = sane.get(RESET_HEADER);
  if (reset !== null && decimal(reset) === null) sane.delete(RESET_HEADER);
  return sane;
}

type MakeRequest = RESTOptions['makeRequest'];

/** discord.js's request function with the rate-limit headers of every answer made safe (see saneRateLimitHeaders). */
export function withSaneRateLimits(makeRequest: MakeRequest = DefaultRestOptions.makeRequest, maxWaitS = MAX_RATE_LIMIT_WAIT_S): MakeRequest {
  return async (url, init) => {
    const response = await makeRequest(url, init);
    const headers = saneRateLimitHeaders(response.headers, maxWaitS);
    const sane: ResponseLike = {
      body: response.body,
      get bodyUsed() {
        return response.bodyUsed;
      },
      headers,
      ok: response.ok,
      status: response.status,
      statusText: response.statusText,
      arrayBuffer: () => response.arrayBuffer(),
      json: () => response.json(),
      text: () => response.text(),
    };
    return sane;
  };
}
