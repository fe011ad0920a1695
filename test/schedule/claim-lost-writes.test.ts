import { afterEach, expect, it } from 'vitest';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { fanOut } from '../../src/schedule/delivery.ts';
import type { DeliveryClaims } from '../../src/schedule/delivery-claims.ts';
import { currentSlot } from '../../src/schedule/due.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { captureLogger, entryFor, makeSubscription, RecordingPoster } from './helpers.ts';

/**
 * A cluster member whose claim runs out while it looks in the channel for an earlier attempt's post (a slow
 * channel, or the process stopped with SIGSTOP meanwhile) writes nothing when the look ends: neither the `retrying`
 * of a look that failed, nor the `sent` of a post it found, nor the failure of a post. The day is its new holder's,
 * whose own record (perhaps `sent` by now) must not be overwritten (issue 31).
 */

const AT = new Date('2026-06-15T09:05:00Z');
const DAY = '2026-06-15';
const stores: SubscriptionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** A claim that lasts until the channel is looked in, and is lost by the time the look answers. */
function claimsLostDuring(poster: RecordingPoster): DeliveryClaims {
  return {
    claim: async () => ({ held: () => poster.lookups.length === 0, release: async () => undefined }),
  };
}

for (const [name, lookup] of [
  ['fails', 'transient'],
  ['finds the earlier post', 'found'],
] as const) {
  it(`a look in the channel that ${name} after the claim ran out records nothing`, async () => {
    const store = await SubscriptionStore.open('memory://');
    stores.push(store);
    const subscription = makeSubscription({ channelId: 'c1', time: '09:00' });
    await store.upsert(subscription.guildId, 'c1', 100, () => subscription);
    const sending = { channelId: 'c1', day: DAY, state: 'sending' as const, nonce: 'n', attempts: 1, attemptStartedAt: `${DAY}T09:00:00.000Z`, updatedAt: `${DAY}T09:00:00.000Z` };
    await store.putDelivery(sending);
    const poster = new RecordingPoster();
    const embed = entryEmbed(entryFor(DAY), { siteUrl: 'https://wotd.site' });
    if (lookup === 'transient') poster.lookupFaults.set('c1', 'transient');
    else await poster.post({ channelId: 'c1', channelName: 'c1', day: DAY, embeds: [embed], nonce: 'n', mentionRoleId: null });
    const { logger, lines } = captureLogger();
    const report = await fanOut([{ channelId: 'c1', slot: currentSlot(subscription, AT), embed, record: sending }], {
      store,
      poster,
      concurrency: 1,
      logger,
      now: () => AT,
      claims: claimsLostDuring(poster),
    });
    expect(report).toMatchObject({ sent: 0, retrying: 0, skipped: 1 });
    expect(await store.getDelivery('c1', DAY)).toMatchObject({ state: 'sending', attempts: 1 });
    expect(lines.some((line) => String(line.msg).includes('claim on this channel'))).toBe(true);
  });
}
