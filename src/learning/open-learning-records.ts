import { DEFAULT_REDIS_KEY_PREFIX } from '../config/settings.ts';
import { isPostgresStore, isRedisStore, sqliteStoreFile, type StoreLocation } from '../store/open-store.ts';
import type { LearningRecordSource, LearningRecordTarget } from './learning-records.ts';
import type { SqlDriver } from './sql-driver.ts';
import { SqlLearningRecords } from './sql-learning-records.ts';
import { SqlLearningStore } from './sql-learning-store.ts';

/** The learning records of a store (migrate-store), each backend's code loaded only for it. */

async function sqlDriver(location: StoreLocation): Promise<SqlDriver> {
  if (isPostgresStore(location)) {
    const { openPostgresLearningDriver } = await import('./postgres-learning-driver.ts');
    return openPostgresLearningDriver(location.url, location.setting);
  }
  if (!sqliteStoreFile(location)) throw new Error(`learning records are kept in a SQLite file, PostgreSQL or Redis store, not ${location.url.split(':')[0]}://`);
  const { openSqliteLearningDriver } = await import('./sqlite-learning-driver.ts');
  return openSqliteLearningDriver(location.url);
}

async function redisRecords(location: StoreLocation) {
  const { RedisLearningRecords } = await import('./redis-learning-records.ts');
  return RedisLearningRecords.open(location.url, location.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX);
}

/** Read only: nothing is created in the store, not even the learning tables. */
export async function openLearningRecordSource(location: StoreLocation): Promise<LearningRecordSource> {
  if (isRedisStore(location)) return redisRecords(location);
  const driver = await sqlDriver(location);
  return new SqlLearningRecords(driver, () => driver.close());
}

/** The learning tables are made in the target as the bot makes them (with the board's counts). */
export async function openLearningRecordTarget(location: StoreLocation): Promise<LearningRecordTarget> {
  if (isRedisStore(location)) return redisRecords(location);
  const driver = await sqlDriver(location);
  const store = await SqlLearningStore.open(driver);
  return new SqlLearningRecords(driver, () => store.close());
}
