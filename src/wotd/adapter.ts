/**
 * The cached, rate-limited Word-of-the-Day adapter: the one way the bot and the CLI reach the service.
 *
 * `createWotdAdapter(options)`:
 * - `baseUrl` (required): the service, e.g. https://api.wotd.site.
 * - `store` (required): a Keyv for the cache (see openStore); `ownsStore: true` disconnects it on close().
 * - `variant`: 'A' (YYYY-MM-DD), 'B' (DD-MM-YYYY) or 'auto' (default: taken from the first answer's dates;
 *   dated requests go out as A until then, and a 400 flips the guess once).
 * - `rateLimit` (10) requests in any `rateWindowMs` (60 000) for the whole process; a slot counts from sending
 *   until one window after the answer. Queued requests go scheduled > interactive > background.
 * - `maxWaitMs`: default bound per priority on the limiter wait (none unless given); a lookup's own
 *   `maxWaitMs` wins. Past the bound a lookup fails with `rate_limited` and `retryAt`, or is served stale.
 * - `timeoutMs` (5000) per request; `retries` (2) extra attempts for 5xx, timeouts and connection errors,
 *   `retryDelayMs` (250) base of an exponential back-off with jitter. 4xx are never retried.
 *   A 429 pauses every request for its Retry-After, or 60 s without one, then the request queues once more.
 * - `readAhead` (8): a missing past date is fetched as `query_previous` of that many days ending on it, so one
 *   request fills a week of cache; 0 asks `/query` for that date alone.
 * - `ttls`: see cache.ts (today 15 min, recent 404 5 min, old 404 6 h, find 1 h); `memoryRecords` (20 000)
 *   records kept in memory in front of the store.
 * - `now`, `timers`, `fetch`, `random`: injectable clock, timers, HTTP and jitter for tests and the benchmark.
 * - `onRequest(event)`: called after every upstream attempt (logging, counting); `onStoreError(error)` when the
 *   cache store fails (lookups then go on without it: reads count as misses, writes stay in memory).
 *
 * `openWotdAdapter(config, overrides)` builds one from the settings (WOTD_API_URL, default the public service;
 * WOTD_API_VARIANT, WOTD_RATE_LIMIT, WOTD_TIMEOUT_MS, STORE_URL).
 */
import type Keyv from 'keyv';
import type { Config } from '../config.ts';
import { openStore } from '../store.ts';
import { systemClock, systemTimers, sleep, type Clock, type Timers } from './clock.ts';
import { WotdCache, type CacheTtls } from './cache.ts';
import { addDays, parseAnyDate, toWireDate, utcDateOf, type IsoDate, type Variant } from './dates.ts';
import type { Entry } from './entry.ts';
import { WotdError, isWotdError } from './errors.ts';
import { Flight, FlightAbandoned } from './flight.ts';
import { getJson, type Attempt, type FetchLike } from './http-client.ts';
import type { HistoryPage, Lookup, LookupOptions, Priority, WotdLookup } from './lookup.ts';
import { RateLimiter } from './rate-limiter.ts';
import { parseEntry, parseFind, parsePrevious, sniffVariant } from './wire.ts';

export const DEFAULT_API_URL = 'https://api.wotd.site';
export const MAX_HISTORY_LIMIT = 8;
export const MAX_WORD_LENGTH = 100;
/** Pause after a 429 that carries no Retry-After: the service's window is 60 s. */
const DEFAULT_429_PAUSE_MS = 60_000;
const CACHE_NAMESPACE = 'wotd-cache';

export interface UpstreamEvent {
  path: string;
  query: Record<string, string>;
  outcome: Attempt['kind'];
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
  maxWaitMs?: Partial<Record<Priority, number>>;
  timeoutMs?: number;
  retries?: number;
  retryDelayMs?: number;
  readAhead?: number;
  ttls?: Partial<CacheTtls>;
  memoryRecords?: number;
  now?: Clock;
  timers?: Timers;
  fetch?: FetchLike;
  random?: () => number;
  onRequest?: (event: UpstreamEvent) => void;
  /** The cache store failed; the lookup went on without it. */
  onStoreError?: (error: unknown) => void;
}

