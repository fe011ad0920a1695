import { createServer } from 'node:net';
import KeyvRedis, { type RedisClientType } from '@keyv/redis';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/settings.ts';
import { openStore, storeLocation } from '../../src/store/open-store.ts';
import { describeRedis, keysUnder, redisClient, useRedisPrefix } from '../support/redis.ts';

describe('storeLocation', () => {
  it('is STORE_URL without REDIS_URL, and REDIS_URL with its key prefix when set', () => {
    expect(storeLocation(loadConfig({}))).toEqual({ url: 'sqlite://data/store.sqlite', keyPrefix: 'wotd-bot:' });
    expect(storeLocation(loadConfig({ STORE_URL: 'memory://', REDIS_URL: 'rediss://r.example:6380', REDIS_KEY_PREFIX: 'staging:' }))).toEqual({
      url: 'rediss://r.example:6380',
      keyPrefix: 'staging:',
    });
  });
});

describe('openStore on Redis', () => {
  it('reports a refused connection at once, in one line, naming the server without its password', async () => {
    const started = Date.now();
    await expect(openStore('redis://:hunter2@127.0.0.1:1', 'wotd-cache')).rejects.toThrow(
      /^could not reach Redis at redis:\/\/\*\*\*@127\.0\.0\.1:1: connect ECONNREFUSED/,
    );
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('gives up on a server that accepts but never answers after 5 s', async () => {
    const silent = createServer(() => undefined).listen(0, '127.0.0.1');
    await new Promise((resolve) => silent.once('listening', resolve));
    const { port } = silent.address() as { port: number };
    try {
      await expect(openStore(`redis://127.0.0.1:${port}`, 'wotd-cache')).rejects.toThrow(
        `could not reach Redis at redis://127.0.0.1:${port}: no answer within 5000 ms`,
      );
    } finally {
      silent.close();
    }
  });
});

describeRedis('openStore on Redis', () => {
  const redis = useRedisPrefix();

  it('keeps namespaces and prefixes apart: <prefix><namespace>::<key>', async () => {
    const cache = await openStore<unknown>(redis.location, 'wotd-cache');
    const subscriptions = await openStore<unknown>(redis.location, 'subscriptions');
    const otherPrefix = await openStore<unknown>({ ...redis.location, keyPrefix: `${redis.prefix}other:` }, 'wotd-cache');
    try {
      await cache.set('sub:c1', { from: 'cache' });
      await subscriptions.set('sub:c1', { from: 'subscriptions' });
      expect(await cache.get('sub:c1')).toEqual({ from: 'cache' });
      expect(await subscriptions.get('sub:c1')).toEqual({ from: 'subscriptions' });
      expect(await otherPrefix.get('sub:c1')).toBeUndefined();
      expect(await keysUnder(redis.prefix)).toEqual([`${redis.prefix}subscriptions::sub:c1`, `${redis.prefix}wotd-cache::sub:c1`]);
    } finally {
      await Promise.all([cache.disconnect(), subscriptions.disconnect(), otherPrefix.disconnect()]);
    }
  });

  it('lets an entry with a TTL expire on the server', async () => {
    const cache = await openStore<unknown>(redis.location, 'wotd-cache');
    try {
      await cache.set('today', 'word', 1_000);
      await cache.set('past', 'word');
      const client = await redisClient();
      expect(await client.pTTL(`${redis.prefix}wotd-cache::today`)).toBeGreaterThan(0);
      expect(await client.pTTL(`${redis.prefix}wotd-cache::past`)).toBe(-1);
    } finally {
      await cache.disconnect();
    }
  });

  it('reconnects after the server drops its connection', async () => {
    const cache = await openStore<unknown>(redis.location, 'wotd-cache');
    try {
      await cache.set('e:2025-01-14', 'before');
      const client = (cache.store as KeyvRedis<unknown>).client as RedisClientType;
      const id = await client.clientId();
      await (await redisClient()).clientKill({ filter: 'ID', id });
      // A command caught by the drop fails (the cache carries on without it); the connection comes back by itself.
      await expect
        .poll(async () => {
          await cache.set('e:2025-01-15', 'after');
          return cache.get('e:2025-01-15');
        })
        .toBe('after');
      expect(await cache.get('e:2025-01-14')).toBe('before');
      expect(await client.clientId()).not.toBe(id);
    } finally {
      await cache.disconnect();
    }
  });
});
