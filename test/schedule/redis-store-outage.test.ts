import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { RedisDeliveryClaims } from '../../src/cluster/redis-delivery-claims.ts';
import { RedisUpstreamBudget } from '../../src/cluster/redis-upstream-budget.ts';
import { createChannelPoster } from '../../src/discord/channel-poster.ts';
import { openRedisConnection } from '../../src/store/redis-connection.ts';
import { entryEmbed } from '../../src/replies/embeds.ts';
import type { HealthReport } from '../../src/metrics/health.ts';
import { createBotMetrics } from '../../src/metrics/registry.ts';
import { startMetricsServer } from '../../src/metrics/metrics-server.ts';
import { openDailyPosts, type DailyPosts } from '../../src/schedule/daily-posts.ts';
import type { DeliveryOutcome } from '../../src/schedule/delivery.ts';
import { currentSlot } from '../../src/schedule/due.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { openStore } from '../../src/store/open-store.ts';
import { runNotingWrites, StoreError, type WriteTrace } from '../../src/store/store-watch.ts';
import { STORE_FAILED_PARTWAY_REPLY, STORE_FAILED_REPLY, storeFailureReply } from '../../src/replies/store-failure.ts';
import { createWotdAdapter } from '../../src/wotd/adapter.ts';
import { scrape } from '../metrics/prom-text.ts';
import { ADMIN_ID, finalAnswer, SITE_URL, startFaultWorld, TODAY, type FaultWorld } from '../faults/world.ts';
import type { StoreLocation } from '../../src/store/open-store.ts';
import { postgresTestUrl } from '../support/postgres.ts';
import { describeRedis, redisTestUrl, useRedisPrefix } from '../support/redis.ts';
import { redisLink, storeLink, type RedisLink } from '../support/redis-link.ts';
import { postgresBackend, redisBackend, type StoreBackend } from '../support/store-backends.ts';
import { captureLogger, FixedLookup } from './helpers.ts';

/**
 * The bot's Keyv stores on a server (subscriptions, deliveries, the cache: on Redis, or on PostgreSQL) while the
 * server is away: a loopback TCP proxy in front of the real one is cut and restored. A write that did not happen is
 * an error, a read that failed is not "nothing stored", /healthz names the failing store and recovers by itself, and
 * the failures are counted. The real bot answers through the local Discord server, which forgets nonces after
 * 300 ms, so a post the bot lost track of would show up as a second message.
 */

