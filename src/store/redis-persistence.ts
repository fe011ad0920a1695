import type { Redis } from 'ioredis';
import type { Logger } from '../config/logger.ts';
import { withoutPassword } from '../config/settings.ts';
import { openRedisConnection } from './redis-connection.ts';

/**
 * Whether a Redis that holds the bot's durable data (subscriptions, delivery records) keeps it on disk: an
 * append-only file (`appendonly yes`) or snapshots (`save` points). Without either, a Redis restart forgets every
 * subscription and which channels already had the day's post. Read with CONFIG GET where the server allows it;
 * many managed servers refuse CONFIG, and then it is unknown.
 */
export type RedisPersistence =
  | { known: true; appendonly: string; save: string; durable: boolean }
  | { known: false; reason: string };

function configValue(reply: unknown, name: string): string | null {
  if (!Array.isArray(reply)) return null;
  for (let i = 0; i + 1 < reply.length; i += 2) {
    if (String(reply[i]).toLowerCase() === name) return String(reply[i + 1]);
  }
  return null;
}

export async function readRedisPersistence(redis: Redis): Promise<RedisPersistence> {
  let replies: [unknown, unknown];
  try {
    replies = await Promise.all([redis.config('GET', 'appendonly'), redis.config('GET', 'save')]);
  } catch (error) {
    return { known: false, reason: error instanceof Error ? error.message : String(error) };
  }
  const appendonly = configValue(replies[0], 'appendonly');
  const save = configValue(replies[1], 'save');
  if (appendonly === null || save === null) return { known: false, reason: 'CONFIG GET did not return appendonly and save' };
  return { known: true, appendonly, save, durable: appendonly.toLowerCase() === 'yes' || save.trim() !== '' };
}

/**
 * Reads the persistence of the Redis at `url` and says it in one log line: a warning when the durable data would
 * not survive a restart, otherwise an info line (what it keeps, or that it could not be read).
 */
export async function reportRedisPersistence(url: string, logger: Logger): Promise<RedisPersistence> {
  let persistence: RedisPersistence;
  try {
    const redis = await openRedisConnection(url, { purpose: 'persistence-check', whileDown: 'Redis is unreachable', whenBack: 'Redis is back' });
    try {
      persistence = await readRedisPersistence(redis);
    } finally {
      redis.disconnect();
    }
  } catch (error) {
    persistence = { known: false, reason: error instanceof Error ? error.message : String(error) };
  }
  const redisAt = withoutPassword(url);
  if (!persistence.known) {
    logger.info(
      { redis: redisAt, reason: persistence.reason },
      "could not read Redis's persistence settings: whether subscriptions and delivery records survive a Redis restart is unknown",
    );
  } else if (!persistence.durable) {
    logger.warn(
      { redis: redisAt, appendonly: persistence.appendonly, save: persistence.save },
      'Redis keeps nothing on disk (appendonly no, no save points): a Redis restart loses every subscription and delivery record, and would post the day again. Turn on appendonly (or save points) on that Redis, or keep the data in PostgreSQL (STORE_URL=postgres://…; migrate-store copies it)',
    );
  } else {
    logger.info({ redis: redisAt, appendonly: persistence.appendonly, save: persistence.save }, 'Redis keeps the store on disk');
  }
  return persistence;
}