export interface AdapterStats {
  lookups: number;
  /** Answered from a fresh cached value (or a remembered 404) without an upstream request. */
  cacheHits: number;
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

export interface WotdAdapter extends WotdLookup {
  /** The service's variant: as configured, or detected; null until an 'auto' adapter has seen a date. */
  readonly variant: Variant | null;
  stats(): AdapterStats;
  /** Rejects queued lookups, stops timers and (if owned) disconnects the store. */
  close(): Promise<void>;
}

type Outcome<T> = { kind: 'ok'; value: T } | { kind: 'not_found'; message: string };

export async function createWotdAdapter(options: WotdAdapterOptions): Promise<WotdAdapter> {
  const now = options.now ?? systemClock;
  // Keyv swallows a store's failures (reads come back empty) and reports them as 'error' events.
  if (options.onStoreError) options.store.on('error', options.onStoreError);
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
  const store = overrides.store ?? (await openStore(config.STORE_URL, CACHE_NAMESPACE));
  return createWotdAdapter({
    baseUrl: config.WOTD_API_URL ?? DEFAULT_API_URL,
    variant: config.WOTD_API_VARIANT,
    rateLimit: config.WOTD_RATE_LIMIT,
    timeoutMs: config.WOTD_TIMEOUT_MS,
    ownsStore: overrides.store === undefined,
    ...overrides,
    store,
  });
}

class Adapter implements WotdAdapter {
  private readonly now: Clock;
  private readonly timers: Timers;
  private readonly limiter: RateLimiter;
  private readonly flights = new Map<string, Flight<unknown>>();
  private readonly baseUrl: string;
  /** Days a history request asks for at least (options.readAhead, at most MAX_HISTORY_LIMIT). */
  private readonly readAhead: number;
  private detected: Variant | null;
  private guess: Variant = 'A';
  private closed = false;
  private readonly counters = { lookups: 0, cacheHits: 0, coalesced: 0, staleServed: 0, upstreamRequests: 0, upstream429: 0, busy: 0 };

  constructor(
    private readonly options: WotdAdapterOptions,
    private readonly cache: WotdCache,
  ) {
    this.now = options.now ?? systemClock;
    this.timers = options.timers ?? systemTimers;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.readAhead = Math.min(MAX_HISTORY_LIMIT, options.readAhead ?? MAX_HISTORY_LIMIT);
    const variant = options.variant ?? 'auto';
    this.detected = variant === 'auto' ? null : variant;
    this.limiter = new RateLimiter({
      limit: options.rateLimit ?? 10,
      windowMs: options.rateWindowMs ?? 60_000,
      now: () => this.now().getTime(),
      timers: this.timers,
    });
  }

  get variant(): Variant | null {
    return this.detected;
  }

  today(): IsoDate {
    return utcDateOf(this.now());
  }

  stats(): AdapterStats {
    let waitingLookups = 0;
    for (const flight of this.flights.values()) if (flight.waiting) waitingLookups += flight.callerCount;
    return { ...this.counters, queued: this.limiter.queued, waitingLookups, inFlight: this.limiter.active };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.limiter.close(new WotdError('unavailable', 'The Word-of-the-Day adapter was closed'));
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
    const outcome = await this.withStale(cached?.value, () =>
      this.shared(`entry:${day}`, options, (flight) => this.fetchEntry(flight, day, today)),
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
      this.shared(`prev:${before}:${fetchLimit}`, options, (flight) => this.fetchPrevious(flight, before, fetchLimit, today)),
    );
    if (outcome.kind === 'not_found') return { value: { entries: [], hasMore: false }, stale: false, fromCache: false };
    const page = outcome.value.value;
    return { ...outcome.value, value: { entries: page.entries.slice(0, limit), hasMore: page.entries.length > limit || page.hasMore } };
  }

