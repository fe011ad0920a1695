import { afterEach, expect, it } from 'vitest';
import { createBotMetrics } from '../../src/metrics/registry.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { startDiscordServer } from '../support/discord/index.ts';
import { render, schedulerFor } from './discord-scheduler.ts';
import { storeBackends } from '../support/store-backends.ts';
import { entryFor, makeSubscription } from './helpers.ts';

/**
 * Finding 8 of issue 20: a delivery record that is stored but cannot be read (not JSON, the wrong shape, an unknown
 * state) is an unknown outcome, like a crash between the post and its record: the day is confirmed against the
 * channel, never posted again on the strength of "no record".
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const DAY = '2026-06-15';
const nine = new Date(`${DAY}T09:00:00Z`);

const DAMAGE: Array<[label: string, text: string]> = [
  ['unparseable JSON', '{"value":{"channelId":"'],
  ['the wrong shape', '{"value":[1,2,3]}'],
  ['an unknown state', JSON.stringify({ value: { channelId: 'CHANNEL', day: DAY, state: 'delivered?', nonce: 'x', attempts: 1, updatedAt: `${DAY}T09:00:00.000Z` } })],
  ['no value at all', '"just a string"'],
];

/**
 * The local Discord server (nonces forgotten at once: only looking in the channel can stop a second post) with one
 * guild of these channels, each subscribed on a fresh store of `backend`.
 */
async function subscribed(backend: (typeof storeBackends)[number], names: string[]) {
  const discord = await startDiscordServer({ nonceWindowMs: 1 });
  cleanups.push(() => discord.close());
  const guild = discord.addGuild({ name: 'Words', channels: names.map((name) => ({ name })) });
  const location = await backend.fresh();
  const store = await SubscriptionStore.open(location);
  cleanups.push(() => store.close());
  for (const channelId of names.map((name) => guild.channelId(name))) await store.upsert(guild.id, channelId, 50, () => makeSubscription({ guildId: guild.id, channelId }));
  return { discord, guild, location, store };
}

// On every store: each keeps what it is given as text, and any of them can be found holding a damaged record.
for (const backend of storeBackends) {
  backend.describe(`a damaged delivery record, on ${backend.name}`, () => {
    for (const [label, text] of DAMAGE) {
      it(`(${label}) is confirmed against the channel: the post there is recorded and not made again, and the damage is logged and counted`, async () => {
        const { discord, guild, location, store } = await subscribed(backend, ['daily']);
        const daily = guild.channelId('daily');
        const metrics = createBotMetrics({ mode: 'discord', defaultMetrics: false });
        const { scheduler, lines } = schedulerFor(discord, store, { concurrency: 2, observer: metrics.scheduler });

        expect(await scheduler.tick(nine)).toMatchObject({ sent: 1 });
        const [post] = discord.messagesIn(daily);
        await backend.overwrite(location, 'deliveries', `${daily}:${DAY}`, text.replace('CHANNEL', daily));
        // A day already sent is not read again until the channel is next due (the due-time index, issue 33): damage
        // made behind the store's back is read then. Here the channel is made due as a change of its subscription,
        // a rebuilt index or the index check would make it.
        await store.reindex(daily);
        await new Promise((resolve) => setTimeout(resolve, 20));

        expect(await scheduler.tick(new Date(`${DAY}T09:05:00Z`))).toMatchObject({ sent: 1, failed: 0, retrying: 0 });
        expect(discord.posts(daily)).toHaveLength(1);
        expect(discord.messagesIn(daily)).toHaveLength(1);
        expect(await store.getDelivery(daily, DAY)).toMatchObject({ state: 'sent', messageId: post?.id });
        expect(discord.requests.some((request) => request.route === 'GET /channels/:channel_id/messages')).toBe(true);
        expect(lines.some((line) => line.msg === "the day's delivery record is damaged; looking in the channel for the day's post before posting")).toBe(true);
        expect(await metrics.text()).toMatch(/^wotd_bot_delivery_records_damaged_total 1$/m);
        // Recorded now: the next tick leaves the channel alone.
        expect(await scheduler.tick(new Date(`${DAY}T09:10:00Z`))).toMatchObject({ total: 0 });
      });
    }

    it('whose day was never posted is posted once, after looking; other channels are not held up by it', async () => {
      const { discord, guild, location, store } = await subscribed(backend, ['daily', 'other']);
      const daily = guild.channelId('daily');
      const other = guild.channelId('other');
      // A record of the day written before the post (and then damaged): the post never went out.
      await store.putDelivery({ channelId: daily, day: DAY, state: 'sending', nonce: 'n', attempts: 1, updatedAt: `${DAY}T08:59:00.000Z` });
      await backend.overwrite(location, 'deliveries', `${daily}:${DAY}`, 'not json at all');
      const { scheduler } = schedulerFor(discord, store, { concurrency: 2 });

      expect(await scheduler.tick(nine)).toMatchObject({ sent: 2 });
      expect(discord.messagesIn(daily).map((message) => message.embeds[0]?.title)).toEqual([render(entryFor(DAY)).title]);
      expect(discord.messagesIn(other)).toHaveLength(1);
      expect(await store.getDelivery(daily, DAY)).toMatchObject({ state: 'sent', attempts: 1 });
    });

    it('whose attempt time is not a time is confirmed from the earliest an attempt could have begun, and not posted again', async () => {
      const { discord, guild, store } = await subscribed(backend, ['daily']);
      const daily = guild.channelId('daily');
      const { scheduler } = schedulerFor(discord, store, { concurrency: 2 });
      expect(await scheduler.tick(nine)).toMatchObject({ sent: 1 });
      const [post] = discord.messagesIn(daily);
      await store.putDelivery({ channelId: daily, day: DAY, state: 'sending', nonce: 'n', attempts: 1, attemptStartedAt: 'yesterday-ish', updatedAt: 'later' });
      await new Promise((resolve) => setTimeout(resolve, 20));

      expect(await scheduler.tick(new Date(`${DAY}T09:05:00Z`))).toMatchObject({ sent: 1 });
      expect(discord.messagesIn(daily)).toHaveLength(1);
      expect(await store.getDelivery(daily, DAY)).toMatchObject({ state: 'sent', messageId: post?.id });
    });
  });
}
