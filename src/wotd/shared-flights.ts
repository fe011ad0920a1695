/**
 * Coalescing and the busy bound: a lookup joins the identical operation under way or starts it, and gives up with
 * `rate_limited` (busy) when the limiter would keep it waiting longer than its `maxWaitMs`.
 */
import type { AdapterCounters } from './adapter-counters.ts';
import { busy } from './busy-error.ts';
import type { Clock, Timers } from './clock.ts';
import { WotdError } from './errors.ts';
import { Flight } from './flight.ts';
import type { LookupOptions, Priority } from './lookup.ts';
import type { RateLimiter } from './rate-limiter.ts';

export class SharedFlights {
  private readonly flights = new Map<string, Flight<unknown>>();
  private closed = false;

  constructor(
    private readonly defaultMaxWaitMs: Partial<Record<Priority, number>> | undefined,
    private readonly counters: AdapterCounters,
    private readonly now: Clock,
    private readonly timers: Timers,
  ) {}

  /** Operations under way or queued. */
  get size(): number {
    return this.flights.size;
  }

  /** Callers of the flights still waiting for their limiter. */
  waitingLookups(): number {
    let waiting = 0;
    for (const flight of this.flights.values()) if (flight.waiting) waiting += flight.callerCount;
    return waiting;
  }

  /** No new operation starts after this. */
  close(): void {
    this.closed = true;
  }

  /** Joins the identical operation under way, or starts it; bounds this caller's wait for `limiter`. */
  async run<T>(key: string, limiter: RateLimiter, options: LookupOptions, run: (flight: Flight<T>) => Promise<T>): Promise<T> {
    if (this.closed) throw new WotdError('unavailable', 'The Word-of-the-Day adapter was closed');
    const priority = options.priority ?? 'interactive';
    const maxWaitMs = options.maxWaitMs ?? this.defaultMaxWaitMs?.[priority];
    const nowMs = this.now().getTime();
    let flight = this.flights.get(key) as Flight<T> | undefined;
    if (flight) {
      this.counters.coalesced++;
    } else {
      if (maxWaitMs !== undefined) {
        const start = limiter.estimateStart(priority);
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
}
