import { afterEach, expect, it } from 'vitest';
import { RedisDeliveryClaims } from '../../src/cluster/redis-delivery-claims.ts';
import { RedisUpstreamBudget } from '../../src/cluster/redis-upstream-budget.ts';
import { createChannelPoster } from '../../src/discord/channel-poster.ts';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { openRedisConnection } from '../../src/store/redis-connection.ts';
import { openStore } from '../../src/store/open-store.ts';
import { createWotdAdapter } from '../../src/wotd/adapter.ts';
import { restFor, startDiscordServer } from '../support/discord/index.ts';
import { describeRedis, redisTestUrl, useRedisPrefix } from '../support/redis.ts';
import { redisLink } from '../support/redis-link.ts';
import { startWotdWorld } from '../support/wotd-world.ts';
import { captureLogger, FixedLookup, makeSubscription } from '../schedule/helpers.ts';
import { testEntries, TODAY } from '../commands/world.ts';

/**
 * Redis going away under a running member: a loopback TCP proxy in front of the real Redis is cut and restored, as
 * a network or server outage would look to the bot.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function eventually<T>(attempt: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describeRedis('a member while Redis is away', () => {
  const space = useRedisPrefix();

  it('answers lookups from the service, pauses daily posts, and posts each once when Redis is back', async () => {
    const link = await redisLink(redisTestUrl ?? '');
    cleanups.push(() => link.close());
    const discord = await startDiscordServer();
    cleanups.push(() => discord.close());
    const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] });
    const { logger, lines } = captureLogger();

    const location = { url: link.url, keyPrefix: space.prefix };
    const store = await SubscriptionStore.open(location, logger);
    const redis = await openRedisConnection(link.url, { purpose: 'cluster', logger, whileDown: 'Redis is away', whenBack: 'Redis is back' });
    cleanups.push(() => store.close(), () => redis.disconnect());
    for (const channel of guild.channels) {
      await store.upsert(guild.id, channel.id, 10, () => makeSubscription({ guildId: guild.id, channelId: channel.id }));
    }

    const wotd = await startWotdWorld({ entries: testEntries(), today: TODAY });
    cleanups.push(() => wotd.close());
    const budget = new RedisUpstreamBudget({ redis, prefix: space.prefix, limit: 10, logger, outagePerMinute: 2 });
    cleanups.push(() => budget.close());
    const adapter = await createWotdAdapter({
      baseUrl: wotd.proxy.url,
      store: await openStore(location, 'wotd-cache'),
      ownsStore: true,
      variant: 'A',
      budget,
      now: wotd.now,
      onStoreError: () => undefined,
    });
    cleanups.push(() => adapter.close());

    const scheduler = new DailyScheduler({
      store,
      lookup: new FixedLookup(),
      poster: createChannelPoster(restFor(discord, { retries: 0 })),
      render: (entry) => entryEmbed(entry, { siteUrl: 'https://wotd.site' }),
      logger,
      concurrency: 3,
      claims: new RedisDeliveryClaims(redis, space.prefix),
    });
    const at = new Date('2026-06-15T09:05:00Z');

    await link.cut();
    const started = Date.now();
    expect((await adapter.getEntry('2025-01-14')).value.word).toBe('serendipity');
    expect(Date.now() - started).toBeLessThan(3_000);
    // The pass either fails (a read refused) or finds nothing it can claim: either way nothing is posted.
    const during = await scheduler.tick(at).catch(() => null);
    expect(during?.sent ?? 0).toBe(0);
    expect(discord.allMessages()).toHaveLength(0);
    expect(lines.filter((line) => line.msg === 'shared upstream budget unavailable (Redis); this process falls back to its own small budget')).toHaveLength(1);

    await link.restore();
    // The connections come back on their own back-off; each pass until then finds nothing it can read or claim.
    await eventually(async () => {
      await scheduler.tick(at);
      if (discord.allMessages().length < 3) throw new Error('not posted yet');
    });
    expect(await scheduler.tick(new Date(at.getTime() + 60_000))).toMatchObject({ total: 0 });
    const channels = discord.allMessages().map((message) => message.channelId);
    expect(channels.sort()).toEqual(guild.channels.map((channel) => channel.id).sort());
  });
});
