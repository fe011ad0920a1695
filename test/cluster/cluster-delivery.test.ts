import { afterEach, beforeEach, expect, it } from 'vitest';
import { RedisDeliveryClaims } from '../../src/cluster/redis-delivery-claims.ts';
import { createClusterPacer } from '../../src/cluster/redis-discord-pacer.ts';
import { createChannelPoster } from '../../src/discord/channel-poster.ts';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { fanOut } from '../../src/schedule/delivery.ts';
import type { DeliveryClaims } from '../../src/schedule/delivery-claims.ts';
import { currentSlot } from '../../src/schedule/due.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { PostgresDeliveryClaims } from '../../src/schedule/postgres-delivery-claims.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { isPostgresStore, type StoreLocation } from '../../src/store/open-store.ts';
import { openRedisConnection } from '../../src/store/redis-connection.ts';
import { restFor, startDiscordServer, type DiscordServer } from '../support/discord/index.ts';
import { redisTestUrl } from '../support/redis.ts';
import { clusterBackends } from '../support/store-backends.ts';
import { captureLogger, entryFor, FixedLookup, makeSubscription } from '../schedule/helpers.ts';

/**
 * Daily posts shared by several processes on one Redis, their data on Redis or in PostgreSQL: each "process" here
 * has its own store connection, claims and REST client, as separate processes would; only the servers are common.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const AT = new Date('2026-06-15T09:05:00Z');
const DAY = '2026-06-15';
const render = (entry: ReturnType<typeof entryFor>) => entryEmbed(entry, { siteUrl: 'https://wotd.site' });

/** One cluster member on `location`: claims where the bot keeps them (in the PostgreSQL store, else on Redis). */
async function member(discord: DiscordServer, location: StoreLocation, leaseMs: number) {
  const prefix = location.keyPrefix ?? '';
  const store = await SubscriptionStore.open(location);
  const redis = await openRedisConnection(redisTestUrl ?? '', { purpose: 'test', whileDown: 'down', whenBack: 'back' });
  cleanups.push(() => store.close(), () => redis.disconnect());
  let claims: DeliveryClaims;
  if (isPostgresStore(location)) {
    const onStore = await PostgresDeliveryClaims.open(location.url, leaseMs);
    cleanups.push(() => onStore.close());
    claims = onStore;
  } else {
    claims = new RedisDeliveryClaims(redis, prefix, leaseMs);
  }
  const pace = createClusterPacer({ redis, prefix, perSecond: 40 });
  const poster = createChannelPoster(restFor(discord, { retries: 1 }), { waitForTurn: async () => (await pace()).done() });
  return { store, claims, poster };
}

