/**
 * Discord's two rate-limit layers.
 * - Global: at most N requests per second per bot token, counted in fixed one-second windows (epoch-aligned), so the
 *   recording's per-second counters and the limiter agree exactly. Interaction endpoints are exempt.
 * - Route buckets: a route (e.g. "POST /channels/:id/messages") plus its major parameter gets `limit` requests per
 *   `windowMs`, the window starting at the first request, as Discord reports through the X-RateLimit-* headers.
 */

export interface BucketRule {
  limit: number;
  windowMs: number;
}

export interface BucketVerdict {
  /** The headers to send with the response (on 2xx and on 429 alike). */
  headers: Record<string, string>;
  /** Set when the bucket is exhausted; seconds until it resets. */
  retryAfter?: number;
}

export class GlobalLimiter {
  /** Admitted requests per epoch second; a few seconds are kept because requests are judged by arrival time. */
  private readonly used = new Map<number, number>();

  constructor(readonly perSecond: number) {}

  /** Takes a slot in the window of `at`, or returns seconds until that window ends when it is full. */
  take(at: number): { ok: true } | { ok: false; retryAfter: number } {
    const window = Math.floor(at / 1000);
    for (const old of this.used.keys()) if (old < window - 5) this.used.delete(old);
    const used = this.used.get(window) ?? 0;
    if (used >= this.perSecond) {
      return { ok: false, retryAfter: Math.max(0.001, ((window + 1) * 1000 - Math.max(at, Date.now())) / 1000) };
    }
    this.used.set(window, used + 1);
    return { ok: true };
  }
}

interface BucketState {
  used: number;
  resetAt: number;
}

export class BucketLimiter {
  private readonly states = new Map<string, BucketState>();

  /**
   * @param hash the bucket id Discord shares between routes with one limit (sent as X-RateLimit-Bucket)
   * @param major the major parameter (channel, guild or webhook id) that splits a bucket
   */
  take(hash: string, major: string, rule: BucketRule, now: number): BucketVerdict {
    const key = `${hash}:${major}`;
    let state = this.states.get(key);
    if (!state || now >= state.resetAt) {
      state = { used: 0, resetAt: now + rule.windowMs };
      this.states.set(key, state);
    }
    const resetAfter = (state.resetAt - now) / 1000;
    const headers = (remaining: number): Record<string, string> => ({
      'X-RateLimit-Limit': String(rule.limit),
      'X-RateLimit-Remaining': String(remaining),
      'X-RateLimit-Reset': (state.resetAt / 1000).toFixed(3),
      'X-RateLimit-Reset-After': resetAfter.toFixed(3),
      'X-RateLimit-Bucket': hash,
    });
    if (state.used >= rule.limit) return { headers: headers(0), retryAfter: Math.max(0.001, resetAfter) };
    state.used += 1;
    return { headers: headers(rule.limit - state.used) };
  }
}

/** Who a 429 is for: this bot on this route (user), every route (global), or everyone on a shared resource (shared). */
export type RateLimitScope = 'user' | 'global' | 'shared';

/**
 * A 429 as Discord sends it: the body ({ message, retry_after in seconds with a fraction, global, code }) and the
 * headers (Retry-After in whole seconds rounded up, X-RateLimit-Scope, X-RateLimit-Global on a global limit, and a
 * bucket's X-RateLimit-* for the other two). Discord's description makes `code` required; an ordinary limit's is 0.
 */
export function rateLimitAnswer(
  scope: RateLimitScope,
  retryAfterSeconds: number,
  bucketHeaders: Record<string, string> = {},
): { status: 429; body: Record<string, unknown>; headers: Record<string, string> } {
  const seconds = Math.max(0.001, retryAfterSeconds);
  const headers: Record<string, string> =
    scope === 'global'
      ? { 'Retry-After': String(Math.ceil(seconds)), 'X-RateLimit-Global': 'true', 'X-RateLimit-Scope': 'global' }
      : { ...bucketHeaders, 'Retry-After': String(Math.ceil(seconds)), 'X-RateLimit-Scope': scope };
  const message = scope === 'shared' ? 'The resource is being rate limited.' : 'You are being rate limited.';
  return { status: 429, body: { message, retry_after: Number(seconds.toFixed(3)), global: scope === 'global', code: 0 }, headers };
}

/** Every route's bucket unless it says otherwise. */
export const DEFAULT_RULE: BucketRule = { limit: 50, windowMs: 1000 };
/** Interaction webhooks: per webhook id and token. */
export const WEBHOOK_RULE: BucketRule = { limit: 5, windowMs: 2000 };
/** Discord lets a channel publish 10 messages an hour. */
export const CROSSPOST_RULE: BucketRule = { limit: 10, windowMs: 3_600_000 };

/** The X-RateLimit-Bucket of a route: a stable hash of its template. */
export function bucketHash(template: string): string {
  let h = 0x811c9dc5;
  for (const ch of template) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}
