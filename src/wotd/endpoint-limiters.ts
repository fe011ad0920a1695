import type { Clock, Timers } from './clock.ts';
import type { WotdError } from './errors.ts';
import { RateLimiter } from './rate-limiter.ts';

export const ENDPOINTS = ['/query', '/query_previous', '/find_wotd'] as const;
/** '/databases': the site's snapshot listing and downloads (the database mirror, src/wotd/mirror/). */
export type Endpoint = (typeof ENDPOINTS)[number] | '/metadata' | '/databases';

export type RateLimitScope = 'service' | 'endpoint';

export interface EndpointLimitersOptions {
  rateLimit?: number;
  rateWindowMs?: number;
  rateLimitScope?: RateLimitScope;
}

/** One limiter for the whole service, or one per endpoint (rateLimitScope 'endpoint'). */
export class EndpointLimiters {
  private readonly limiters = new Map<Endpoint, RateLimiter>();

  constructor(options: EndpointLimitersOptions, now: Clock, timers: Timers) {
    const makeLimiter = () =>
      new RateLimiter({
        limit: options.rateLimit ?? 10,
        windowMs: options.rateWindowMs ?? 60_000,
        now: () => now().getTime(),
        timers,
      });
    const shared = makeLimiter();
    for (const endpoint of ENDPOINTS) this.limiters.set(endpoint, options.rateLimitScope === 'endpoint' ? makeLimiter() : shared);
    // /metadata is only ever the variant probe's last resort: it is counted with /query.
    this.limiters.set('/metadata', this.for('/query'));
    // The mirror's listing and downloads: counted with everything else, or on their own where each endpoint is.
    this.limiters.set('/databases', options.rateLimitScope === 'endpoint' ? makeLimiter() : shared);
  }

  for(endpoint: Endpoint): RateLimiter {
    const limiter = this.limiters.get(endpoint);
    if (!limiter) throw new Error(`no rate limiter for ${endpoint}`);
    return limiter;
  }

  /** Each distinct limiter once (a shared one serves every endpoint). */
  distinct(): Set<RateLimiter> {
    return new Set(this.limiters.values());
  }

  close(error: WotdError): void {
    for (const limiter of this.distinct()) limiter.close(error);
  }
}
