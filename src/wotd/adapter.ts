/**
 * The cached, rate-limited Word-of-the-Day adapter: the one way the bot and the CLI reach the service.
 *
 * `createWotdAdapter(options)`:
 * - `baseUrl` (required): the service, e.g. https://api.wotd.site.
 * - `store` (required): a Keyv for the cache (see openStore); `ownsStore: true` disconnects it on close().
 * - `variant`: 'A' (YYYY-MM-DD), 'B' (DD-MM-YYYY) or 'auto' (default). A date the bot sends in the wrong format
 *   gets no error from variant B (a 404 or an empty page), so the variant is verified before a negative answer
 *   is trusted: 'auto' asks a dateless /query (then /query_previous, then /metadata) before its first dated
 *   request and remembers the answer in the store for a day; a configured variant is verified by the dates in
 *   the service's answers, or by the same probe when the first answer is negative. A configured variant the
 *   service contradicts is reported once through `onWarning` and corrected.
 * - `rateLimit` (10) requests in any `rateWindowMs` (60 000); a slot counts from sending until one window after
 *   the answer. Queued requests go scheduled > interactive > background. `rateLimitScope` 'service' (default)
 *   counts all endpoints together, as the published limit says; 'endpoint' gives each endpoint its own budget,
 *   as the real deployments count (30 a minute over the three), for a service known to do so.
 * - `maxWaitMs`: default bound per priority on the limiter wait (none unless given); a lookup's own
 *   `maxWaitMs` wins. Past the bound a lookup fails with `rate_limited` and `retryAt`, or is served stale.
 * - `timeoutMs` (5000) per request; `retries` (2) extra attempts for 5xx, timeouts and connection errors,
 *   `retryDelayMs` (250) base of an exponential back-off with jitter. 4xx are never retried.
 *   A 429 pauses every request for its Retry-After, or `pauseAfter429Ms` (60 000, the service's window) without
 *   one, then the request queues once more. A 503 with a Retry-After pauses every request until then before its
 *   retry. Every Retry-After, on either, is clamped to MAX_RETRY_AFTER_MS (5 minutes) where it is parsed.
 *   Redirects are followed only within the service's origin (at most MAX_REDIRECTS); see http-client.ts.
 *   An answer over 256 KiB (see http-client.ts) is refused unread, as a bad answer.
 * - `readAhead` (8): a missing past date is fetched as `query_previous` of that many days ending on it, so one
 *   request fills a week of cache; 0 asks `/query` for that date alone.
 * - `ttls`: see cache.ts (today 15 min, recent 404 5 min, old 404 6 h, find 1 h); `memoryRecords` (20 000)
 *   records kept in memory in front of the store.
 * - `now`, `timers`, `fetch`, `random`: injectable clock, timers, HTTP and jitter for tests and the benchmark.
 * - `budget`: a request budget shared with other processes (cluster mode, see src/cluster/), taken after this
 *   process's own limiter and before sending; `budgetWaitMs` bounds the wait for it per priority (interactive 8 s,
 *   background 30 s, scheduled 5 min), after which the lookup is "busy".
 * - `mirror`: the database mirror (src/wotd/mirror/): past days it covers are answered from it, for every lookup;
 *   today and the days it lacks go to the service as before.
 * - `onRequest(event)`: called after every upstream attempt (logging, counting); `onWarning(message)` once when
 *   the configured variant turns out wrong; `onStoreError(error)` when the
 *   cache store fails (lookups then go on without it: reads count as misses, writes stay in memory).
 *
 * `openWotdAdapter(config, overrides)` builds one from the settings (WOTD_API_URL, default the public service;
 * WOTD_API_VARIANT, WOTD_RATE_LIMIT, WOTD_RATE_LIMIT_SCOPE, WOTD_TIMEOUT_MS, STORE_URL).
 *
 * This file is the facade; the parts live beside it: variant-detection.ts, entry-lookup.ts, history-lookup.ts and
 * find-lookup.ts (the three lookups), find-merge.ts, history-read-ahead.ts, shared-flights.ts (coalescing and the
 * busy bound), upstream-request.ts (limiter, budget, retries and the 429/503 pauses), endpoint-limiters.ts.
 */