  async findWord(word: string, options: LookupOptions = {}): Promise<Lookup<Entry[]>> {
    this.counters.lookups++;
    const typed = word.trim();
    if (typed === '') throw new WotdError('invalid_input', 'Give a word to look for');
    if (typed.length > MAX_WORD_LENGTH) {
      throw new WotdError('invalid_input', `A word can be at most ${MAX_WORD_LENGTH} characters long`);
    }
    const today = this.today();
    const cached = await this.cache.getFind(typed);
    if (cached?.fresh) {
      if (cached.value.length === 0) {
        this.counters.cacheHits++;
        throw notFoundForWord(typed);
      }
      return this.hit(cached.value.filter((entry) => entry.date <= today));
    }
    const lower = typed.toLowerCase();
    const outcome = await this.withStale(cached && cached.value.length > 0 ? cached.value : undefined, () =>
      this.shared(`find:${lower}`, options, (flight) => this.fetchFind(flight, typed, today)),
    );
    if (outcome.kind === 'not_found') throw notFoundForWord(typed);
    return { ...outcome.value, value: outcome.value.value.filter((entry) => entry.date <= today && entry.word.toLowerCase() === lower) };
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
  private async shared<T>(key: string, options: LookupOptions, run: (flight: Flight<T>) => Promise<T>): Promise<T> {
    if (this.closed) throw new WotdError('unavailable', 'The Word-of-the-Day adapter was closed');
    const priority = options.priority ?? 'interactive';
    const maxWaitMs = options.maxWaitMs ?? this.options.maxWaitMs?.[priority];
    const nowMs = this.now().getTime();
    let flight = this.flights.get(key) as Flight<T> | undefined;
    if (flight) {
      this.counters.coalesced++;
    } else {
      if (maxWaitMs !== undefined) {
        const start = this.limiter.estimateStart(priority);
        if (start - nowMs > maxWaitMs) throw busy(start);
      }
      const created = new Flight<T>(this.limiter, priority, run);
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
        await this.cache.putMissing(day, today);
        return { kind: 'not_found', message: `no entry for ${day}` };
      }
      return { kind: 'ok', value: first };
    }
    const answer = await this.request(flight, '/query', { date: day }, true);
    if (answer.kind === 'not_found') {
      await this.cache.putMissing(day, today);
      return answer;
    }
    const entry = parseEntry(answer.body, this.variantFor(answer.body));
    if (entry.date !== day) throw new WotdError('bad_response', `The service answered ${entry.date} when asked for ${day}`);
    await this.cache.putEntries([entry], today);
    return { kind: 'ok', value: entry };
  }

  private async fetchPrevious(
    flight: Flight<Outcome<HistoryPage>>,
    before: IsoDate,
    limit: number,
    today: IsoDate,
  ): Promise<Outcome<HistoryPage>> {
    return { kind: 'ok', value: await this.requestPrevious(flight, before, limit, today) };
  }

  private async requestPrevious<T>(flight: Flight<T>, before: IsoDate, limit: number, today: IsoDate): Promise<HistoryPage> {
    const answer = await this.request(flight, '/query_previous', { date: before, limit: String(limit) }, true);
    if (answer.kind === 'not_found') {
      await this.cache.putBefore(before, false);
      return { entries: [], hasMore: false };
    }
    const page = parsePrevious(answer.body, this.variantFor(answer.body), before);
    const entries = page.entries.slice(0, limit);
    const hasMore = page.hasMore || page.entries.length > limit;
    await this.cache.putEntries(entries, today);
    const oldest = entries.at(-1);
    await this.cache.putBefore(oldest ? oldest.date : before, hasMore);
    return { entries, hasMore };
  }

