import KeyvRedis, { type KeyvRedisOptions, type RedisClientOptions } from '@keyv/redis';
import { StoreWatch } from './store-watch.ts';

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
  }

  override get<U = T>(key: string): Promise<U | undefined> {
    return this.watch.run('read', () => super.get<U>(key));
  }

  override getMany<U = T>(keys: string[]): Promise<Array<U | undefined>> {
    return this.watch.run('read', () => super.getMany<U>(keys));
  }

  override has(key: string): Promise<boolean> {
    return this.watch.run('read', () => super.has(key));
  }

  override hasMany(keys: string[]): Promise<boolean[]> {
    return this.watch.run('read', () => super.hasMany(keys));
  }

  override set(key: string, value: string, ttl?: number): Promise<void> {
    return this.watch.run('write', () => super.set(key, value, ttl));
  }

  override setMany(entries: Parameters<KeyvRedis<T>['setMany']>[0]): Promise<void> {
    return this.watch.run('write', () => super.setMany(entries));
  }

  override delete(key: string): Promise<boolean> {
    return this.watch.run('write', () => super.delete(key));
  }

  override deleteMany(keys: string[]): Promise<boolean> {
    return this.watch.run('write', () => super.deleteMany(keys));
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
