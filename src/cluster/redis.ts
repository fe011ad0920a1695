import { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';

/**
 * An ioredis connection for the cluster's shared budgets, claims and pacing. Commands fail at once while Redis is
 * unreachable (no offline queue), so callers fall back instead of hanging; the outage and the recovery are each
 * logged once, not per command.
 */
export function connectRedis(url: string, logger: Logger, purpose: string): Redis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectionName: `wotd-bot:${purpose}`,
    retryStrategy: (attempt) => Math.min(attempt * 250, 2_000),
  });
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.warn({ purpose, reason: error.message }, 'Redis is unreachable; cluster features fall back until it is back');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    logger.info({ purpose }, 'Redis is reachable again');
  });
  return redis;
}

/** Resolves once the connection is ready, or rejects with a one-line reason after `timeoutMs`. */
export async function whenReady(redis: Redis, timeoutMs = 5_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = (): void => {
      cleanup();
      resolve();
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}
