import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Keeps the whole cluster's daily posts under Discord's global limit (50 requests a second per bot token), which
 * every process's discord.js counts only for itself. Discord counts the limit in whole seconds, so the count here
 * is kept per wall-clock second in Redis (a rate-limiter-flexible counter keyed by the second): `perSecond` posts
 * start in any one second across all processes, the rest wait for the next. A little below 50 leaves room for a
 * post whose request arrives just after the second it started in, and for command replies.
 *
 * While Redis is unreachable a post fails as transient (the daily posts pause and are retried), so the cluster
 * never posts uncounted.
 */

export interface ClusterPacerOptions {
  redis: Redis;
  prefix: string;
  /** Default 47. */
  perSecond?: number;
}

export const CLUSTER_POSTS_PER_SECOND = 47;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

export function createClusterPacer(options: ClusterPacerOptions): () => Promise<void> {
  const limiter = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix: `${options.prefix}discord-global`,
    points: options.perSecond ?? CLUSTER_POSTS_PER_SECOND,
    duration: 2,
  });
  return async () => {
    for (;;) {
      const second = Math.floor(Date.now() / 1000);
      try {
        await limiter.consume(String(second));
        return;
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
      }
      // Spread the waiters a little so they do not all ask again in the same millisecond.
      await sleep((second + 1) * 1000 - Date.now() + Math.random() * 15);
    }
  };
}