import type Keyv from 'keyv';
import type { Config } from '../config/settings.ts';
import { openStore, storeCheck, storeLocation } from '../store/open-store.ts';
import type { StoreCheck } from '../store/store-watch.ts';
import { createCounters, type AdapterCounters } from './adapter-counters.ts';
import { WotdCache, type CacheTtls } from './cache.ts';
import { systemClock, systemTimers, type Clock, type Timers } from './clock.ts';
import { utcDateOf, type IsoDate, type Variant } from './dates.ts';
import { EndpointLimiters, type EndpointLimitersOptions } from './endpoint-limiters.ts';
import type { Entry } from './entry.ts';
import { WotdError } from './errors.ts';
import { findWord } from './find-lookup.ts';
import { getEntry } from './entry-lookup.ts';
import { getPrevious, MAX_HISTORY_LIMIT } from './history-lookup.ts';
import type { HistoryPage, Lookup, LookupOptions, Priority, WordMatches, WotdLookup } from './lookup.ts';
import type { LookupContext } from './lookup-context.ts';
import { SharedFlights } from './shared-flights.ts';
import type { MirrorReader } from './mirror/mirror-holder.ts';
import { UpstreamRequester, type SiteAnswer, type SiteRequester, type UpstreamRequestOptions } from './upstream-request.ts';
import { VariantDetector } from './variant-detection.ts';

export const DEFAULT_API_URL = 'https://api.wotd.site';
const CACHE_NAMESPACE = 'wotd-cache';

/** Limiter and request settings are documented with the parts that use them (see the list above). */
export interface WotdAdapterOptions extends EndpointLimitersOptions, UpstreamRequestOptions {
  baseUrl: string;
  store: Keyv;
  ownsStore?: boolean;
  variant?: Variant | 'auto';
  maxWaitMs?: Partial<Record<Priority, number>>;
  readAhead?: number;
  ttls?: Partial<CacheTtls>;
  memoryRecords?: number;
  now?: Clock;
  timers?: Timers;
  mirror?: MirrorReader;
  /** The configured variant disagrees with the service's answers (said once; the adapter corrects itself). */
  onWarning?: (message: string) => void;
  /** The cache store failed; the lookup went on without it. */
  onStoreError?: (error: unknown) => void;
}

export interface AdapterStats extends AdapterCounters {
  /** Limiter tickets waiting for a slot, and lookups waiting on them. */
  queued: number;
  waitingLookups: number;
  inFlight: number;
}

/** How much the adapter holds in memory; each is bounded (see README "What the bot keeps"). */
export interface AdapterFootprint {
  /** Upstream operations under way or queued, each shared by its callers. */
  flights: number;
  /** Limiter tickets waiting, and requests remembered in the limiters' current windows. */
  limiterQueue: number;
  limiterWindow: number;
  cacheMemoryRecords: number;
  cacheIndexedWords: number;
}

export interface WotdAdapter extends WotdLookup, SiteRequester {
  /** The service's variant: as configured (until the service contradicts it), or detected; null until an 'auto'
   * adapter has verified it. */
  readonly variant: Variant | null;
  stats(): AdapterStats;
  /** The cache's store, for /healthz and the metrics. */
  storeChecks(): StoreCheck[];
  footprint(): AdapterFootprint;
  /** Resolves when background upkeep of the cache (a sweep of expired records) under way has finished. */
  settled(): Promise<void>;
  /** Rejects queued lookups, stops timers, lets a cache sweep finish and (if owned) disconnects the store. */
  close(): Promise<void>;
}

export async function createWotdAdapter(options: WotdAdapterOptions): Promise<WotdAdapter> {
  const now = options.now ?? systemClock;
  // Keyv without throwOnErrors swallows a store's failures (reads come back empty) and reports them as 'error'
  // events; with it (every store on Redis), the cache hears of each failure itself.
  if (options.onStoreError && !options.store.throwOnErrors) options.store.on('error', options.onStoreError);
  const cache = await WotdCache.open(options.store, {
    now: () => now().getTime(),
    ...(options.ttls ? { ttls: options.ttls } : {}),
    ...(options.memoryRecords !== undefined ? { memoryRecords: options.memoryRecords } : {}),
    ...(options.onStoreError ? { onStoreError: options.onStoreError } : {}),
  });
  return new Adapter(options, cache);
}

/** The adapter from validated settings; `overrides` win (tests, the CLI's --api-url and --variant). */
export async function openWotdAdapter(config: Config, overrides: Partial<WotdAdapterOptions> = {}): Promise<WotdAdapter> {
  const store = overrides.store ?? (await openStore(storeLocation(config), CACHE_NAMESPACE));
  return createWotdAdapter({
    baseUrl: config.WOTD_API_URL ?? DEFAULT_API_URL,
    variant: config.WOTD_API_VARIANT,
    rateLimit: config.WOTD_RATE_LIMIT,
    rateLimitScope: config.WOTD_RATE_LIMIT_SCOPE,
    timeoutMs: config.WOTD_TIMEOUT_MS,
    ownsStore: overrides.store === undefined,
    ...overrides,
    store,
  });
}

