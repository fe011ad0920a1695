import type Keyv from 'keyv';
import { DEFAULT_REDIS_KEY_PREFIX } from '../../config/settings.ts';
import type { Logger } from '../../config/logger.ts';
import type { DueIndex } from '../../store/due-index.ts';
import { InProcessLock } from '../../store/lock.ts';
import { openDueIndex } from '../../store/open-due-index.ts';
import { isRedisStore, openStore, type StoreLocation } from '../../store/open-store.ts';
import type { RecordNamespaces } from './record-namespaces.ts';

export interface OpenSubscriptionStoreOptions {
  /**
   * Failed reads and writes reject instead of reading as empty and being dropped (Keyv's default): on by default
   * and always on Redis and PostgreSQL, since a read that fails must not look like "nothing stored" to the write that follows,
   * and a write that fails must not be reported as done (a full disk, a locked or damaged SQLite file).
   */
  throwOnErrors?: boolean;
  /** The clock that dates a removal (for the pruning of its delivery records). */
  now?: () => Date;
  /**
   * Opened only to be read (migrate-store's source): the due-time index's tables are not created in it, so a store
   * written before the index existed stays as it was. Its index may then be missing: read only its records.
   */
  readOnly?: boolean;
}

/**
 * Opens what a subscription store is made of: its two Keyv namespaces, the due-time index and the locks. What was
 * opened is closed again when a later part fails, so a failed open leaves nothing behind.
 */
export async function openRecordNamespaces(
  location: StoreLocation,
  logger: Logger | undefined,
  { throwOnErrors, now, readOnly }: OpenSubscriptionStoreOptions,
): Promise<{ parts: RecordNamespaces; dueIndex: DueIndex }> {
  const onRedis = isRedisStore(location);
  const options = { throwOnErrors: throwOnErrors !== false || onRedis };
  const lockPrefix = `${location.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX}subscriptions:`;
  const opened: Array<Keyv<unknown>> = [];
  try {
    const subscriptions = await openStore<unknown>(location, 'subscriptions', options);
    opened.push(subscriptions);
    const deliveries = await openStore<unknown>(location, 'deliveries', options);
    opened.push(deliveries);
    const lockRedis = onRedis ? location.url : location.lockRedisUrl;
    const dueIndex = await openDueIndex(location, deliveries, readOnly !== true);
    let lock;
    try {
      // The Redis lock module (and its client) is loaded only where a Redis lock is used.
      lock = lockRedis
        ? await (await import('../../store/redis-lock.ts')).RedisLock.open(lockRedis, lockPrefix, logger)
        : // A memory:// store is private to this instance, so its locks must be too.
          new InProcessLock(location.url.startsWith('memory:') ? `${location.url}#${Math.random()}` : location.url);
    } catch (error) {
      await dueIndex.close();
      throw error;
    }
    return { parts: { subscriptions, deliveries, lock, now: now ?? (() => new Date()), logger }, dueIndex };
  } catch (error) {
    await Promise.all(opened.map((keyv) => keyv.disconnect()));
    throw error;
  }
}
