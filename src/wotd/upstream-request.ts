/**
 * One logical request to the service, with the pause and busy logic around it: the endpoint's limiter, the shared
 * budget (cluster mode), retries with back-off, and the pauses a 429 or a 503's Retry-After imposes on every request.
 */
import type { AdapterCounters } from './adapter-counters.ts';
import { busy } from './busy-error.ts';
import { sleep, type Clock, type TimerHandle, type Timers } from './clock.ts';
import { toWireDate, type Variant } from './dates.ts';
import type { Endpoint, EndpointLimiters } from './endpoint-limiters.ts';
import { WotdError } from './errors.ts';
import { FlightAbandoned, type Flight } from './flight.ts';
import { getJson, type Attempt, type FetchLike } from './http-client.ts';
import type { Priority } from './lookup.ts';
import type { UpstreamBudget, UpstreamSlot } from './upstream-budget.ts';
import { upstreamResult, type UpstreamResult } from './upstream-result.ts';

/** Pause after a 429 that carries no Retry-After: the service's window is 60 s. */
const DEFAULT_429_PAUSE_MS = 60_000;
/** The request outcome a site answer's result stands for, in the events' coarser terms. */
const OUTCOME_OF: Record<UpstreamResult, Attempt['kind']> = {
  ok: 'ok',
  not_found: 'not_found',
  http_4xx: 'bad_response',
  http_5xx: 'retryable',
  timeout: 'retryable',
  network: 'retryable',
  rate_limited: 'rate_limited',
  bad_response: 'bad_response',
};
const DEFAULT_BUDGET_WAIT_MS: Record<Priority, number> = { scheduled: 5 * 60_000, interactive: 8_000, background: 30_000 };

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

/** A request to the service's site (the database mirror's listing or download), as the metrics count it. */
export interface SiteAnswer {
  result: UpstreamResult;
  detail?: string;
}

/** What the mirror's requests to the site go through: the adapter's limiter, the shared budget, its counts. */
export interface SiteRequester {
  /**
   * Sends one request to the site (`send`) once the limiter and, in a cluster, the shared budget grant it a slot,
   * waiting at most `maxWaitMs` for them (then a `rate_limited` WotdError). Counted as an upstream request.
   */
  siteRequest<T extends SiteAnswer>(path: string, priority: Priority, maxWaitMs: number, send: () => Promise<T>): Promise<T>;
}

export type UpstreamAnswer = { kind: 'ok'; body: unknown } | { kind: 'not_found'; message: string };

export interface UpstreamRequestOptions {
  budget?: UpstreamBudget;
  budgetWaitMs?: Partial<Record<Priority, number>>;
  timeoutMs?: number;
  retries?: number;
  retryDelayMs?: number;
  /** How long a 429 without Retry-After holds every request back (default 60 000: the service's window). */
  pauseAfter429Ms?: number;
  fetch?: FetchLike;
  random?: () => number;
  onRequest?: (event: UpstreamEvent) => void;
}

/** What a request needs of the variant detection: the date format to send, and a way to make sure of it. */
export interface RequestVariant {
  readonly isAuto: boolean;
  readonly current: Variant;
  readonly verified: boolean;
  ensure<T>(flight: Flight<T>): Promise<Variant | null>;
}

export class UpstreamRequester {
  constructor(
    private readonly options: UpstreamRequestOptions,
    private readonly baseUrl: string,
    private readonly limiters: EndpointLimiters,
    private readonly variants: RequestVariant,
    private readonly counters: AdapterCounters,
    private readonly now: Clock,
    private readonly timers: Timers,
  ) {}

  /**
   * One logical request: waits for the endpoint's limiter, sends, retries 5xx and connection failures with
   * back-off, re-queues once after a 429 (having paused that budget). A dated request from an 'auto' adapter first
   * makes sure of the variant. Returns an ok or not-found answer, or throws a WotdError.
   */
  async request<T>(flight: Flight<T>, path: Endpoint, params: Record<string, string>, dated: boolean): Promise<UpstreamAnswer> {
    if (dated && this.variants.isAuto) await this.variants.ensure(flight);
    const limiter = this.limiters.for(path);
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
      const sent = this.variants.current;
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
          if (dated && !this.variants.verified && !reformatted && (await this.variants.ensure(flight)) !== sent) {
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

  /** See SiteRequester. A 429 from the site does not pause the API's requests: the site counts its own. */
  async siteRequest<T extends SiteAnswer>(path: string, priority: Priority, maxWaitMs: number, send: () => Promise<T>): Promise<T> {
    const limiter = this.limiters.for('/databases');
    const ticket = limiter.enqueue(priority);
    let timer: TimerHandle | undefined;
    const late = new Promise<null>((resolve) => {
      timer = this.timers.setTimeout(() => resolve(null), maxWaitMs);
    });
    const permit = await Promise.race([ticket.granted, late]);
    if (timer !== undefined) this.timers.clearTimeout(timer);
    if (!permit) {
      ticket.cancel();
      void ticket.granted.then((granted) => granted.release(), () => undefined);
      throw busy(limiter.estimateStart(priority), 'The Word-of-the-Day site is busy (the request budget is spent)');
    }
    let slot: UpstreamSlot | null = null;
    if (this.options.budget) {
      slot = await this.options.budget.take('/databases', priority, maxWaitMs).catch(() => null);
      if (!slot) {
        permit.release();
        throw busy(this.now().getTime() + maxWaitMs, 'The Word-of-the-Day site is busy (the shared request budget is spent)');
      }
    }
    const started = performance.now();
    this.counters.upstreamRequests++;
    let answer: T;
    try {
      answer = await send();
    } finally {
      permit.release();
      await slot?.answered();
    }
    if (answer.result === 'rate_limited') this.counters.upstream429++;
    this.options.onRequest?.({
      path,
      query: {},
      outcome: OUTCOME_OF[answer.result],
      result: answer.result,
      elapsedMs: performance.now() - started,
      ...(answer.detail !== undefined ? { detail: answer.detail } : {}),
    });
    return answer;
  }

  private backoff(failures: number): number {
    const base = this.options.retryDelayMs ?? 250;
    const cap = Math.min(base * 2 ** (failures - 1), 5_000);
    return cap / 2 + (this.options.random ?? Math.random)() * (cap / 2);
  }
}
