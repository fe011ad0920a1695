import { Redis } from 'ioredis';
import { withoutPassword } from '../config/settings.ts';
import type { Logger } from '../config/logger.ts';

const CONNECT_TIMEOUT_MS = 5_000;

export interface RedisConnectionOptions {
  /** Names the connection on the server and in the log lines, e.g. "store-locks". */
  purpose: string;
  logger?: Logger;
  /** Logged once when Redis goes away: what stops or falls back until it is back. */
  whileDown: string;
  /** Logged once when it is back. */
  whenBack: string;
  /**
   * Queue commands while reconnecting (each then fails after one reconnection attempt) instead of failing them at
   * once. Off by default: callers that can fall back should, rather than wait.
   */
  offlineQueue?: boolean;
  /** The setting the URL came from (REDIS_URL), named in the start-up failure's line. */
  setting?: string;
}

/**
 * An ioredis connection for what the bot coordinates on Redis besides its Keyv store (store locks, the cluster's
 * budget, claims and pace). It connects now, so an unreachable server is reported at start-up in one line naming
 * it (password hidden); a connection lost later is re-established with back-off, and the outage and the recovery
 * are each logged once, not per command.
 */
export async function openRedisConnection(url: string, options: RedisConnectionOptions): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    enableOfflineQueue: options.offlineQueue ?? false,
    maxRetriesPerRequest: 1,
    connectionName: `wotd-bot:${options.purpose}`,
    retryStrategy: (attempt) => Math.min(attempt * 250, 2_000),
  });
  let lastError: unknown;
  let down = false;
  let connected = false;
  redis.on('error', (error: unknown) => {
    lastError = error;
    // Before the first connection a failure is thrown, in one line, rather than logged.
    if (down || !connected) return;
    down = true;
    options.logger?.warn({ purpose: options.purpose, err: error }, options.whileDown);
  });
  redis.on('ready', () => {
    connected = true;
    if (!down) return;
    down = false;
    options.logger?.info({ purpose: options.purpose }, options.whenBack);
  });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    const cause = lastError ?? error;
    throw new Error(`could not reach Redis at ${options.setting ? `${options.setting}=` : ''}${withoutPassword(url)}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
  return redis;
}
