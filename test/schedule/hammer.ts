import type { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { makeSubscription } from './helpers.ts';

/**
 * One writer's share of the concurrent-writers tests, all at once on `store`: it races for places in server
 * "busy" (limit `limit`), subscribes `channels` channels of its own in server "churn" and unsubscribes every
 * other one, and appends its name to channel "shared"'s name `rounds` times. Returns what it got into "busy".
 */
export async function hammer(
  store: SubscriptionStore,
  name: string,
  { limit, channels, rounds }: { limit: number; channels: number; rounds: number },
): Promise<{ created: string[] }> {
  const ids = Array.from({ length: channels }, (_, i) => `${name}${i}`);
  const racing = Promise.all(
    ids.map((id) => store.upsert('busy', `busy-${id}`, limit, () => makeSubscription({ guildId: 'busy', channelId: `busy-${id}` }))),
  );
  const churning = Promise.all(
    ids.map(async (id, i) => {
      await store.upsert('churn', id, 1_000, () => makeSubscription({ guildId: 'churn', channelId: id }));
      if (i % 2 === 0) await store.remove('churn', id);
    }),
  );
  const renaming = Promise.all(
    Array.from({ length: rounds }, () => store.update('shared', (s) => ({ ...s, channelName: `${s.channelName}${name}` }))),
  );
  const [raced] = await Promise.all([racing, churning, renaming]);
  return { created: raced.flatMap((result) => (result.kind === 'created' ? [result.subscription.channelId] : [])) };
}
