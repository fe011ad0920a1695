import KeyvRedis, { type KeyvRedisOptions, type RedisClientOptions } from '@keyv/redis';
import { StoreWatch } from './store-watch.ts';
import { watchMethods } from './watched-methods.ts';

/** The key the health check reads (and, while writes fail, writes) in each namespace. */
const HEALTH_KEY = 'health-check';
const HEALTH_TTL_MS = 60_000;

/**
 * @keyv/redis with every failure an error: by default it catches a failed command, emits 'error' and answers as if
 * nothing were stored (a write reports success, a read a miss). Here throwOnErrors and throwOnConnectError are
 * always on, clear() (which swallows whatever the option says) rejects too, and each failure is counted on the
 * store's watch and rethrown as a StoreError naming the store.
 */
export class WatchedKeyvRedis<T> extends KeyvRedis<T> {
  readonly watch: StoreWatch;

  constructor(connect: RedisClientOptions, options: KeyvRedisOptions, name: string) {
    super(connect, { ...options, throwOnErrors: true, throwOnConnectError: true });
    this.watch = new StoreWatch(name, {
      read: () => super.get(HEALTH_KEY),
      write: () => super.set(HEALTH_KEY, new Date().toISOString(), HEALTH_TTL_MS),
    });
    watchMethods<KeyvRedis<T>>(this, this.watch, 'read', ['get', 'getMany', 'has', 'hasMany']);
    watchMethods<KeyvRedis<T>>(this, this.watch, 'write', ['set', 'setMany', 'delete', 'deleteMany']);
  }

  override clear(): Promise<void> {
    return this.watch.run('write', async () => {
      const keys: string[] = [];
      for await (const [key] of super.iterator(this.namespace)) keys.push(key);
      for (let start = 0; start < keys.length; start += 500) await super.deleteMany(keys.slice(start, start + 500));
    });
  }

  override async *iterator<U = T>(namespace?: string): AsyncGenerator<[string, U | undefined], void, unknown> {
    try {
      yield* super.iterator<U>(namespace);
    } catch (error) {
      throw this.watch.failed('scan', error);
    }
  }
}
