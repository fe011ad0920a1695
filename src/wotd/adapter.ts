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
 * - `onRequest(event)`: called after every upstream attempt (logging, counting); `onWarning(message)` once when
 *   the configured variant turns out wrong; `onStoreError(error)` when the
 *   cache store fails (lookups then go on without it: reads count as misses, writes stay in memory).
 *
 * `openWotdAdapter(config, overrides)` builds one from the settings (WOTD_API_URL, default the public service;
 * WOTD_API_VARIANT, WOTD_RATE_LIMIT, WOTD_RATE_LIMIT_SCOPE, WOTD_TIMEOUT_MS, STORE_URL).
 */
import type Keyv from 'keyv';
import type { Config } from '../config/settings.ts';
import { openStore, storeCheck, storeLocation } from '../store/open-store.ts';
import type { StoreCheck } from '../store/store-watch.ts';
import { systemClock, systemTimers, sleep, type Clock, type Timers } from './clock.ts';
import { WotdCache, type CacheTtls } from './cache.ts';
import { addDays, parseAnyDate, toWireDate, utcDateOf, wireFormat, type IsoDate, type Variant } from './dates.ts';
import type { Entry } from './entry.ts';
import { WotdError, isWotdError } from './errors.ts';
import { Flight, FlightAbandoned } from './flight.ts';
import { getJson, type Attempt, type FetchLike } from './http-client.ts';
import type { HistoryPage, Lookup, LookupOptions, Priority, WordMatches, WotdLookup } from './lookup.ts';
import { RateLimiter } from './rate-limiter.ts';
import type { UpstreamBudget, UpstreamSlot } from './upstream-budget.ts';
import { upstreamResult, type UpstreamResult } from './upstream-result.ts';
import { parseEntry, parseFind, parsePrevious, sniffVariant } from './wire.ts';

export const DEFAULT_API_URL = 'https://api.wotd.site';
export const MAX_HISTORY_LIMIT = 8;
export const MAX_WORD_LENGTH = 100;
/** Pause after a 429 that carries no Retry-After: the service's window is 60 s. */
const DEFAULT_429_PAUSE_MS = 60_000;
const DEFAULT_BUDGET_WAIT_MS: Record<Priority, number> = { scheduled: 5 * 60_000, interactive: 8_000, background: 30_000 };
const CACHE_NAMESPACE = 'wotd-cache';
const ENDPOINTS = ['/query', '/query_previous', '/find_wotd'] as const;
type Endpoint = (typeof ENDPOINTS)[number] | '/metadata';

export type RateLimitScope = 'service' | 'endpoint';

export interface UpstreamEvent {
  path: string;
  query: Record<string, string>;
  outcome: Attempt['kind'];
  /** The same, finer: 4xx, 5xx, timeout and network failures told apart (for the metrics). */
  result: UpstreamResult;
  /** What went wrong, for outcomes other than ok and rate_limited. */
  detail?: string;
  /** Real milliseconds the attempt took. */
  elapsedMs: number;
}

export interface WotdAdapterOptions {
  baseUrl: string;
  store: Keyv;
  ownsStore?: boolean;
  variant?: Variant | 'auto';
  rateLimit?: number;
  rateWindowMs?: number;
  rateLimitScope?: RateLimitScope;
  budget?: UpstreamBudget;
  budgetWaitMs?: Partial<Record<Priority, number>>;
  maxWaitMs?: Partial<Record<Priority, number>>;
  timeoutMs?: number;
  retries?: number;
  retryDelayMs?: number;
  /** How long a 429 without Retry-After holds every request back (default 60 000: the service's window). */
  pauseAfter429Ms?: number;
  readAhead?: number;
  ttls?: Partial<CacheTtls>;
  memoryRecords?: number;
  now?: Clock;
  timers?: Timers;
  fetch?: FetchLike;
  random?: () => number;
  onRequest?: (event: UpstreamEvent) => void;
  /** The configured variant disagrees with the service's answers (said once; the adapter corrects itself). */
  onWarning?: (message: string) => void;
  /** The cache store failed; the lookup went on without it. */
  onStoreError?: (error: unknown) => void;
}

