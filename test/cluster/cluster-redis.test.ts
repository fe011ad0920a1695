import { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { RedisDeliveryClaims } from '../../src/cluster/redis-delivery-claims.ts';
import { createClusterPacer } from '../../src/cluster/redis-discord-pacer.ts';
import { RedisUpstreamBudget } from '../../src/cluster/redis-upstream-budget.ts';
import { createLogger } from '../../src/config/logger.ts';
import { openRedisConnection } from '../../src/store/redis-connection.ts';
import type { UpstreamSlot } from '../../src/wotd/upstream-budget.ts';
import { describeRedis, redisTestUrl, useRedisPrefix } from '../support/redis.ts';

/**
 * The cluster's shared pieces against the real Redis, each "process" with its own connection, as separate
 * processes would have.
 */

const logger = createLogger({ level: 'silent' });
const connections: Redis[] = [];

async function connect(): Promise<Redis> {
  const redis = await openRedisConnection(redisTestUrl ?? '', { purpose: 'test', whileDown: 'down', whenBack: 'back' });
  connections.push(redis);
  return redis;
}

afterEach(() => {
  for (const redis of connections.splice(0)) redis.disconnect();
});

describeRedis('shared upstream budget', () => {
  const space = useRedisPrefix();
  let budgets: RedisUpstreamBudget[];

  beforeEach(async () => {
    budgets = await Promise.all(
      [0, 1].map(async () => new RedisUpstreamBudget({ redis: await connect(), prefix: space.prefix, limit: 4, windowMs: 1_500, logger, retryIntervalMs: 20 })),
    );
  });

  afterEach(() => {
    for (const budget of budgets) budget.close();
  });

  it('gives the cluster no more than its limit in a window, however the processes ask', async () => {
    const [a, b] = budgets as [RedisUpstreamBudget, RedisUpstreamBudget];
    const taken = await Promise.all([0, 1, 2].flatMap(() => [a.take('/query', 'scheduled', 0), b.take('/query', 'scheduled', 0)]));
    expect(taken.filter(Boolean)).toHaveLength(4);
    // A slot comes free a window after it was taken, not before.
    const started = Date.now();
    const later = await a.take('/query', 'scheduled', 3_000);
    expect(later).not.toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_300);
  });

  it('holds a slot a window after the answer, and keeps room for more urgent work', async () => {
    const [a, b] = budgets as [RedisUpstreamBudget, RedisUpstreamBudget];
    const held = (await a.take('/query', 'scheduled', 0)) as UpstreamSlot;
    expect(await b.take('/query', 'background', 0)).toBeNull(); // background leaves the last three
    expect(await b.take('/query', 'interactive', 0)).not.toBeNull();
    expect(await b.take('/query', 'interactive', 0)).not.toBeNull();
    expect(await a.take('/query', 'interactive', 0)).toBeNull(); // interactive leaves the last one
    expect(await a.take('/query', 'scheduled', 0)).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await held.answered();
    await new Promise((resolve) => setTimeout(resolve, 700));
    // The other three expired 1.5 s after they were taken; the answered one is held until 1.5 s after its answer.
    expect(await b.take('/query', 'scheduled', 0)).not.toBeNull();
    expect(await b.take('/query', 'scheduled', 0)).not.toBeNull();
    expect(await b.take('/query', 'scheduled', 0)).not.toBeNull();
    expect(await b.take('/query', 'scheduled', 0)).toBeNull();
  });

  it('falls back to a small budget of its own while Redis cannot be reached', async () => {
    const unreachable = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
    unreachable.on('error', () => undefined);
    const alone = new RedisUpstreamBudget({ redis: unreachable, prefix: space.prefix, limit: 10, windowMs: 60_000, logger, outagePerMinute: 1 });
    try {
      expect(await alone.take('/query', 'interactive', 0)).not.toBeNull();
      expect(await alone.take('/query', 'interactive', 50)).toBeNull();
    } finally {
      alone.close();
      unreachable.disconnect();
    }
  });

  it('leaves no wait behind when it is closed while a request waits on the fallback (a stopping bot must exit)', async () => {
    const unreachable = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
    unreachable.on('error', () => undefined);
    const alone = new RedisUpstreamBudget({ redis: unreachable, prefix: space.prefix, limit: 10, windowMs: 60_000, logger, outagePerMinute: 1 });
    const timers = () => process.getActiveResourcesInfo().filter((name) => name === 'Timeout').length;
    try {
      expect(await alone.take('/query', 'interactive', 0)).not.toBeNull();
      const before = timers();
      const waiting = alone.take('/query', 'background', 600_000);
      await expect.poll(timers).toBe(before + 1);
      alone.close();
      await expect(waiting).rejects.toThrow('closed');
      expect(timers()).toBe(before);
      // A request that comes after the close does not wait either.
      await expect(alone.take('/query', 'background', 600_000)).rejects.toThrow('closed');
      expect(timers()).toBe(before);
    } finally {
      alone.close();
      unreachable.disconnect();
    }
  });
});

describeRedis('delivery claims', () => {
  const space = useRedisPrefix();

  it('let one process post a channel-day, and free it when released or when the holder dies', async () => {
    const first = new RedisDeliveryClaims(await connect(), space.prefix, 400);
    const second = new RedisDeliveryClaims(await connect(), space.prefix, 400);
    const claim = await first.claim('111', '2026-11-23');
    expect(claim).not.toBeNull();
    expect(await second.claim('111', '2026-11-23')).toBeNull();
    expect(await second.claim('111', '2026-11-24')).not.toBeNull();
    await claim?.release();
    const taken = await second.claim('111', '2026-11-23');
    expect(taken).not.toBeNull();
    // The holder "dies": its connection goes without releasing; the lease runs out.
    connections[1]?.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await first.claim('111', '2026-11-23')).not.toBeNull();
  });
});

describeRedis('cluster post pace', () => {
  const space = useRedisPrefix();

  it('starts no more than the limit in any wall-clock second across processes', async () => {
    const paces = await Promise.all([0, 1, 2].map(async () => createClusterPacer({ redis: await connect(), prefix: space.prefix, perSecond: 10 })));
    const starts: number[] = [];
    await Promise.all(
      paces.flatMap((pace) =>
        Array.from({ length: 12 }, async () => {
          (await pace()).done();
          starts.push(Date.now());
        }),
      ),
    );
    const perSecond = new Map<number, number>();
    for (const at of starts) perSecond.set(Math.floor(at / 1000), (perSecond.get(Math.floor(at / 1000)) ?? 0) + 1);
    expect(starts).toHaveLength(36);
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(10);
    expect(perSecond.size).toBeGreaterThanOrEqual(4);
  });
});
