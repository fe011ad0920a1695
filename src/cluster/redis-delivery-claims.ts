import { DEFAULT_CLAIM_LEASE_MS } from '../config/settings.ts';
import type { Redis } from 'ioredis';
import { Mutex } from 'redis-semaphore';
import { heldFor, type DeliveryClaim, type DeliveryClaims } from '../schedule/delivery-claims.ts';
import { StoreWatch } from '../store/store-watch.ts';
import type { IsoDate } from '../wotd/dates.ts';

/**
 * Claims on (channel, day) as redis-semaphore mutexes with a lease: one attempt, no waiting (another process holds
 * it, so it is that process's post), released when the post is done, and running out `leaseMs` after a process
 * died holding it, so the next pass of a living one takes the channel over.
 */
export class RedisDeliveryClaims implements DeliveryClaims {
  /** A claim Redis could not answer is no claim (the post waits for a later pass), counted here and in /healthz. */
  readonly watch: StoreWatch;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly leaseMs = DEFAULT_CLAIM_LEASE_MS,
  ) {
    this.watch = new StoreWatch('claims', { read: () => redis.ping() });
  }

  async claim(channelId: string, day: IsoDate): Promise<DeliveryClaim | null> {
    const mutex = new Mutex(this.redis, `${this.prefix}claim:${channelId}:${day}`, {
      lockTimeout: this.leaseMs,
      acquireAttemptsLimit: 1,
      // No renewal: a post takes seconds, and redis-semaphore's refresh timer would reject unhandled if Redis went
      // away. Instead nothing is recorded or posted once the lease may have run out (held()), so a process paused
      // past it leaves the channel to whoever claimed it since; the record, the look in the channel and the nonce
      // stop a double of a post already on its way.
      refreshInterval: 0,
    });
    const acquired = await mutex.tryAcquire().catch((error: unknown) => {
      this.watch.failed('lock', error);
      return false;
    });
    if (!acquired) return null;
    // A claim that cannot be released runs out with its lease.
    return { held: heldFor(this.leaseMs), release: () => mutex.release().catch((error: unknown) => void this.watch.failed('lock', error)) };
  }
}