export interface AdapterStats {
  lookups: number;
  /** Answered from a fresh cached value (or a remembered 404) without an upstream request. */
  cacheHits: number;
  /** Not answered from the cache: went (or joined a request going) to the service, perhaps to be served stale. */
  cacheMisses: number;
  /** Joined an identical request already under way. */
  coalesced: number;
  staleServed: number;
  /** Upstream attempts sent, retries included. */
  upstreamRequests: number;
  upstream429: number;
  /** Lookups that failed with rate_limited (busy) and had nothing stale to serve. */
  busy: number;
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

export interface WotdAdapter extends WotdLookup {
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

type Outcome<T> = { kind: 'ok'; value: T } | { kind: 'not_found'; message: string };

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

class Adapter implements WotdAdapter {
  private readonly now: Clock;
  private readonly timers: Timers;
  /** One limiter for the whole service, or one per endpoint (rateLimitScope 'endpoint'). */
  private readonly limiters = new Map<Endpoint, RateLimiter>();
  private readonly flights = new Map<string, Flight<unknown>>();
  private readonly baseUrl: string;
  /** Days a history request asks for at least (options.readAhead, at most MAX_HISTORY_LIMIT). */
  private readonly readAhead: number;
  private readonly configured: Variant | 'auto';
  /** The date format requests go out in: configured, guessed or verified. */
  private current: Variant;
  /** The service's own answers (or the store's record of them) showed `current` to be its format. */
  private verified = false;
  private probing: Promise<Variant | null> | null = null;
  private warned = false;
  private closed = false;
  private readonly counters = { lookups: 0, cacheHits: 0, cacheMisses: 0, coalesced: 0, staleServed: 0, upstreamRequests: 0, upstream429: 0, busy: 0 };

  constructor(
    private readonly options: WotdAdapterOptions,
    private readonly cache: WotdCache,
  ) {
    this.now = options.now ?? systemClock;
    this.timers = options.timers ?? systemTimers;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.readAhead = Math.min(MAX_HISTORY_LIMIT, options.readAhead ?? MAX_HISTORY_LIMIT);
    this.configured = options.variant ?? 'auto';
    this.current = this.configured === 'auto' ? 'A' : this.configured;
    const makeLimiter = () =>
      new RateLimiter({
        limit: options.rateLimit ?? 10,
        windowMs: options.rateWindowMs ?? 60_000,
        now: () => this.now().getTime(),
        timers: this.timers,
      });
    const shared = makeLimiter();
    for (const endpoint of ENDPOINTS) this.limiters.set(endpoint, options.rateLimitScope === 'endpoint' ? makeLimiter() : shared);
    // /metadata is only ever the variant probe's last resort: it is counted with /query.
    this.limiters.set('/metadata', this.limiterFor('/query'));
  }

  private limiterFor(endpoint: Endpoint): RateLimiter {
    const limiter = this.limiters.get(endpoint);
    if (!limiter) throw new Error(`no rate limiter for ${endpoint}`);
    return limiter;
  }

  get variant(): Variant | null {
    return this.configured === 'auto' && !this.verified ? null : this.current;
  }

  today(): IsoDate {
    return utcDateOf(this.now());
  }

  stats(): AdapterStats {
    let waitingLookups = 0;
    for (const flight of this.flights.values()) if (flight.waiting) waitingLookups += flight.callerCount;
    let queued = 0;
    let inFlight = 0;
    for (const limiter of new Set(this.limiters.values())) {
      queued += limiter.queued;
      inFlight += limiter.active;
    }
    return { ...this.counters, queued, waitingLookups, inFlight };
  }

  storeChecks(): StoreCheck[] {
    return [storeCheck(this.options.store)];
  }

