import KeyvSqlite from '@keyv/sqlite';
import type Keyv from 'keyv';
import type { DeliveryWrite, DueIndex } from './due-index.ts';
import { isPostgresStore, isRedisStore, type StoreLocation } from './open-store.ts';
import { DEFAULT_REDIS_KEY_PREFIX } from '../config/settings.ts';

/**
 * Opens the due-time index of the store at `location`, beside its `deliveries` namespace (whose records it writes
 * together with their moves): a table in the same SQLite file or PostgreSQL schema, a sorted set on the same Redis,
 * or a map for a memory:// store. Each backend's module is loaded only for its store. `create` false opens a store
 * that is only to be read (migrate-store's source) without creating its tables there.
 */
export async function openDueIndex(location: StoreLocation, deliveries: Keyv<unknown>, create = true): Promise<DueIndex> {
  const adapter: unknown = deliveries.store;
  if (isRedisStore(location)) {
    const { RedisDueIndex } = await import('./redis-due-index.ts');
    const client = await (adapter as { getClient(): Promise<unknown> }).getClient();
    return new RedisDueIndex(client as ConstructorParameters<typeof RedisDueIndex>[0], location.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX);
  }
  if (isPostgresStore(location)) {
    const { PostgresDueIndex } = await import('./postgres-due-index.ts');
    return PostgresDueIndex.open(location.url, location.setting, create);
  }
  if (adapter instanceof KeyvSqlite) {
    const { SqliteDueIndex } = await import('./sqlite-due-index.ts');
    return SqliteDueIndex.open(adapter, create);
  }
  if (adapter instanceof Map) {
    const { MemoryDueIndex } = await import('./memory-due-index.ts');
    return new MemoryDueIndex(adapter);
  }
  throw new Error('this store has no due-time index: use sqlite://, postgres://, redis:// or memory://');
}

/**
 * A delivery record as the deliveries namespace would store it (its key with the namespace, its value serialized
 * by Keyv), for a write that must land together with its index move.
 */
export async function deliveryWrite(deliveries: Keyv<unknown>, key: string, value: unknown): Promise<DeliveryWrite> {
  const serialized = await deliveries.serializeData({ value, expires: undefined });
  if (typeof serialized !== 'string') throw new Error('the deliveries store does not serialize its values to text');
  const prefixed = deliveries._getKeyPrefix(key);
  const adapter = deliveries.store as { createKeyPrefix?: (key: string, namespace?: string) => string; namespace?: string };
  // @keyv/redis prefixes keys with its namespace itself (Keyv does not, see open-store.ts).
  const storedKey = isRedisAdapter(adapter) ? adapter.createKeyPrefix(prefixed, adapter.namespace) : prefixed;
  return { storedKey, serialized };
}

function isRedisAdapter(adapter: { createKeyPrefix?: unknown }): adapter is { createKeyPrefix: (key: string, namespace?: string) => string; namespace?: string } {
  return typeof adapter.createKeyPrefix === 'function';
}