for (const backend of clusterBackends) {
  backend.describe(`daily posts shared by processes, on ${backend.name}`, () => {
    let location: StoreLocation;
    beforeEach(async () => {
      location = await backend.fresh();
    });

    it('post each channel once, and finish the share of a process that died between post and record', async () => {
      const discord = await startDiscordServer();
      cleanups.push(() => discord.close());
      const guild = discord.addGuild({ name: 'Words', channels: Array.from({ length: 24 }, (_, i) => ({ name: `words-${i}` })) });
      const [a, b, dead] = [await member(discord, location, 2_000), await member(discord, location, 2_000), await member(discord, location, 2_000)];
      const subscriptions = guild.channels.map((channel) => makeSubscription({ guildId: guild.id, channelId: channel.id, channelName: channel.name }));
      for (const subscription of subscriptions) await a.store.upsert(guild.id, subscription.channelId, 100, () => subscription);

      // The third process claims five channels, posts, and dies before recording or releasing anything.
      const neverReleased: DeliveryClaims = {
        claim: async (channelId, day) => ((await dead.claims.claim(channelId, day)) ? { held: () => true, release: async () => undefined } : null),
      };
      const { logger } = captureLogger();
      const doomed = subscriptions.slice(0, 5).map((subscription) => ({
        channelId: subscription.channelId,
        slot: currentSlot(subscription, AT),
        embed: render(entryFor(DAY)),
        record: null,
      }));
      await fanOut(doomed, {
        store: dead.store,
        poster: dead.poster,
        concurrency: 5,
        logger,
        now: () => AT,
        claims: neverReleased,
        hooks: {
          afterSend: () => {
            throw new Error('killed');
          },
        },
      });
      expect(discord.allMessages()).toHaveLength(5);

      const scheduler = (process: typeof a) =>
        new DailyScheduler({ store: process.store, lookup: new FixedLookup(), poster: process.poster, render, logger, concurrency: 6, claims: process.claims });
      // While the dead process's claims last, the living two share the other nineteen.
      const [first, second] = await Promise.all([scheduler(a).tick(AT), scheduler(b).tick(AT)]);
      expect(first.sent + second.sent).toBe(19);
      expect(first.sent).toBeGreaterThan(0);
      expect(second.sent).toBeGreaterThan(0);

      // Its leases run out; the next pass takes its five over, and the nonce keeps each to one message.
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      const later = await scheduler(b).tick(new Date(AT.getTime() + 60_000));
      expect(later.sent).toBe(5);
      const perChannel = new Map<string, number>();
      for (const message of discord.allMessages()) perChannel.set(message.channelId, (perChannel.get(message.channelId) ?? 0) + 1);
      expect(perChannel.size).toBe(24);
      expect([...perChannel.values()].every((count) => count === 1)).toBe(true);
      const records = await a.store.getDeliveries(subscriptions.map((subscription) => subscription.channelId), DAY);
      expect(records.every((record) => record?.state === 'sent')).toBe(true);
      expect(await scheduler(a).tick(new Date(AT.getTime() + 120_000))).toMatchObject({ total: 0 });
    });

    it('a process paused past its claim records and posts nothing when it resumes: the other posts the day, once (issue 31)', async () => {
      // Discord's nonce window is over by then, so only the claim's fence can stop a second post.
      const discord = await startDiscordServer({ nonceWindowMs: 50 });
      cleanups.push(() => discord.close());
      const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'words' }] });
      const channel = guild.channels[0];
      if (!channel) throw new Error('no channel');
      const LEASE_MS = 900;
      const [paused, other] = [await member(discord, location, LEASE_MS), await member(discord, location, LEASE_MS)];
      const subscription = makeSubscription({ guildId: guild.id, channelId: channel.id, channelName: channel.name });
      await paused.store.upsert(guild.id, channel.id, 100, () => subscription);
      const { logger, lines } = captureLogger();
      const scheduler = (process: typeof paused, store = process.store) =>
        new DailyScheduler({ store, lookup: new FixedLookup(), poster: process.poster, render, logger, concurrency: 2, claims: process.claims });
      // The paused process re-reads the channel's record under its claim, then its whole thread stops (as under
      // SIGSTOP) past the lease; meanwhile the other process claims the day, posts and records it.
      let pauseOnce = true;
      const pausingStore = new Proxy(paused.store, {
        get(target, name, receiver) {
          if (name !== 'getDelivery') return Reflect.get(target, name, receiver) as unknown;
          return async (...args: Parameters<SubscriptionStore['getDelivery']>) => {
            const read = await target.getDelivery(...args);
            if (pauseOnce) {
              pauseOnce = false;
              Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, LEASE_MS + 200);
              expect(await scheduler(other).tick(AT)).toMatchObject({ sent: 1 });
            }
            return read;
          };
        },
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const resumed = await scheduler(paused, pausingStore).tick(AT);
      expect(resumed.sent).toBe(0);
      expect(discord.allMessages()).toHaveLength(1);
      expect((await other.store.getDelivery(channel.id, DAY))?.state).toBe('sent');
      expect(lines.some((line) => String(line.msg).includes('claim on this channel'))).toBe(true);
    });
  });
}
