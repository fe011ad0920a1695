import { afterEach, expect, it } from 'vitest';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { describeRedis, keysUnder, useRedisPrefix } from '../support/redis.ts';
import { makeSubscription } from './helpers.ts';

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
});