  footprint(): AdapterFootprint {
    let limiterQueue = 0;
    let limiterWindow = 0;
    for (const limiter of new Set(this.limiters.values())) {
      limiterQueue += limiter.queued;
      limiterWindow += limiter.remembered;
    }
    const cache = this.cache.footprint();
    return { flights: this.flights.size, limiterQueue, limiterWindow, cacheMemoryRecords: cache.memoryRecords, cacheIndexedWords: cache.indexedWords };
  }

  settled(): Promise<void> {
    return this.cache.settled();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const error = new WotdError('unavailable', 'The Word-of-the-Day adapter was closed');
    for (const limiter of new Set(this.limiters.values())) limiter.close(error);
    await this.cache.settled();
    if (this.options.ownsStore) await this.options.store.disconnect();
  }

  async getEntry(date?: IsoDate, options: LookupOptions = {}): Promise<Lookup<Entry>> {
    this.counters.lookups++;
    const today = this.today();
    const day = date === undefined ? today : this.checkDate(date, today);
    const cached = await this.cache.getEntry(day);
    if (cached?.fresh) return this.hit(cached.value);
    if (!cached && (await this.cache.isKnownMissing(day))) {
      this.counters.cacheHits++;
      throw notFoundForDate(day);
    }
    const endpoint = this.readAhead >= 2 && day < today ? '/query_previous' : '/query';
    const outcome = await this.withStale(cached?.value, () =>
      this.shared(`entry:${day}`, endpoint, options, (flight) => this.fetchEntry(flight, day, today)),
    );
    if (outcome.kind === 'not_found') throw notFoundForDate(day);
    return outcome.value;
  }

  async getPrevious(date: IsoDate | undefined, limit: number, options: LookupOptions = {}): Promise<Lookup<HistoryPage>> {
    this.counters.lookups++;
    const today = this.today();
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_LIMIT) {
      throw new WotdError('invalid_input', `The history limit must be a whole number from 1 to ${MAX_HISTORY_LIMIT}`);
    }
    const before = date === undefined ? today : this.checkDate(date, today);
    const fromCache = await this.historyFromCache(before, limit);
    if (fromCache?.fresh) return this.hit(fromCache.page);
    const fetchLimit = Math.max(limit, this.readAhead);
    const outcome = await this.withStale(fromCache?.page, () =>
      this.shared(`prev:${before}:${fetchLimit}`, '/query_previous', options, (flight) => this.fetchPrevious(flight, before, fetchLimit, today)),
    );
    if (outcome.kind === 'not_found') return { value: { entries: [], hasMore: false }, stale: false, fromCache: false };
    const page = outcome.value.value;
    return { ...outcome.value, value: { entries: page.entries.slice(0, limit), hasMore: page.entries.length > limit || page.hasMore } };
  }

  async findWord(word: string, options: LookupOptions = {}): Promise<Lookup<WordMatches>> {
    this.counters.lookups++;
    const typed = word.trim();
    if (typed === '') throw new WotdError('invalid_input', 'Give a word to look for');
    if (typed.length > MAX_WORD_LENGTH) {
      throw new WotdError('invalid_input', `A word can be at most ${MAX_WORD_LENGTH} characters long`);
    }
    const today = this.today();
    const cached = await this.cache.getFind(typed);
    if (cached?.fresh) return this.hit(await this.withKnownDates(typed, cached.value, today));
    const outcome = await this.withStale(cached?.value, () =>
      this.shared(`find:${typed.toLowerCase()}`, '/find_wotd', options, (flight) => this.fetchFind(flight, typed, today)),
    );
    if (outcome.kind === 'not_found') throw notFoundForWord(typed);
    return { ...outcome.value, value: await this.withKnownDates(typed, outcome.value.value, today) };
  }

