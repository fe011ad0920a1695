import { createClient } from '@keyv/redis';
import type { TestProject } from 'vitest/node';

/**
 * vitest globalSetup: asks once whether a Redis answers at REDIS_TEST_URL (default redis://127.0.0.1:6379) and
 * hands the answer to the test files (see redis.ts). Without one the Redis tests are skipped, with one line
 * saying so, except under CI=true, where the run fails instead.
 */

export const DEFAULT_REDIS_TEST_URL = 'redis://127.0.0.1:6379';

declare module 'vitest' {
  export interface ProvidedContext {
    redisTestUrl: string | null;
  }
}

async function unreachableBecause(url: string): Promise<string | null> {
  const client = createClient({ url, socket: { connectTimeout: 2_000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    if (client.isOpen) client.destroy();
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const url = process.env.REDIS_TEST_URL?.trim() || DEFAULT_REDIS_TEST_URL;
  const reason = await unreachableBecause(url);
  if (reason === null) {
    project.provide('redisTestUrl', url);
    return;
  }
  if (process.env.CI === 'true') {
    throw new Error(`No Redis answers at ${url} (${reason}); with CI=true the Redis tests must run. Start redis-server or set REDIS_TEST_URL.`);
  }
  process.stdout.write(`Redis tests skipped: no Redis answers at ${url} (${reason}); start redis-server or set REDIS_TEST_URL.\n`);
  project.provide('redisTestUrl', null);
}
