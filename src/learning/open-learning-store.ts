import type { Logger } from '../config/logger.ts';
import { DEFAULT_REDIS_KEY_PREFIX } from '../config/settings.ts';
import { isPostgresStore, isRedisStore, sqliteStoreFile, type StoreLocation } from '../store/open-store.ts';
import type { LearningStore } from './learning-store.ts';
import { SqlLearningStore } from './sql-learning-store.ts';

/**
 * The learning store where the bot keeps everything else: tables beside Keyv's in the SQLite file or PostgreSQL
 * schema, or keys beside the others on Redis. Each backend's code is loaded only for it.
 */
export async function openLearningStore(location: StoreLocation, logger?: Logger): Promise<LearningStore> {
  if (isRedisStore(location)) {
    const { RedisLearningStore } = await import('./redis-learning-store.ts');
    return RedisLearningStore.open(location.url, location.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX, logger);
  }
  if (isPostgresStore(location)) {
    const { openPostgresLearningDriver } = await import('./postgres-learning-driver.ts');
    return SqlLearningStore.open(await openPostgresLearningDriver(location.url, location.setting));
  }
  if (!sqliteStoreFile(location)) throw new Error(`the learning features need a SQLite file, PostgreSQL or Redis store, not ${location.url.split(':')[0]}://`);
  const { openSqliteLearningDriver } = await import('./sqlite-learning-driver.ts');
  return SqlLearningStore.open(await openSqliteLearningDriver(location.url));
}
