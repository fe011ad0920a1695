/** What the three lookups (entry, history, find) share: the adapter's parts, and the steps common to each lookup. */
import type { AdapterCounters } from './adapter-counters.ts';
import type { WotdCache } from './cache.ts';
import { parseAnyDate, type IsoDate } from './dates.ts';
import type { Endpoint, EndpointLimiters } from './endpoint-limiters.ts';
import { WotdError, isWotdError } from './errors.ts';
import type { Flight } from './flight.ts';
import type { Lookup, LookupOptions } from './lookup.ts';
import type { MirrorReader } from './mirror/mirror-holder.ts';
import type { SharedFlights } from './shared-flights.ts';
import type { UpstreamRequester } from './upstream-request.ts';
import type { VariantDetector } from './variant-detection.ts';

export interface LookupContext {
  readonly cache: WotdCache;
  readonly variants: VariantDetector;
  readonly upstream: UpstreamRequester;
  readonly flights: SharedFlights;
  readonly limiters: EndpointLimiters;
  readonly counters: AdapterCounters;
  /** The database mirror, when one is in use: past days it covers are answered from it. */
  readonly mirror: MirrorReader | null;
  /** Days a history request asks for at least (options.readAhead, at most MAX_HISTORY_LIMIT). */
  readonly readAhead: number;
  today(): IsoDate;
}

export type Outcome<T> = { kind: 'ok'; value: T } | { kind: 'not_found'; message: string };

/** A date from a caller: real, and not after today. */
export function checkDate(date: IsoDate, today: IsoDate): IsoDate {
  const day = parseAnyDate(String(date));
  if (day === null) throw new WotdError('invalid_input', `"${date}" is not a real date; write it as YYYY-MM-DD or DD-MM-YYYY`);
  if (day > today) throw new WotdError('future_date', `${day} is in the future; today is ${today} (UTC)`);
  return day;
}

export function hit<T>(ctx: LookupContext, value: T): Lookup<T> {
  ctx.counters.cacheHits++;
  return { value, stale: false, fromCache: true };
}

/** An answer from the database mirror: a cache hit, counted as the mirror's too. */
export function mirrorHit<T>(ctx: LookupContext, value: T): Lookup<T> {
  ctx.counters.mirrorHits++;
  return hit(ctx, value);
}

/** Runs the upstream path; when it fails for a reason other than "not found" and a stale value exists, serves that. */
export async function withStale<T>(ctx: LookupContext, stale: T | undefined, fetch: () => Promise<Outcome<T>>): Promise<Outcome<Lookup<T>>> {
  ctx.counters.cacheMisses++;
  try {
    const outcome = await fetch();
    if (outcome.kind === 'not_found') return outcome;
    return { kind: 'ok', value: { value: outcome.value, stale: false, fromCache: false } };
  } catch (error) {
    if (stale !== undefined && isWotdError(error) && error.code !== 'invalid_input' && error.code !== 'future_date') {
      ctx.counters.staleServed++;
      return { kind: 'ok', value: { value: stale, stale: true, fromCache: true } };
    }
    if (isWotdError(error, 'rate_limited')) ctx.counters.busy++;
    throw error;
  }
}

/** Joins the identical operation under way, or starts it, bounded by the limiter of `endpoint`. */
export function shared<T>(
  ctx: LookupContext,
  key: string,
  endpoint: Endpoint,
  options: LookupOptions,
  run: (flight: Flight<T>) => Promise<T>,
): Promise<T> {
  return ctx.flights.run(key, ctx.limiters.for(endpoint), options, run);
}
