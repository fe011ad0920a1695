import type { Redis } from 'ioredis';
import { Semaphore } from 'redis-semaphore';
import type { Logger } from '../config/logger.ts';
import { systemTimers } from '../wotd/clock.ts';
import { StoreWatch } from '../store/store-watch.ts';
import type { Priority } from '../wotd/lookup.ts';
import { RateLimiter, type Permit } from '../wotd/rate-limiter.ts';
import type { UpstreamBudget, UpstreamSlot } from '../wotd/upstream-budget.ts';

/**
 * The Word-of-the-Day service's budget shared by every process of the cluster, as a redis-semaphore counting
 * semaphore whose entries expire one window after they were last touched: a slot is taken when a request is about
 * to be sent and touched again when its answer arrives, so no window of the service sees more than `limit` of the
 * cluster's requests, and a process that dies mid-request frees its slot a window later.
 *
 * Priorities (scheduled > interactive > background) are kept by headroom: an interactive request may not take the
 * last slot, a background one not the last three, so a daily post always finds room soonest.
 *
 * While Redis is unreachable each process falls back to `outagePerMinute` requests a minute of its own (default 1),
 * so a cluster of up to ten stays inside the service's limit without coordination; the switch is logged once.
 */

export interface RedisUpstreamBudgetOptions {
  redis: Redis;
  /** Key prefix, e.g. "wotd:"; tests give each run its own. */
  prefix: string;
  limit: number;
  windowMs?: number;
  /** 'endpoint': one budget per endpoint, as the real deployments count. */
  scope?: 'service' | 'endpoint';
  outagePerMinute?: number;
  logger: Logger;
  /** How often a waiting process asks again. */
  retryIntervalMs?: number;
}

const HEADROOM: Record<Priority, number> = { scheduled: 0, interactive: 1, background: 3 };

export class RedisUpstreamBudget implements UpstreamBudget {
  private readonly windowMs: number;
  private readonly fallback: RateLimiter;
  private inOutage = false;
  /** Failures to take or touch a slot, for /healthz and wotd_bot_store_errors_total. */
  readonly watch: StoreWatch;

  constructor(private readonly options: RedisUpstreamBudgetOptions) {
    this.windowMs = options.windowMs ?? 60_000;
    this.watch = new StoreWatch('upstream-budget', { read: () => options.redis.ping() });
    this.fallback = new RateLimiter({
      limit: options.outagePerMinute ?? 1,
      windowMs: this.windowMs,
      now: () => Date.now(),
      timers: systemTimers,
    });
  }

  async take(endpoint: string, priority: Priority, maxWaitMs: number): Promise<UpstreamSlot | null> {
    const key = `${this.options.prefix}upstream:${this.options.scope === 'endpoint' ? endpoint : 'service'}`;
    const limit = Math.max(1, this.options.limit - HEADROOM[priority]);
    const settings = { lockTimeout: this.windowMs, refreshInterval: 0, retryInterval: this.options.retryIntervalMs ?? 250 };
    const semaphore = new Semaphore(this.options.redis, key, limit, { ...settings, acquireTimeout: Math.max(1, maxWaitMs) });
    let acquired: boolean;
    try {
      acquired = await semaphore.tryAcquire();
    } catch (error) {
      this.watch.failed('lock', error);
      return this.takeFallback(priority, maxWaitMs, error);
    }
    this.outageOver();
    if (!acquired) return null;
    const identifier = semaphore.identifier;
    return {
      answered: async () => {
        // Touching the entry restarts its window from the answer, as the service may have counted it that late.
        const touch = new Semaphore(this.options.redis, key, limit, { ...settings, identifier, acquiredExternally: true });
        // A failed touch leaves the slot to expire a window after it was taken, a little early: counted, not thrown,
        // since the answer it follows was already received and used.
        await touch.tryAcquire().catch((error: unknown) => void this.watch.failed('lock', error));
      },
    };
  }

  private async takeFallback(priority: Priority, maxWaitMs: number, error: unknown): Promise<UpstreamSlot | null> {
    if (!this.inOutage) {
      this.inOutage = true;
      this.options.logger.warn(
        { reason: error instanceof Error ? error.message : String(error), perMinute: this.options.outagePerMinute ?? 1 },
        'shared upstream budget unavailable (Redis); this process falls back to its own small budget',
      );
    }
    const ticket = this.fallback.enqueue(priority);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), maxWaitMs);
    });
    let permit: Permit | null;
    try {
      permit = await Promise.race([ticket.granted, timedOut]);
    } finally {
      // Also when the wait ends by close() rejecting the ticket: a timer left running would hold a stopping process
      // for the whole wait (up to 30 s, past the exit deadline).
      clearTimeout(timer);
    }
    if (!permit) {
      ticket.cancel();
      // Granted in the same instant the wait ran out: give the slot back rather than hold it for nothing.
      void ticket.granted.then((late) => late.release(), () => undefined);
      return null;
    }
    return {
      answered: async () => permit.release(),
    };
  }

  private outageOver(): void {
    if (!this.inOutage) return;
    this.inOutage = false;
    this.options.logger.info('shared upstream budget available again (Redis)');
  }

  close(): void {
    this.fallback.close(new Error('closed'));
  }
}