/** The facade: builds the parts and hands each lookup the context they share. */
class Adapter implements WotdAdapter {
  private readonly ctx: LookupContext;
  private closed = false;

  constructor(
    private readonly options: WotdAdapterOptions,
    cache: WotdCache,
  ) {
    const now = options.now ?? systemClock;
    const timers = options.timers ?? systemTimers;
    const baseUrl = options.baseUrl.replace(/\/+$/, '');
    const today = (): IsoDate => utcDateOf(now());
    const counters = createCounters();
    const limiters = new EndpointLimiters(options, now, timers);
    const variants: VariantDetector = new VariantDetector({
      configured: options.variant ?? 'auto',
      baseUrl,
      cache,
      today,
      ask: (flight, path, params) => upstream.request(flight, path, params, false),
      ...(options.onWarning ? { onWarning: options.onWarning } : {}),
    });
    const upstream: UpstreamRequester = new UpstreamRequester(options, baseUrl, limiters, variants, counters, now, timers);
    this.ctx = {
      cache,
      variants,
      upstream,
      flights: new SharedFlights(options.maxWaitMs, counters, now, timers),
      limiters,
      counters,
      mirror: options.mirror ?? null,
      readAhead: Math.min(MAX_HISTORY_LIMIT, options.readAhead ?? MAX_HISTORY_LIMIT),
      today,
    };
  }

  get variant(): Variant | null {
    return this.ctx.variants.variant;
  }

  today(): IsoDate {
    return this.ctx.today();
  }

  stats(): AdapterStats {
    let queued = 0;
    let inFlight = 0;
    for (const limiter of this.ctx.limiters.distinct()) {
      queued += limiter.queued;
      inFlight += limiter.active;
    }
    return { ...this.ctx.counters, queued, waitingLookups: this.ctx.flights.waitingLookups(), inFlight };
  }

  storeChecks(): StoreCheck[] {
    return [storeCheck(this.options.store)];
  }

  footprint(): AdapterFootprint {
    let limiterQueue = 0;
    let limiterWindow = 0;
    for (const limiter of this.ctx.limiters.distinct()) {
      limiterQueue += limiter.queued;
      limiterWindow += limiter.remembered;
    }
    const cache = this.ctx.cache.footprint();
    return { flights: this.ctx.flights.size, limiterQueue, limiterWindow, cacheMemoryRecords: cache.memoryRecords, cacheIndexedWords: cache.indexedWords };
  }

  settled(): Promise<void> {
    return this.ctx.cache.settled();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.ctx.flights.close();
    this.ctx.limiters.close(new WotdError('unavailable', 'The Word-of-the-Day adapter was closed'));
    await this.ctx.cache.settled();
    if (this.options.ownsStore) await this.options.store.disconnect();
  }

  getEntry(date?: IsoDate, options: LookupOptions = {}): Promise<Lookup<Entry>> {
    return getEntry(this.ctx, date, options);
  }

  getPrevious(date: IsoDate | undefined, limit: number, options: LookupOptions = {}): Promise<Lookup<HistoryPage>> {
    return getPrevious(this.ctx, date, limit, options);
  }

  findWord(word: string, options: LookupOptions = {}): Promise<Lookup<WordMatches>> {
    return findWord(this.ctx, word, options);
  }

  async suggestWords(prefix: string, limit: number): Promise<string[]> {
    const count = Math.max(0, Math.min(25, Math.floor(limit)));
    const cached = this.ctx.cache.suggest(prefix, count);
    const mirrored = this.ctx.mirror?.current()?.suggest(prefix, count) ?? [];
    if (mirrored.length === 0) return cached;
    const byWord = new Map<string, string>();
    for (const word of [...mirrored, ...cached]) if (!byWord.has(word.toLowerCase())) byWord.set(word.toLowerCase(), word);
    return [...byWord.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, count).map(([, word]) => word);
  }

  siteRequest<T extends SiteAnswer>(path: string, priority: Priority, maxWaitMs: number, send: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new WotdError('unavailable', 'The Word-of-the-Day adapter was closed'));
    return this.ctx.upstream.siteRequest(path, priority, maxWaitMs, send);
  }
}