  /**
   * The service's matches with every other cached entry of the word (a deployment that reports one date leaves
   * the later ones to what the bot has seen), newest first, none after today.
   */
  private async withKnownDates(word: string, found: WordMatches, today: IsoDate): Promise<WordMatches> {
    const lower = word.toLowerCase();
    const byDate = new Map<IsoDate, Entry>();
    for (const entry of [...found.entries, ...(await this.cache.knownEntries(lower))]) {
      if (entry.date <= today && entry.word.toLowerCase() === lower && !byDate.has(entry.date)) byDate.set(entry.date, entry);
    }
    const entries = [...byDate.values()].sort((a, b) => (a.date < b.date ? 1 : -1));
    return { entries, complete: found.complete };
  }

  async suggestWords(prefix: string, limit: number): Promise<string[]> {
    return this.cache.suggest(prefix, Math.max(0, Math.min(25, Math.floor(limit))));
  }

  private checkDate(date: IsoDate, today: IsoDate): IsoDate {
    const day = parseAnyDate(String(date));
    if (day === null) throw new WotdError('invalid_input', `"${date}" is not a real date; write it as YYYY-MM-DD or DD-MM-YYYY`);
    if (day > today) throw new WotdError('future_date', `${day} is in the future; today is ${today} (UTC)`);
    return day;
  }

  private hit<T>(value: T): Lookup<T> {
    this.counters.cacheHits++;
    return { value, stale: false, fromCache: true };
  }

  /** Runs the upstream path; when it fails for a reason other than "not found" and a stale value exists, serves that. */
  private async withStale<T>(stale: T | undefined, fetch: () => Promise<Outcome<T>>): Promise<Outcome<Lookup<T>>> {
    this.counters.cacheMisses++;
    try {
      const outcome = await fetch();
      if (outcome.kind === 'not_found') return outcome;
      return { kind: 'ok', value: { value: outcome.value, stale: false, fromCache: false } };
    } catch (error) {
      if (stale !== undefined && isWotdError(error) && error.code !== 'invalid_input' && error.code !== 'future_date') {
        this.counters.staleServed++;
        return { kind: 'ok', value: { value: stale, stale: true, fromCache: true } };
      }
      if (isWotdError(error, 'rate_limited')) this.counters.busy++;
      throw error;
    }
  }

  /** Joins the identical operation under way, or starts it; bounds this caller's wait for the limiter. */
  private async shared<T>(
    key: string,
    endpoint: Endpoint,
    options: LookupOptions,
    run: (flight: Flight<T>) => Promise<T>,
  ): Promise<T> {
    if (this.closed) throw new WotdError('unavailable', 'The Word-of-the-Day adapter was closed');
    const priority = options.priority ?? 'interactive';
    const maxWaitMs = options.maxWaitMs ?? this.options.maxWaitMs?.[priority];
    const nowMs = this.now().getTime();
    let flight = this.flights.get(key) as Flight<T> | undefined;
    if (flight) {
      this.counters.coalesced++;
    } else {
      if (maxWaitMs !== undefined) {
        const start = this.limiterFor(endpoint).estimateStart(priority);
        if (start - nowMs > maxWaitMs) throw busy(start);
      }
      const created = new Flight<T>(priority, run);
      flight = created;
      this.flights.set(key, created);
      const forget = (): void => {
        if (this.flights.get(key) === created) this.flights.delete(key);
      };
      created.result.then(forget, forget);
    }
    flight.join(priority);
    if (maxWaitMs === undefined) {
      try {
        return await flight.result;
      } finally {
        flight.leave();
      }
    }
    const estimate = flight.estimate();
    if (estimate !== null && estimate - nowMs > maxWaitMs) {
      flight.leave();
      if (flight.isAbandoned && this.flights.get(key) === flight) this.flights.delete(key);
      throw busy(estimate);
    }
    return this.boundedWait(key, flight, maxWaitMs);
  }

