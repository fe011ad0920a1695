import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import type { StoreLocation } from '../../src/store/open-store.ts';
import { describeRedis, keysUnder, useRedisPrefix } from '../support/redis.ts';
import { clusterBackends, storeEnv } from '../support/store-backends.ts';
import { hammer } from './hammer.ts';
import { makeSubscription } from './helpers.ts';

const SHAPE = { limit: 5, channels: 10, rounds: 12 };
const HAMMER = new URL('./hammer-process.ts', import.meta.url).pathname;

/** What two or more hammer() writers must leave behind, whatever the interleaving. */
async function expectNothingLost(store: SubscriptionStore, writers: Array<{ name: string; created: string[] }>): Promise<void> {
  const ids = (subscriptions: Array<{ channelId: string }>) => subscriptions.map((s) => s.channelId).sort();
  const created = writers.flatMap((writer) => writer.created).sort();
  expect(created).toHaveLength(SHAPE.limit);
  expect(ids(await store.listGuild('busy'))).toEqual(created);
  const kept = writers.flatMap((writer) => Array.from({ length: SHAPE.channels }, (_, i) => `${writer.name}${i}`).filter((_, i) => i % 2 === 1));
  expect(ids(await store.listGuild('churn'))).toEqual(kept.sort());
  expect(ids(await store.listAll())).toEqual([...created, ...kept, 'shared'].sort());
  const renamed = (await store.get('shared'))?.channelName ?? '';
  for (const { name } of writers) expect(renamed.split(name).length - 1, renamed).toBe(SHAPE.rounds);
}

