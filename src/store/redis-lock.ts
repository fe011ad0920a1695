import type { Redis } from 'ioredis';
import { Mutex } from 'redis-semaphore';
import type { Logger } from '../config/logger.ts';
import { openRedisConnection } from './redis-connection.ts';
import { StoreWatch } from './store-watch.ts';
import { KeyedMutex } from './keyed-mutex.ts';
import type { StoreLock } from './lock.ts';

/** Held locks expire after this long: far more than any change under them takes. */
const LOCK_TIMEOUT_MS = 10_000;
/** How long a change waits for a lock another process holds before it fails. */
const ACQUIRE_TIMEOUT_MS = 15_000;

/**
 * Locks shared by every process on one Redis: redis-semaphore's Mutex (SET NX PX, refreshed while held,
 * released by a compare-and-delete script) on key `mutex:<keyPrefix><key>`. Callers in this process queue on a
 * local mutex first, so only one of them at a time polls Redis for a key.
 */
export class RedisLock implements StoreLock {
  private readonly local = new KeyedMutex();
  /** A lock that cannot be taken is a change that cannot be made: counted, and rejected as a StoreError. */
  readonly watch: StoreWatch;

  private constructor(
    private readonly client: Redis,
    private readonly keyPrefix: string,
    private readonly logger?: Logger,
  ) {
    this.watch = new StoreWatch('locks', { read: () => client.ping() });
  }

  static async open(url: string, keyPrefix: string, logger?: Logger): Promise<RedisLock> {
    // One retry per command: while Redis is away a change fails soon instead of queueing behind reconnects.
    const client = await openRedisConnection(url, {
      purpose: 'store-locks',
      offlineQueue: true,
      whileDown: 'Redis is unreachable: subscription changes fail until it is back',
      whenBack: 'Redis is reachable again: subscription changes go through',
      ...(logger ? { logger } : {}),
    });
    return new RedisLock(client, keyPrefix, logger);
  }

  withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.local.run(key, async () => {
      const mutex = new Mutex(this.client, `${this.keyPrefix}${key}`, {
        lockTimeout: LOCK_TIMEOUT_MS,
        acquireTimeout: ACQUIRE_TIMEOUT_MS,
        // A change takes milliseconds; redis-semaphore's refresh timer would reject unhandled if Redis went away.
        refreshInterval: 0,
        onLockLost: (error) => this.logger?.error({ err: error, key }, 'store lock lost before the change finished'),
      });
      await this.watch.run('lock', () => mutex.acquire());
      try {
        return await work();
      } finally {
        // A lock that cannot be released expires by itself; the change it guarded is already done.
        await mutex.release().catch((error: unknown) => {
          this.watch.failed('lock', error);
          this.logger?.warn({ err: error, key }, 'could not release a store lock');
        });
      }
    });
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}
