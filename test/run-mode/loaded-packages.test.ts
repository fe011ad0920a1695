import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect, it } from 'vitest';
import { childEnv } from '../support/child-env.ts';

const SCRIPT = resolve(import.meta.dirname, 'loaded-packages.ts');
const REDIS_CLIENTS = ['ioredis', '@redis/client', '@keyv/redis', 'redis-semaphore'];

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The npm packages a bot on Discord with this STORE_URL has loaded once its store and cache are open. */
async function loadedPackages(storeUrl: string): Promise<string[]> {
  const env = childEnv({ STORE_URL: storeUrl });
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', SCRIPT], { env, timeout: 60_000 });
  return JSON.parse(stdout) as string[];
}

it('a bot on SQLite loads no Redis client: those are loaded only for a Redis store or cluster mode', async () => {
  dir = await mkdtemp(join(tmpdir(), 'wotd-loaded-'));
  const loaded = await loadedPackages(`sqlite://${join(dir, 'store.sqlite')}`);
  // What it does load, so the list is known to be the bot's.
  expect(loaded).toEqual(expect.arrayContaining(['discord.js', 'sqlite3']));
  expect(loaded.filter((name) => REDIS_CLIENTS.includes(name))).toEqual([]);
});
