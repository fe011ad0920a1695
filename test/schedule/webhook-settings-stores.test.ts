import { afterEach, expect, it } from 'vitest';
import { createSubscriptionService, settingsOf, type SubscribeRequest } from '../../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { storeBackends } from '../support/store-backends.ts';
import { makeSubscription } from './helpers.ts';

/** The webhook identity is kept in the subscription record on every store; a record without it posts as the bot. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const request: SubscribeRequest = { guildId: 'g1', channelId: 'c1', channelName: 'words', userId: 'u1' };

for (const backend of storeBackends) {
  backend.describe(`the webhook identity on ${backend.name}`, () => {
    it('is stored, kept by edits that leave it out, reset, and absent from a record written before it', async () => {
      const store = await SubscriptionStore.open(await backend.fresh());
      cleanups.push(() => store.close());
      await store.upsert('g1', 'old', 5, () => makeSubscription({ channelId: 'old' }));
      expect(settingsOf((await store.get('old')) ?? makeSubscription())).toMatchObject({ webhookName: null, webhookAvatar: null });

      const service = createSubscriptionService({ store, limit: 5 });
      await service.subscribe({ ...request, webhookName: 'Word Owl', webhookAvatar: 'https://example.com/owl.png' });
      await service.subscribe({ ...request, time: '07:30' });
      expect(await store.get('c1')).toMatchObject({ time: '07:30', webhookName: 'Word Owl', webhookAvatar: 'https://example.com/owl.png' });
      await service.subscribe({ ...request, reset: ['webhookName', 'webhookAvatar'] });
      const reset = await store.get('c1');
      expect(reset?.time).toBe('07:30');
      expect(reset && 'webhookName' in reset).toBe(false);
      expect(reset && 'webhookAvatar' in reset).toBe(false);
    });
  });
}