let world: FaultWorld;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  if (redisTestUrl !== null || postgresTestUrl !== null) world = await startFaultWorld({ nonceWindowMs: 300 });
});
afterAll(async () => {
  await world?.close();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Each store, and the stores /healthz lists for it (locks are Redis's; on PostgreSQL in one process they are in-process). */
const OUTAGES: Array<{ backend: StoreBackend; stores: string[] }> = [
  { backend: redisBackend, stores: ['subscriptions', 'deliveries', 'locks', 'wotd-cache'] },
  { backend: postgresBackend, stores: ['subscriptions', 'deliveries', 'wotd-cache'] },
];

for (const { backend, stores } of OUTAGES) {
  backend.describe(`the stores on ${backend.name} while ${backend.name} is away`, () => {
    /** Where the test's stores are: its own store, reached through a link the test cuts. */
    async function linked(): Promise<{ link: RedisLink; location: StoreLocation }> {
      const location = await backend.fresh();
      const link = await storeLink(location.url);
      cleanups.push(() => link.close());
      return { link, location: { ...location, url: link.url } };
    }

    async function openOnLink(): Promise<{ link: RedisLink; daily: DailyPosts; location: StoreLocation }> {
      const { link, location } = await linked();
      const { logger } = captureLogger();
      const daily = await openDailyPosts({ store: location, limit: 25, concurrency: 1, logger, now: world.now });
      cleanups.push(() => daily.close());
      world.services.subscriptions = daily.subscriptions;
      return { link, daily, location };
    }

    function command(name: string, channelId?: string) {
      const handle = world.discord.invokeCommand({
        name,
        options: channelId ? { channel: channelId } : {},
        channelId: world.guild.channelId('general'),
        user: ADMIN_ID,
      });
      return finalAnswer(world, handle, 20_000);
    }

    it('a change fails and says nothing changed, and a read fails rather than finding nothing', async () => {
      const { link, daily } = await openOnLink();
      const kept = world.discord.addChannel(world.guild.id, { name: 'kept' }).id;
      const refused = world.discord.addChannel(world.guild.id, { name: 'refused' }).id;
      expect((await command('wotd-subscribe', kept)).content).toMatch(/^Subscribed/);

      await link.cut();
      expect((await command('wotd-subscribe', refused)).content).toBe(STORE_FAILED_REPLY);
      expect((await command('wotd-unsubscribe', kept)).content).toBe(STORE_FAILED_REPLY);
      // Not "no subscriptions": the list could not be read.
      expect((await command('wotd-subscriptions')).content).toBe(STORE_FAILED_REPLY);
      await expect(daily.store.listAll()).rejects.toBeInstanceOf(StoreError);
      await expect(daily.store.get(kept)).rejects.toBeInstanceOf(StoreError);
      const record = { channelId: kept, day: TODAY, state: 'sent' as const, nonce: 'n', attempts: 1, updatedAt: world.now().toISOString() };
      await expect(daily.store.putDelivery(record)).rejects.toBeInstanceOf(StoreError);

      await link.restore();
      // Nothing changed: the kept channel is still subscribed, the refused one is not, and no delivery was recorded.
      // Each namespace's connection comes back on its own back-off.
      const [listed, delivery] = await vi.waitFor(() => Promise.all([daily.store.listAll(), daily.store.getDelivery(kept, TODAY)]), {
        timeout: 15_000,
        interval: 200,
      });
      expect(listed.map((subscription) => subscription.channelId)).toEqual([kept]);
      expect(delivery).toBeNull();
    });

    it('a store failure after some of the work was written says so, instead of "nothing was changed"', async () => {
      const { link, daily } = await openOnLink();
      const record = (channelId: string) => ({ channelId, day: TODAY, state: 'sent' as const, nonce: 'n', attempts: 1, updatedAt: world.now().toISOString() });
      const partway: WriteTrace = { wrote: false };
      const error = await runNotingWrites(partway, async () => {
        await daily.store.putDelivery(record('600000000000000001'));
        await link.cut();
        await daily.store.putDelivery(record('600000000000000002'));
      }).then(() => null, (failure: unknown) => failure);
      expect(error).toBeInstanceOf(StoreError);
      expect(storeFailureReply(error, partway)).toBe(STORE_FAILED_PARTWAY_REPLY);

      const untouched: WriteTrace = { wrote: false };
      const second = await runNotingWrites(untouched, () => daily.store.putDelivery(record('600000000000000003'))).then(() => null, (failure: unknown) => failure);
      expect(storeFailureReply(second, untouched)).toBe(STORE_FAILED_REPLY);
      expect(storeFailureReply(new Error('not the store'), untouched)).toBeNull();
    });

    it(`/healthz names each failing store while ${backend.name} is away, is 200 again after, and the failures are counted`, async () => {
      const { link, daily, location } = await openOnLink();
      const metrics = createBotMetrics({ mode: 'console', defaultMetrics: false, maxTickAgeMs: 60 * 60_000 });
      const server = await startMetricsServer({ metrics, port: 0, host: '127.0.0.1' });
      cleanups.push(() => server.close());
      const adapter = await createWotdAdapter({
        baseUrl: world.service.url,
        store: await openStore(location, 'wotd-cache'),
        ownsStore: true,
        variant: 'A',
        now: world.now,
      });
      cleanups.push(() => adapter.close());
      metrics.watchStore(daily.store);
      metrics.watchAdapter(adapter);
      const health = async () => {
        const response = await fetch(`${server.url}/healthz`);
        return { status: response.status, body: (await response.json()) as HealthReport };
      };
      const errors = async (store: string, operation: string) => (await scrape(server.url)).get('wotd_bot_store_errors_total', { store, operation }) ?? 0;

      const before = await health();
      expect(before.status).toBe(200);
      expect(before.body.stores).toEqual(Object.fromEntries(stores.map((store) => [store, 'ok'])));
      const readErrorsBefore = await errors('subscriptions', 'read');
      const cacheErrorsBefore = await errors('wotd-cache', 'read');

      await link.cut();
      const during = await health();
      expect(during.status).toBe(503);
      expect(during.body.failing).toEqual(['store']);
      for (const store of stores) expect(during.body.stores[store]).toMatch(/^unreachable: /);
      expect(during.body.store).toMatch(/^unreachable: .*subscriptions: .*wotd-cache: /);

      // A lookup is still answered (from the service), but the cache's failed read is counted, not taken for a miss.
      expect((await adapter.getEntry('2025-01-14')).value.word).toBeTruthy();
      await expect(daily.store.listAll()).rejects.toBeInstanceOf(StoreError);
      expect(await errors('subscriptions', 'read')).toBeGreaterThan(readErrorsBefore);
      expect(await errors('wotd-cache', 'read')).toBeGreaterThan(cacheErrorsBefore);
      expect(await errors('subscriptions', 'probe')).toBeGreaterThan(0);

      await link.restore();
      await vi.waitFor(async () => expect((await health()).status).toBe(200), { timeout: 15_000, interval: 250 });
      expect((await health()).body).toMatchObject({ status: 'ok', failing: [], store: 'ok' });
    });

    it('a daily post whose record could not be written is not reported as sent, and is not posted again after', async () => {
      const { link, daily } = await openOnLink();
      const first = world.discord.addChannel(world.guild.id, { name: 'first' }).id;
      const second = world.discord.addChannel(world.guild.id, { name: 'second' }).id;
      for (const channelId of [first, second]) {
        const result = await daily.subscriptions.subscribe({
          guildId: world.guild.id,
          channelId,
          channelName: channelId,
          time: '00:00',
          timeZone: 'UTC',
          roleId: null,
          userId: ADMIN_ID,
        });
        expect(result.kind).toBe('created');
      }
      const outcomes: DeliveryOutcome[] = [];
      let cut = false;
      const { logger } = captureLogger();
      const scheduler = new DailyScheduler({
        store: daily.store,
        lookup: new FixedLookup(),
        poster: createChannelPoster(world.bot.client.rest),
        render: (entry) => entryEmbed(entry, { siteUrl: SITE_URL }),
        logger,
        concurrency: 1,
        now: world.now,
        hooks: {
          // The store goes away after Discord accepted the first post and before it is recorded as sent.
          afterSend: async () => {
            if (cut) return;
            cut = true;
            await link.cut();
          },
          afterJob: (outcome) => outcomes.push(outcome),
        },
      });

      await scheduler.tick().catch(() => null);
      expect(cut).toBe(true);
      expect(outcomes).toHaveLength(2);
      expect(outcomes.filter((outcome) => outcome === 'sent'), 'reported as sent while the store was away').toEqual([]);
      const postedDuring = [first, second].map((channelId) => world.discord.messagesIn(channelId).length);
      expect(postedDuring.reduce((sum, count) => sum + count, 0)).toBe(1);

      await link.restore();
      await vi.waitFor(
        async () => {
          await scheduler.tick();
          expect([first, second].map((channelId) => world.discord.messagesIn(channelId).length)).toEqual([1, 1]);
        },
        { timeout: 20_000, interval: 300 },
      );
      // More passes find nothing owed: each channel has its one post, and its record says so.
      await scheduler.tick();
      expect([first, second].map((channelId) => world.discord.messagesIn(channelId).length)).toEqual([1, 1]);
      for (const channelId of [first, second]) {
        const subscription = await daily.store.get(channelId);
        if (!subscription) throw new Error(`${channelId} is no longer subscribed`);
        const record = await daily.store.getDelivery(channelId, currentSlot(subscription, world.now()).serviceDay);
        if (record?.state !== 'sent') throw new Error(`${channelId}'s record is ${record?.state ?? 'missing'}, not sent`);
        expect(record.messageId).toBe(world.discord.messagesIn(channelId)[0]?.id);
      }
    });
  });
}

describeRedis("the cluster's claims and budget while Redis is away", () => {
  const space = useRedisPrefix();

  it('a cluster claim Redis cannot answer is counted and fails the check, which passes again when Redis is back', async () => {
    const link = await redisLink(redisTestUrl ?? '');
    cleanups.push(() => link.close());
    const redis = await openRedisConnection(link.url, { purpose: 'cluster', whileDown: 'away', whenBack: 'back' });
    cleanups.push(() => redis.disconnect());
    const claims = new RedisDeliveryClaims(redis, space.prefix);
    await (await claims.claim('700000000000000001', TODAY))?.release();
    expect(claims.watch.errorCounts().get('lock') ?? 0).toBe(0);

    await link.cut();
    expect(await claims.claim('700000000000000002', TODAY)).toBeNull();
    expect(claims.watch.errorCounts().get('lock')).toBe(1);
    await expect(claims.watch.check()).rejects.toBeInstanceOf(StoreError);

    await link.restore();
    await vi.waitFor(() => claims.watch.check(), { timeout: 15_000, interval: 250 });
    expect(await claims.claim('700000000000000002', TODAY)).not.toBeNull();
  });

  it("the shared upstream budget counts a slot it cannot take or touch, and checks healthy again when Redis is back", async () => {
    const link = await redisLink(redisTestUrl ?? '');
    cleanups.push(() => link.close());
    const redis = await openRedisConnection(link.url, { purpose: 'cluster', whileDown: 'away', whenBack: 'back' });
    cleanups.push(() => redis.disconnect());
    const { logger, lines } = captureLogger();
    const budget = new RedisUpstreamBudget({ redis, prefix: space.prefix, limit: 10, scope: 'service', logger });
    cleanups.push(() => budget.close());
    const slot = await budget.take('query', 'interactive', 1_000);
    expect(slot).not.toBeNull();

    await link.cut();
    // The answer arrived while Redis was away: the touch fails, and is counted rather than thrown or forgotten.
    await slot?.answered();
    expect(budget.watch.errorCounts().get('lock')).toBe(1);
    // A slot that cannot be taken falls back to the process's own budget, and is counted too.
    const fallback = await budget.take('query', 'interactive', 1_000);
    await fallback?.answered();
    expect(budget.watch.errorCounts().get('lock')).toBe(2);
    expect(lines.some((line) => String(line.msg).includes('falls back to its own small budget'))).toBe(true);
    await expect(budget.watch.check()).rejects.toBeInstanceOf(StoreError);

    await link.restore();
    await vi.waitFor(() => budget.watch.check(), { timeout: 15_000, interval: 250 });
  });
});
