import type { Redis } from 'ioredis';
import { Mutex } from 'redis-semaphore';
import type { Logger } from '../config/logger.ts';
import { openRedisConnection } from './redis-connection.ts';
import { StoreWatch } from './store-watch.ts';
import { KeyedMutex } from './keyed-mutex.ts';
import { underLease, type Lease } from './lease-fence.ts';
import type { StoreLock } from './lock.ts';

/** Held locks expire after this long unless renewed: far more than any change under them takes. */
const LOCK_TIMEOUT_MS = 10_000;
/** A lease is taken to end this long before Redis would let it run out: room for a write already on its way. */
const LEASE_MARGIN_FRACTION = 0.2;
/** How long a change waits for a lock another process holds before it fails. */
const ACQUIRE_TIMEOUT_MS = 15_000;

/**
 * Locks shared by every process on one Redis: redis-semaphore's Mutex (SET NX PX, released by a compare-and-delete
 * script) on key `mutex:<keyPrefix><key>`. Callers in this process queue on a local mutex first, so only one of
 * them at a time polls Redis for a key.
 *
 * The lease is renewed every third of it while the change runs, and each write under the lock checks it first
 * (lease-fence.ts): a change held up past its lease (a slow or paused Redis, a process stopped and resumed) writes
 * nothing more and fails, since another process may have taken the lock meanwhile.
 */
export class RedisLock implements StoreLock {
  private readonly local = new KeyedMutex();
  /** A lock that cannot be taken is a change that cannot be made: counted, and rejected as a StoreError. */
  readonly watch: StoreWatch;

  private constructor(
    private readonly client: Redis,
    private readonly keyPrefix: string,
    private readonly logger?: Logger,
    private readonly leaseMs = LOCK_TIMEOUT_MS,
  ) {
    this.watch = new StoreWatch('locks', { read: () => client.ping() });
  }

  /** `leaseMs`: tests only (a short lease to outlast). */
  static async open(url: string, keyPrefix: string, logger?: Logger, leaseMs = LOCK_TIMEOUT_MS): Promise<RedisLock> {
    // One retry per command: while Redis is away a change fails soon instead of queueing behind reconnects.
    const client = await openRedisConnection(url, {
      purpose: 'store-locks',
      offlineQueue: true,
      whileDown: 'Redis is unreachable: subscription changes fail until it is back',
      whenBack: 'Redis is reachable again: subscription changes go through',
      ...(logger ? { logger } : {}),
    });
    return new RedisLock(client, keyPrefix, logger, leaseMs);
  }

  withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.local.run(key, async () => {
      const name = `${this.keyPrefix}${key}`;
      const mutex = new Mutex(this.client, name, {
        lockTimeout: this.leaseMs,
        acquireTimeout: ACQUIRE_TIMEOUT_MS,
        // Renewed below instead: redis-semaphore's own refresh timer would reject unhandled if Redis went away.
        refreshInterval: 0,
      });
      await this.watch.run('lock', () => mutex.acquire());
      // Counted from when the taking was known (Redis set it a round trip earlier at most: the margin covers that).
      const lease: Lease = { validUntil: performance.now() + this.leaseMs * (1 - LEASE_MARGIN_FRACTION), lost: null, what: `mutex:${name}` };
      const renewal = this.renew(mutex, name, lease);
      try {
        return await underLease(lease, work);
      } finally {
        renewal.stop();
        // A lock that cannot be released expires by itself; the change it guarded is already done (or refused).
        await mutex.release().catch((error: unknown) => {
          this.watch.failed('lock', error);
          this.logger?.warn({ err: error, key }, 'could not release a store lock');
        });
      }
    });
  }

  /** Extends the lease every third of it (PEXPIRE if the lock is still this one's); a failed renewal ends it. */
  private renew(held: Mutex, name: string, lease: Lease): { stop(): void } {
    let renewing = false;
    const timer = setInterval(() => {
      if (renewing || lease.lost !== null) return;
      renewing = true;
      const asked = performance.now();
      // An "externally acquired" mutex with the holder's identifier: its tryAcquire is a refresh (one use each).
      const renewer = new Mutex(this.client, name, { lockTimeout: this.leaseMs, refreshInterval: 0, identifier: held.identifier, acquiredExternally: true });
      renewer.tryAcquire().then(
        (renewed) => {
          if (renewed) lease.validUntil = Math.max(lease.validUntil, asked + this.leaseMs * (1 - LEASE_MARGIN_FRACTION));
          else lease.lost = 'another process holds it now';
        },
        (error: unknown) => {
          // Unknown whether it was renewed: the lease stands only as long as it is known to.
          this.watch.failed('lock', error);
        },
      ).finally(() => {
        renewing = false;
      });
    }, Math.max(50, Math.floor(this.leaseMs / 3)));
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