  private async fetchFind(flight: Flight<Outcome<Entry[]>>, typed: string, today: IsoDate): Promise<Outcome<Entry[]>> {
    const lower = typed.toLowerCase();
    // One deployment matches case-sensitively: try the lower-case form first, then the form as typed.
    const forms = lower === typed ? [lower] : [lower, typed];
    for (const form of forms) {
      const answer = await this.request(flight, '/find_wotd', { word: form }, false);
      if (answer.kind === 'not_found') continue;
      const all = parseFind(answer.body, this.variantFor(answer.body));
      const entries = all.filter((entry) => entry.date <= today && entry.word.toLowerCase() === lower);
      if (entries.length === 0) continue;
      await this.cache.putFind(typed, entries, today);
      return { kind: 'ok', value: entries };
    }
    await this.cache.putFind(typed, [], today);
    return { kind: 'not_found', message: `no entry for ${typed}` };
  }

  /** The variant to read a body in: the configured or detected one, else what the body itself shows. */
  private variantFor(body: unknown): Variant {
    if (this.detected) return this.detected;
    const sniffed = sniffVariant(body);
    if (sniffed) {
      this.detected = sniffed;
      return sniffed;
    }
    return this.guess;
  }

  /**
   * One logical request: waits for the limiter, sends, retries 5xx and connection failures with back-off,
   * re-queues once after a 429 (having paused everyone). Returns an ok or not-found answer, or throws a WotdError.
   */
  private async request<T>(
    flight: Flight<T>,
    path: string,
    params: Record<string, string>,
    dated: boolean,
  ): Promise<{ kind: 'ok'; body: unknown } | { kind: 'not_found'; message: string }> {
    const retries = this.options.retries ?? 2;
    let failures = 0;
    let rateLimits = 0;
    let flipped = false;
    for (;;) {
      let permit;
      try {
        permit = await flight.acquire();
      } catch (error) {
        if (error instanceof FlightAbandoned) throw new WotdError('rate_limited', 'Every caller stopped waiting', new Date(this.limiter.estimateStart(flight.priority)));
        throw error;
      }
      const variant = this.detected ?? this.guess;
      const query: Record<string, string> = { ...params };
      if (dated && query.date !== undefined) query.date = toWireDate(query.date, variant);
      const url = `${this.baseUrl}${path}?${new URLSearchParams(query).toString()}`;
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
      }
      this.options.onRequest?.({
        path,
        query,
        outcome: attempt.kind,
        elapsedMs: performance.now() - started,
        ...('message' in attempt ? { detail: attempt.message } : {}),
      });
      switch (attempt.kind) {
        case 'ok':
          return attempt;
        case 'not_found':
          return attempt;
        case 'bad_request': {
          const future = /future/i.test(attempt.message);
          if (dated && this.detected === null && !future) {
            // An auto adapter guessed the date format wrong: the other variant rejects it as malformed.
            // If the other format is refused as well, the guess was not the problem: put it back.
            this.guess = this.guess === 'A' ? 'B' : 'A';
            if (!flipped) {
              flipped = true;
              continue;
            }
          }
          if (future) {
            throw new WotdError('future_date', `The service says that date is in the future (${attempt.message})`);
          }
          throw new WotdError('bad_response', `The service rejected the request: ${attempt.message}`);
        }
        case 'rate_limited': {
          this.counters.upstream429++;
          const until = this.now().getTime() + (attempt.retryAfterMs ?? DEFAULT_429_PAUSE_MS);
          this.limiter.pause(until);
          if (rateLimits++ < 1) continue;
          throw busy(until, 'The Word-of-the-Day service is rate limiting us');
        }
        case 'retryable': {
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
    const entries: Entry[] = [];
    let fresh = true;
    for (let i = 1; i <= limit; i++) {
      const day = addDays(before, -i);
      const cached = await this.cache.getEntry(day);
      if (!cached) {
        const anyBefore = await this.cache.getBefore(addDays(day, 1));
        if (anyBefore === false) return { page: { entries, hasMore: false }, fresh };
        return null;
      }
      fresh &&= cached.fresh;
      entries.push(cached.value);
    }
    const oldest = entries.at(-1)?.date ?? before;
    const next = await this.cache.getEntry(addDays(oldest, -1));
    const hasMore = next ? true : await this.cache.getBefore(oldest);
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