  private boundedWait<T>(key: string, flight: Flight<T>, maxWaitMs: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const check = (): void => {
        if (settled) return;
        if (!flight.waiting) {
          // Sent (or about to be): from here on only the request timeout bounds the wait.
          timer = this.timers.setTimeout(check, maxWaitMs);
          return;
        }
        settled = true;
        const retryAt = flight.estimate() ?? this.now().getTime();
        flight.leave();
        // A later caller must start afresh rather than join a request that will never be sent.
        if (flight.isAbandoned && this.flights.get(key) === flight) this.flights.delete(key);
        reject(busy(retryAt));
      };
      let timer = this.timers.setTimeout(check, maxWaitMs);
      flight.result.then(
        (value) => {
          if (settled) return;
          settled = true;
          this.timers.clearTimeout(timer);
          flight.leave();
          resolve(value);
        },
        (error: unknown) => {
          if (settled) return;
          settled = true;
          this.timers.clearTimeout(timer);
          flight.leave();
          reject(error);
        },
      );
    });
  }

  private async fetchEntry(flight: Flight<Outcome<Entry>>, day: IsoDate, today: IsoDate): Promise<Outcome<Entry>> {
    if (this.readAhead >= 2 && day < today) {
      // One history request ending on `day` answers it and caches the days before it too.
      const page = await this.requestPrevious(flight, addDays(day, 1), this.readAhead, today);
      const first = page.entries[0];
      if (!first || first.date !== day) {
        if (page.trusted) await this.cache.putMissing(day, today);
        return { kind: 'not_found', message: `no entry for ${day}` };
      }
      return { kind: 'ok', value: first };
    }
    if (this.configured === 'auto' && !this.verified) {
      // The probe asks for today's entry: when that is the day wanted, it is the answer.
      await this.ensureVariant(flight);
      const probed = await this.cache.getEntry(day);
      if (probed?.fresh) return { kind: 'ok', value: probed.value };
    }
    for (;;) {
      const sent = this.current;
      const answer = await this.request(flight, '/query', { date: day }, true);
      if (answer.kind === 'not_found') {
        const trust = await this.trustNegative(flight, sent);
        if (trust === 'retry') continue;
        if (trust === 'trusted') await this.cache.putMissing(day, today);
        return answer;
      }
      const entry = parseEntry(answer.body, this.variantOf(answer.body));
      if (entry.date !== day) throw new WotdError('bad_response', `The service answered ${entry.date} when asked for ${day}`);
      await this.cache.putEntries([entry], today);
      return { kind: 'ok', value: entry };
    }
  }

  private async fetchPrevious(
    flight: Flight<Outcome<HistoryPage>>,
    before: IsoDate,
    limit: number,
    today: IsoDate,
  ): Promise<Outcome<HistoryPage>> {
    const { entries, hasMore } = await this.requestPrevious(flight, before, limit, today);
    return { kind: 'ok', value: { entries, hasMore } };
  }

  /**
   * A history page strictly before `before`. An empty page is believed (and remembered for a while) only when the
   * variant is verified and no cached entry lies before `before`; `trusted` says whether an empty page was.
   */
  private async requestPrevious<T>(
    flight: Flight<T>,
    before: IsoDate,
    limit: number,
    today: IsoDate,
  ): Promise<HistoryPage & { trusted: boolean }> {
    for (;;) {
      const sent = this.current;
      const answer = await this.request(flight, '/query_previous', { date: before, limit: String(limit) }, true);
      const page = answer.kind === 'not_found' ? { entries: [], hasMore: false } : parsePrevious(answer.body, this.variantOf(answer.body), before);
      if (page.entries.length === 0) {
        const trust = await this.trustNegative(flight, sent);
        if (trust === 'retry') continue;
        const earliest = await this.cache.earliestKnown();
        const plausible = earliest === undefined || earliest >= before;
        const trusted = trust === 'trusted' && plausible;
        if (trusted) await this.cache.putBefore(before, false);
        return { entries: [], hasMore: false, trusted };
      }
      const entries = page.entries.slice(0, limit);
      const hasMore = page.hasMore || page.entries.length > limit;
      await this.cache.putEntries(entries, today);
      const oldest = entries.at(-1);
      if (oldest && hasMore) await this.cache.putBefore(oldest.date, true);
      if (oldest && !hasMore && this.verified) await this.cache.putBefore(oldest.date, false);
      return { entries, hasMore, trusted: true };
    }
  }

  /**
   * Searches as the service allows: variant A matches any case but reports only the oldest date; variant B
   * reports every date but matches the exact spelling, so the spelling as typed, in lower case and capitalised
   * are tried in turn. A miss is remembered only under the spellings actually asked.
   */
  private async fetchFind(flight: Flight<Outcome<WordMatches>>, typed: string, today: IsoDate): Promise<Outcome<WordMatches>> {
    const lower = typed.toLowerCase();
    const capitalised = lower.charAt(0).toUpperCase() + lower.slice(1);
    const caseInsensitive = this.current === 'A' && (this.verified || this.configured !== 'auto');
    const spellings = caseInsensitive ? [lower] : [...new Set([typed, lower, capitalised])];
    const missed: string[] = [];
    for (const spelling of spellings) {
      if (await this.cache.isFindMiss(spelling)) continue;
      const answer = await this.request(flight, '/find_wotd', { word: spelling }, false);
      if (answer.kind === 'ok') {
        const single = !Array.isArray(answer.body);
        const all = parseFind(answer.body, this.variantOf(answer.body));
        // An answer about another word is a broken answer, not "never the word": it must not be remembered as a miss.
        const stranger = all.find((entry) => entry.word.toLowerCase() !== lower);
        if (stranger) throw new WotdError('bad_response', `The service answered "${stranger.word}" when asked for "${spelling}"`);
        const entries = all.filter((entry) => entry.date <= today && entry.word.toLowerCase() === lower);
        if (entries.length > 0) {
          const found: WordMatches = { entries, complete: !single };
          await this.cache.putFind(lower, found, today);
          return { kind: 'ok', value: found };
        }
      }
      missed.push(spelling);
      // Variant A matches case-insensitively: one miss answers for every spelling.
      const variant = this.configured === 'auto' ? await this.ensureVariant(flight) : this.current;
      if (variant === 'A') break;
    }
    for (const spelling of missed) await this.cache.putFindMiss(spelling);
    return { kind: 'not_found', message: `no entry for ${typed}` };
  }

  /** The variant a body is written in; a configured variant the body contradicts is corrected (and said once). */
  private variantOf(body: unknown): Variant {
    const sniffed = sniffVariant(body);
    if (sniffed === null) return this.current;
    if (!this.verified || sniffed !== this.current) this.adopt(sniffed);
    return sniffed;
  }

  /** The service was seen to speak `variant`: use it, remember it, and warn once if the setting said otherwise. */
  private adopt(variant: Variant): void {
    if (this.configured !== 'auto' && this.configured !== variant && !this.warned) {
      this.warned = true;
      this.options.onWarning?.(
        `WOTD_API_VARIANT is ${this.configured}, but ${this.baseUrl} writes dates as ${wireFormat(variant)} ` +
          `(variant ${variant}); using ${variant}. Set WOTD_API_VARIANT=${variant} or auto to silence this.`,
      );
    }
    this.current = variant;
    this.verified = true;
    void this.cache.putVariant(this.baseUrl, variant);
  }

  /**
   * Whether a negative answer to a dated request sent in format `sent` can be believed: 'retry' when the variant,
   * now verified, turned out to be another; 'unknown' when the service would not tell.
   */
  private async trustNegative<T>(flight: Flight<T>, sent: Variant): Promise<'trusted' | 'retry' | 'unknown'> {
    const variant = await this.ensureVariant(flight);
    if (variant === null) return 'unknown';
    return variant === sent ? 'trusted' : 'retry';
  }

  /** The verified variant, asking the service once (shared by every lookup) when it is not known yet. */
  private async ensureVariant<T>(flight: Flight<T>): Promise<Variant | null> {
    for (;;) {
      if (this.verified) return this.current;
      if (this.probing) {
        // Another lookup is asking; if its callers give up, ask again on this one's behalf.
        const probe = this.probing;
        try {
          return await probe;
        } catch {
          if (this.probing === probe) this.probing = null;
          continue;
        }
      }
      const remembered = await this.cache.getVariant(this.baseUrl);
      if (remembered) {
        this.adopt(remembered);
        return remembered;
      }
      const probe = this.probe(flight);
      this.probing = probe;
      try {
        return await probe;
      } finally {
        if (this.probing === probe) this.probing = null;
      }
    }
  }

  /**
   * Asks questions whose answers show the date format without sending a date: today's entry, then the page
   * before today, then /metadata (only variant A has it). Null when none of them tells.
   */
  private async probe<T>(flight: Flight<T>): Promise<Variant | null> {
    const today = this.today();
    const entry = await this.request(flight, '/query', {}, false);
    if (entry.kind === 'ok') {
      if (sniffVariant(entry.body) === null) {
        throw new WotdError('bad_response', "The service's entry for today has no date in either known format");
      }
      const variant = this.variantOf(entry.body);
      await this.cache.putEntries([parseEntry(entry.body, variant)], today);
      return variant;
    }
    const page = await this.request(flight, '/query_previous', { limit: '1' }, false);
    if (page.kind === 'ok' && sniffVariant(page.body) !== null) return this.variantOf(page.body);
    const metadata = await this.request(flight, '/metadata', {}, false);
    if (metadata.kind === 'ok' && typeof metadata.body === 'object' && metadata.body !== null && 'version' in metadata.body) {
      this.adopt('A');
      return 'A';
    }
    return null;
  }

  /**
   * One logical request: waits for the endpoint's limiter, sends, retries 5xx and connection failures with
   * back-off, re-queues once after a 429 (having paused that budget). A dated request from an 'auto' adapter first
   * makes sure of the variant. Returns an ok or not-found answer, or throws a WotdError.
   */
  private async request<T>(
    flight: Flight<T>,
    path: Endpoint,
    params: Record<string, string>,
    dated: boolean,
  ): Promise<{ kind: 'ok'; body: unknown } | { kind: 'not_found'; message: string }> {
    if (dated && this.configured === 'auto') await this.ensureVariant(flight);
    const limiter = this.limiterFor(path);
    const retries = this.options.retries ?? 2;
    let failures = 0;
    let rateLimits = 0;
    let reformatted = false;
    for (;;) {
      let permit;
      try {
        permit = await flight.acquire(limiter);
      } catch (error) {
        if (error instanceof FlightAbandoned) throw new WotdError('rate_limited', 'Every caller stopped waiting', new Date(limiter.estimateStart(flight.priority)));
        throw error;
      }
      let slot: UpstreamSlot | null = null;
      if (this.options.budget) {
        const waitMs = this.options.budgetWaitMs?.[flight.priority] ?? DEFAULT_BUDGET_WAIT_MS[flight.priority];
        slot = await this.options.budget.take(path, flight.priority, waitMs).catch(() => null);
        if (!slot) {
          permit.release();
          throw busy(this.now().getTime() + waitMs, 'The Word-of-the-Day service is busy (the shared request budget is spent)');
        }
      }
      const sent = this.current;
      const query: Record<string, string> = { ...params };
      if (dated && query.date !== undefined) query.date = toWireDate(query.date, sent);
      const search = new URLSearchParams(query).toString();
      const url = `${this.baseUrl}${path}${search ? `?${search}` : ''}`;
      const started = performance.now();
      this.counters.upstreamRequests++;
      let attempt: Attempt;
      try {
        attempt = await getJson(url, {
          timeoutMs: this.options.timeoutMs ?? 5000,
          now: this.now().getTime(),
          ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
        });
      } finally {
        permit.release();
        await slot?.answered();
      }
      this.options.onRequest?.({
        path,
        query,
        outcome: attempt.kind,
        result: upstreamResult(attempt),
        elapsedMs: performance.now() - started,
        ...('message' in attempt ? { detail: attempt.message } : {}),
      });
      switch (attempt.kind) {
        case 'ok':
          return attempt;
        case 'not_found':
          return attempt;
        case 'bad_request': {
          if (/future/i.test(attempt.message)) {
            throw new WotdError('future_date', `The service says that date is in the future (${attempt.message})`);
          }
          // Variant A refuses a date in B's format: a configured variant may be the wrong one.
          if (dated && !this.verified && !reformatted && (await this.ensureVariant(flight)) !== sent) {
            reformatted = true;
            continue;
          }
          throw new WotdError('bad_response', `The service rejected the request: ${attempt.message}`);
        }
        case 'rate_limited': {
          this.counters.upstream429++;
          // Retry-After arrives clamped to MAX_RETRY_AFTER_MS (5 minutes) by the HTTP client.
          const until = this.now().getTime() + (attempt.retryAfterMs ?? this.options.pauseAfter429Ms ?? DEFAULT_429_PAUSE_MS);
          limiter.pause(until);
          if (rateLimits++ < 1) continue;
          throw busy(until, 'The Word-of-the-Day service is rate limiting us');
        }
        case 'retryable': {
          // A 503 saying when the service expects to be back: no request goes before then, this one's retry included.
          // (Retry-After arrives clamped to MAX_RETRY_AFTER_MS, 5 minutes, by the HTTP client.)
          if (attempt.retryAfterMs != null) limiter.pause(this.now().getTime() + attempt.retryAfterMs);
          if (failures++ < retries) {
            await sleep(this.timers, this.backoff(failures));
            continue;
          }
          throw new WotdError('unavailable', `The Word-of-the-Day service is unavailable: ${attempt.message}`);
        }
        case 'bad_response':
          throw new WotdError('bad_response', `The Word-of-the-Day service sent a bad answer: ${attempt.message}`);
      }
    }
  }

  private backoff(failures: number): number {
    const base = this.options.retryDelayMs ?? 250;
    const cap = Math.min(base * 2 ** (failures - 1), 5_000);
    return cap / 2 + (this.options.random ?? Math.random)() * (cap / 2);
  }

  /** A history page from cached consecutive days, with `has_more` from the day before them or a remembered flag. */
  private async historyFromCache(before: IsoDate, limit: number): Promise<{ page: HistoryPage; fresh: boolean } | null> {
    // The page's days, newest first, and the day before them (whose entry means there are more).
    const days = Array.from({ length: limit + 1 }, (_, i) => addDays(before, -(i + 1)));
    const cached = await this.cache.getEntries(days);
    const entries: Entry[] = [];
    let fresh = true;
    for (let i = 0; i < limit; i++) {
      const found = cached[i];
      if (!found) {
        const anyBefore = await this.cache.getBefore(addDays(days[i] ?? before, 1));
        if (anyBefore === false) return { page: { entries, hasMore: false }, fresh };
        return null;
      }
      fresh &&= found.fresh;
      entries.push(found.value);
    }
    const oldest = entries.at(-1)?.date ?? before;
    const hasMore = cached[limit] ? true : await this.cache.getBefore(oldest);
    if (hasMore === undefined) return null;
    return { page: { entries, hasMore }, fresh };
  }
}

function busy(retryAtMs: number, message = 'The Word-of-the-Day service is busy'): WotdError {
  const retryAt = new Date(retryAtMs);
  return new WotdError('rate_limited', `${message}; retry at ${retryAt.toISOString()}`, retryAt);
}

function notFoundForDate(day: IsoDate): WotdError {
  return new WotdError('not_found', `There is no word of the day for ${day}`);
}

function notFoundForWord(word: string): WotdError {
  return new WotdError('not_found', `"${word}" has never been the word of the day`);
}