/** A hammer-process.ts child on the test's store, opened from the settings as the bot does; `ready` resolves once its store is open. */
function writerProcess(name: string, location: StoreLocation) {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^(WOTD_|REDIS_|STORE_URL)/.test(key)) env[key] = value;
  Object.assign(env, storeEnv(location));
  const args = [name, SHAPE.limit, SHAPE.channels, SHAPE.rounds].map(String);
  const child = spawn(process.execPath, ['--import', 'tsx', HAMMER, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const lines = createInterface({ input: child.stdout });
  const ready = new Promise<void>((resolve, reject) => {
    lines.once('line', (line) => (line === 'ready' ? resolve() : reject(new Error(`expected ready, got ${line}`))));
    child.once('exit', (code) => reject(new Error(`writer ${name} exited with ${code} before it was ready: ${stderr}`)));
  });
  const result = new Promise<{ name: string; created: string[] }>((resolve, reject) => {
    let last = '';
    lines.on('line', (line) => (last = line));
    child.once('close', (code) => {
      if (code === 0) resolve({ name, ...(JSON.parse(last) as { created: string[] }) });
      else reject(new Error(`writer ${name} exited with ${code}: ${stderr}`));
    });
  });
  return { ready, go: () => child.stdin.end('go\n'), result };
}

const stores: SubscriptionStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

describeRedis('SubscriptionStore on Redis', () => {
  const redis = useRedisPrefix();

  async function open(): Promise<SubscriptionStore> {
    const store = await SubscriptionStore.open(redis.location);
    stores.push(store);
    return store;
  }

  it('keeps subscriptions, their indexes and delivery records under its prefix, across a reopen', async () => {
    const first = await open();
    await first.upsert('g1', 'c1', 5, () => makeSubscription());
    await first.putDelivery({ channelId: 'c1', day: '2026-06-15', state: 'sent', nonce: 'abc', attempts: 1, messageId: 'm1', updatedAt: '2026-06-15T09:00:00.000Z' });
    await first.close();

    const second = await open();
    expect(await second.listAll()).toEqual([makeSubscription()]);
    expect(await second.listGuild('g1')).toEqual([makeSubscription()]);
    expect(await second.getDeliveries(['c1', 'c2'], '2026-06-15')).toMatchObject([{ state: 'sent', messageId: 'm1' }, null]);
    const keys = await keysUnder(redis.prefix);
    expect(keys.filter((key) => !key.startsWith('mutex:'))).toEqual([
      `${redis.prefix}deliveries::c1:2026-06-15`,
      // The due-time index (issue 33): the instants, the counts per state, each entry's state.
      `${redis.prefix}due-index:at`,
      `${redis.prefix}due-index:counts`,
      `${redis.prefix}due-index:state`,
      `${redis.prefix}subscriptions::guild:g1`,
      expect.stringMatching(new RegExp(`^${redis.prefix}subscriptions::index:\\d+$`)),
      `${redis.prefix}subscriptions::sub:c1`,
    ]);
  });

  it('removes a subscription from every index', async () => {
    const store = await open();
    await store.upsert('g1', 'c1', 5, () => makeSubscription());
    await store.upsert('g1', 'c2', 5, () => makeSubscription({ channelId: 'c2' }));
    expect((await store.remove('g1', 'c1'))?.channelId).toBe('c1');
    expect((await store.listAll()).map((s) => s.channelId)).toEqual(['c2']);
    expect((await store.listGuild('g1')).map((s) => s.channelId)).toEqual(['c2']);
  });

  it('erases a server the bot left after its wait, leaving no key of it behind', async () => {
    const store = await open();
    await store.upsert('g1', 'c1', 5, () => makeSubscription());
    await store.putDelivery({ channelId: 'c1', day: '2026-06-15', state: 'sent', nonce: 'abc', attempts: 1, updatedAt: '2026-06-15T09:00:00.000Z' });
    expect(await store.markGuildRemoved('g1', '2026-06-15T10:00:00.000Z')).toBe(true);
    expect(await store.guildRemovals()).toEqual([{ guildId: 'g1', at: '2026-06-15T10:00:00.000Z' }]);
    expect(await store.eraseRemovedGuild('g1', '2026-06-15T09:00:00.000Z')).toBeNull();
    expect((await store.eraseRemovedGuild('g1', '2026-07-15T10:00:00.000Z'))?.map((s) => s.channelId)).toEqual(['c1']);
    await store.deleteDeliveriesOn(['c1'], ['2026-06-14', '2026-06-15']);
    const left = (await keysUnder(redis.prefix)).filter((key) => !key.startsWith('mutex:') && !/::index:\d+$/.test(key));
    expect(left).toEqual([`${redis.prefix}subscriptions::removals`]);
    expect(await store.guildRemovals()).toEqual([]);
  });
});

// Cluster mode: the same on every store several processes share, with the locks on Redis.
for (const backend of clusterBackends) {
  backend.describe(`SubscriptionStore shared by processes, on ${backend.name}`, () => {
    let location: StoreLocation;
    beforeEach(async () => {
      location = await backend.fresh();
    });

    async function open(): Promise<SubscriptionStore> {
      const store = await SubscriptionStore.open(location);
      stores.push(store);
      return store;
    }

    it('two stores that share no in-process lock keep the per-server limit and lose no change', async () => {
      const [a, b] = await Promise.all([open(), open()]);
      await a.upsert('elsewhere', 'shared', 5, () => makeSubscription({ guildId: 'elsewhere', channelId: 'shared' }));
      const writers = await Promise.all([
        hammer(a, 'A', SHAPE).then((result) => ({ name: 'A', ...result })),
        hammer(b, 'B', SHAPE).then((result) => ({ name: 'B', ...result })),
      ]);
      await expectNothingLost(a, writers);
    });

    it('two bot processes on one store keep the per-server limit and lose no change', async () => {
      const store = await open();
      await store.upsert('elsewhere', 'shared', 5, () => makeSubscription({ guildId: 'elsewhere', channelId: 'shared' }));
      const writers = [writerProcess('A', location), writerProcess('B', location)];
      await Promise.all(writers.map((writer) => writer.ready));
      for (const writer of writers) writer.go();
      await expectNothingLost(store, await Promise.all(writers.map((writer) => writer.result)));
    });
  });
}
