import { afterEach, expect, it } from 'vitest';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { fanOut } from '../../src/schedule/delivery.ts';
import type { DeliveryClaims } from '../../src/schedule/delivery-claims.ts';
import { currentSlot } from '../../src/schedule/due.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { captureLogger, entryFor, makeSubscription, RecordingPoster } from './helpers.ts';

/**
 * A cluster member whose claim runs out while it looks in the channel for an earlier attempt's post (a slow
 * channel, or the process stopped with SIGSTOP meanwhile) records no failure when the look fails: its `retrying`
 * would overwrite the record of the day's new holder (perhaps `sent` by now) and make the day owed again, posted
 * a second time where the channel cannot be looked in. A post it found is recorded: it is there whoever holds the
 * day (issue 31).
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

async function lookAfterTheClaimRanOut(lookup: 'fails' | 'finds the earlier post') {
  const store = await SubscriptionStore.open('memory://');
  stores.push(store);
  const subscription = makeSubscription({ channelId: 'c1', time: '09:00' });
  await store.upsert(subscription.guildId, 'c1', 100, () => subscription);
  const sending = { channelId: 'c1', day: DAY, state: 'sending' as const, nonce: 'n', attempts: 1, attemptStartedAt: `${DAY}T09:00:00.000Z`, updatedAt: `${DAY}T09:00:00.000Z` };
  await store.putDelivery(sending);
  const poster = new RecordingPoster();
  const embed = entryEmbed(entryFor(DAY), { siteUrl: 'https://wotd.site' });
  if (lookup === 'fails') poster.lookupFaults.set('c1', 'transient');
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
  return { report, record: await store.getDelivery('c1', DAY), poster, lines };
}

it('a look in the channel that fails after the claim ran out records nothing', async () => {
  const { report, record, poster, lines } = await lookAfterTheClaimRanOut('fails');
  expect(report).toMatchObject({ sent: 0, retrying: 0, skipped: 1 });
  expect(record).toMatchObject({ state: 'sending', attempts: 1 });
  expect(poster.attempts).toHaveLength(0);
  expect(lines.some((line) => String(line.msg).includes('claim on this channel'))).toBe(true);
});

it('a look that finds the earlier post after the claim ran out records it, and posts nothing', async () => {
  const { report, record, poster } = await lookAfterTheClaimRanOut('finds the earlier post');
  expect(report).toMatchObject({ sent: 1, skipped: 0 });
  expect(record).toMatchObject({ state: 'sent', messageId: poster.messages[0]?.id });
  expect(poster.messages).toHaveLength(1);
});
