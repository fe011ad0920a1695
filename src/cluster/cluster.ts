import type { Redis } from 'ioredis';
import type { Logger } from '../config/logger.ts';
import type { DeliveryClaims } from '../schedule/delivery-claims.ts';
import type { StoreCheck } from '../store/store-watch.ts';
import type { UpstreamBudget } from '../wotd/upstream-budget.ts';
import { RedisDeliveryClaims } from './redis-delivery-claims.ts';
import { createClusterPacer, type TakeGlobalTurn } from './redis-discord-pacer.ts';
import { openRedisConnection } from '../store/redis-connection.ts';
import { RedisUpstreamBudget } from './redis-upstream-budget.ts';

/**
 * What makes processes sharing one Redis behave as one bot: the service's request budget, claims on each
 * (channel, day) post, and one pace for every request under Discord's global limit. The store itself (cache,
 * subscriptions, delivery records) is on the same Redis through Keyv, or in PostgreSQL, which then keeps the claims
 * too; see src/store/open-store.ts.
 */
export interface Cluster {
  redis: Redis;
  budget: UpstreamBudget;
  claims: DeliveryClaims;
  /**
   * Waits for a request's turn under Discord's global limit, counted for the whole cluster; every Discord request
   * of the process that counts toward the limit takes one and hands it back when answered (src/discord/client.ts).
   */
  takeGlobalTurn: TakeGlobalTurn;
  /** The claims' and the budget's health and failures, for /healthz and the metrics. */
  storeChecks(): StoreCheck[];
  close(): Promise<void>;
}

export interface ClusterSettings {
  redisUrl: string;
  keyPrefix: string;
  /** The service's requests per minute for the whole cluster (WOTD_RATE_LIMIT). */
  rateLimit: number;
  rateLimitScope: 'service' | 'endpoint';
  /** Discord requests per second across the cluster (a little under Discord's global limit). */
  postsPerSecond?: number;
  /** How long a claim on one channel's post lasts (DELIVERY_CLAIM_LEASE_MS); 30 s by default. */
  claimLeaseMs?: number;
  logger: Logger;
  /** Claims kept elsewhere (in the PostgreSQL store, beside the delivery records); by default on this Redis. Not closed here. */
  claims?: DeliveryClaims & { readonly watch: StoreCheck };
}

export async function openCluster(settings: ClusterSettings): Promise<Cluster> {
  const logger = settings.logger.child({ component: 'cluster' });
  const redis = await openRedisConnection(settings.redisUrl, {
    purpose: 'cluster',
    setting: 'REDIS_URL',
    logger,
    whileDown: 'Redis is unreachable; cluster features fall back until it is back',
    whenBack: 'Redis is reachable again',
  });
  const budget = new RedisUpstreamBudget({
    redis,
    prefix: settings.keyPrefix,
    limit: settings.rateLimit,
    scope: settings.rateLimitScope,
    logger,
  });
  const claims = settings.claims ?? new RedisDeliveryClaims(redis, settings.keyPrefix, settings.claimLeaseMs);
  return {
    redis,
    budget,
    claims,
    storeChecks: () => [claims.watch, budget.watch],
    takeGlobalTurn: createClusterPacer({
      redis,
      prefix: settings.keyPrefix,
      logger,
      ...(settings.postsPerSecond ? { perSecond: settings.postsPerSecond } : {}),
    }),
    async close() {
      budget.close();
      redis.disconnect();
    },
  };
}
