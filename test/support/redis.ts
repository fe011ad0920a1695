import { randomUUID } from 'node:crypto';
import { createClient } from '@keyv/redis';
import { afterAll, afterEach, beforeEach, describe, inject } from 'vitest';
import type { StoreLocation } from '../../src/store/open-store.ts';

/**
 * Redis for tests. `describeRedis` runs only when redis-setup.ts found a server; `useRedisPrefix()` gives each
 * test in the calling describe its own key prefix and deletes every key under it afterwards (store locks too,
 * which redis-semaphore keeps under `mutex:<prefix>`), so test files can run in parallel on one server.
 */

export const redisTestUrl: string | null = inject('redisTestUrl');

export const describeRedis = describe.skipIf(redisTestUrl === null);

function requireUrl(): string {
  if (redisTestUrl === null) throw new Error('no Redis for this test; wrap it in describeRedis');
  return redisTestUrl;
}

let client: ReturnType<typeof createClient> | null = null;

/** A plain client on the test server, for looking at what the code under test wrote. */
export async function redisClient(): Promise<ReturnType<typeof createClient>> {
  if (!client) {
    client = createClient({ url: requireUrl() });
    client.on('error', () => undefined);
    await client.connect();
  }
  return client;
}

afterAll(async () => {
  await client?.close();
  client = null;
});

/** Every key (sorted) whose name starts with `prefix`, and the store locks under it. */
export async function keysUnder(prefix: string): Promise<string[]> {
  const redis = await redisClient();
  const keys: string[] = [];
  for (const pattern of [`${prefix}*`, `mutex:${prefix}*`, `semaphore:${prefix}*`]) {
    for await (const batch of redis.scanIterator({ MATCH: pattern, COUNT: 500 })) keys.push(...batch);
  }
  return keys.sort();
}

/** Deletes every key under `prefix`, its store locks included. */
export async function deleteKeysUnder(prefix: string): Promise<void> {
  const keys = await keysUnder(prefix);
  const redis = await redisClient();
  for (let start = 0; start < keys.length; start += 500) await redis.del(keys.slice(start, start + 500));
}

export interface RedisTestPrefix {
  /** This test's prefix, e.g. `wotd-test:1b4e…:`. */
  readonly prefix: string;
  /** Where a store opened for this test lives. */
  readonly location: StoreLocation;
}

export function useRedisPrefix(): RedisTestPrefix {
  let prefix = '';
  beforeEach(() => {
    prefix = `wotd-test:${randomUUID()}:`;
  });
  afterEach(() => deleteKeysUnder(prefix));
  return {
    get prefix() {
      return prefix;
    },
    get location() {
      return { url: requireUrl(), keyPrefix: prefix };
    },
  };
}
