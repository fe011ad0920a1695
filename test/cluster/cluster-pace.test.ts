import { PermissionFlagsBits } from 'discord.js';
import { afterEach, expect, it } from 'vitest';
import { openCluster } from '../../src/cluster/cluster.ts';
import { createClusterPacer, type TakeGlobalTurn } from '../../src/cluster/redis-discord-pacer.ts';
import { startDiscordBot } from '../../src/discord/bot.ts';
import { postsPerSecondFor } from '../../src/discord/channel-poster.ts';
import { countsTowardGlobalLimit, gatedMakeRequest, globalTurnPriority } from '../../src/discord/client.ts';
import { createDailyPoster } from '../../src/discord/daily-poster.ts';
import { startDiscordDailyPosts } from '../../src/discord/discord-daily-posts.ts';
import { openDailyPosts } from '../../src/schedule/daily-posts.ts';
import type { TurnPriority } from '../../src/schedule/poster.ts';
import { openRedisConnection } from '../../src/store/redis-connection.ts';
import type { WotdLookup } from '../../src/wotd/lookup.ts';
import { DEFAULT_BOT_PERMISSIONS, startDiscordServer } from '../support/discord/index.ts';
import { restFor } from '../support/discord/client.ts';
import { describeRedis, redisTestUrl, useRedisPrefix } from '../support/redis.ts';
import { captureLogger, FixedLookup, makeSubscription } from '../schedule/helpers.ts';

/**
 * Discord's global limit is per bot token, across every process of a cluster. Here three cluster members (real
 * discord.js clients, one shard each, each with its own Redis connections) share one Redis and the local Discord
 * server, with a low global limit so that a burst over it shows within seconds.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const GLOBAL_LIMIT = 20;
const MEMBERS = 3;
const NOW = new Date('2026-06-15T09:05:00Z');

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describeRedis('the cluster under Discord\'s global limit', () => {
  const space = useRedisPrefix();

  it('three members fanning out posts with threads and publications draw no global 429, from the first request on', async () => {
    const discord = await startDiscordServer({ globalLimitPerSecond: GLOBAL_LIMIT, shards: MEMBERS });
    cleanups.push(() => discord.close());
    // Consecutive guild ids land on consecutive shards, so each member gets a third; every channel is an
    // announcement channel whose post also opens a thread and is published: three requests per post.
    const guilds = discord.addGuilds(6, (index) => ({
      name: `Words ${index}`,
      channels: Array.from({ length: 10 }, (_, i) => ({ name: `words-${i}`, type: 5 })),
    }));
    const channels = guilds.flatMap((guild) => guild.channels.map((channel) => ({ guildId: guild.id, channelId: channel.id })));
    const { logger } = captureLogger();
    const location = { url: redisTestUrl ?? '', keyPrefix: space.prefix };

    const setup = await openDailyPosts({ store: location, limit: 100, concurrency: 1, logger, now: () => NOW });
    for (const { guildId, channelId } of channels) {
      await setup.store.upsert(guildId, channelId, 100, () => makeSubscription({ guildId, channelId, openThread: true, publish: true }));
    }
    await setup.close();

    const lookup = new FixedLookup();
    await Promise.all(
      Array.from({ length: MEMBERS }, async (_, shard) => {
        const cluster = await openCluster({
          redisUrl: redisTestUrl ?? '',
          keyPrefix: space.prefix,
          rateLimit: 10,
          rateLimitScope: 'service',
          postsPerSecond: postsPerSecondFor(GLOBAL_LIMIT),
          logger,
        });
        cleanups.push(() => cluster.close());
        const daily = await openDailyPosts({ store: location, limit: 100, concurrency: 10, logger, now: () => NOW });
        cleanups.push(() => daily.close());
        const bot = await startDiscordBot({
          config: { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl, DISCORD_APPLICATION_ID: undefined, DISCORD_GLOBAL_RATE_LIMIT: GLOBAL_LIMIT },
          commands: [],
          services: { lookup: lookup as unknown as WotdLookup, siteUrl: 'https://wotd.site', logger, subscriptions: daily.subscriptions },
          logger,
          shards: { kind: 'fixed', count: MEMBERS, ids: [shard] },
          takeGlobalTurn: cluster.takeGlobalTurn,
        });
        cleanups.push(() => bot.stop(), () => daily.stopPosting());
        cleanups.push(startDiscordDailyPosts(bot.client, daily, { lookup, siteUrl: 'https://wotd.site', logger, now: () => NOW, cluster }));
      }),
    );

    const crossposted = () => discord.requests.filter((request) => request.route === 'POST /channels/:channel_id/messages/:message_id/crosspost' && request.status < 300).length;
    const deadline = Date.now() + 60_000;
    while (crossposted() < channels.length && Date.now() < deadline) await sleep(200);

    const posted = new Map<string, number>();
    for (const message of discord.allMessages()) posted.set(message.channelId, (posted.get(message.channelId) ?? 0) + 1);
    expect([...posted.keys()].sort()).toEqual(channels.map((channel) => channel.channelId).sort());
    expect(Math.max(...posted.values())).toBe(1);
    expect(crossposted()).toBe(channels.length);
    const stats = discord.stats();
    const limited = discord.requests.filter((request) => request.limited === 'global').map((request) => `${request.route ?? request.path} at ${request.at}`);
    expect(limited).toEqual([]);
    expect(stats.global429).toBe(0);
    expect(stats.maxAcceptedPerSecond).toBeLessThanOrEqual(GLOBAL_LIMIT);
  }, 90_000);

  it('lets no 1,000 ms receive more than the limit, wherever between its turn and its answer each request arrives', async () => {
    const connections = await Promise.all(
      Array.from({ length: MEMBERS }, () => openRedisConnection(redisTestUrl ?? '', { purpose: 'test', whileDown: 'down', whenBack: 'back' })),
    );
    cleanups.push(() => connections.forEach((redis) => redis.disconnect()));
    const paces = connections.map((redis) => createClusterPacer({ redis, prefix: space.prefix, perSecond: 10 }));
    // Start late in a second: a pace counted per wall-clock second gives a second's turns now and the next
    // second's at its start, twice the limit within a few hundred milliseconds.
    await sleep(1_700 - (Date.now() % 1_000));
    // Each request may reach Discord at any moment from its turn to its answer; some answers are slow, as on a
    // busy host.
    const requests: Array<{ from: number; to: number }> = [];
    await Promise.all(
      paces.flatMap((pace) =>
        Array.from({ length: 12 }, async (_, index) => {
          const turn = await pace();
          const from = Date.now();
          await sleep(index % 3 === 0 ? 600 : 20);
          requests.push({ from, to: Date.now() });
          turn?.done();
        }),
      ),
    );
    expect(requests).toHaveLength(36);
    // The worst case for a window starting at `start`: every request that may have arrived in it did.
    const mostInAnyWindow = Math.max(...requests.map(({ to: start }) => requests.filter(({ from, to }) => from < start + 1_000 && to >= start).length));
    expect(mostInAnyWindow).toBeLessThanOrEqual(10);
  }, 30_000);

  it("gives this process's turns to its posts first, and to a pin only when no post waits here", async () => {
    const redis = await openRedisConnection(redisTestUrl ?? '', { purpose: 'test', whileDown: 'down', whenBack: 'back' });
    cleanups.push(() => redis.disconnect());
    const pace = createClusterPacer({ redis, prefix: space.prefix, perSecond: 1 });
    // The one turn held: what comes next waits, the pin first.
    const held = await pace();
    const given: string[] = [];
    const request = async (name: string, priority: 'first' | 'after') => {
      const turn = await pace(priority);
      given.push(name);
      turn.done();
    };
    const requests = [request('pin', 'after'), request('post 1', 'first'), request('post 2', 'first')];
    held.done();
    await Promise.all(requests);
    expect(given).toEqual(['post 1', 'post 2', 'pin']);
  }, 30_000);

  it('takes this process\'s own small pace while Redis is unreachable, and the shared one again when it is back', async () => {
    const redis = await openRedisConnection(redisTestUrl ?? '', { purpose: 'test', whileDown: 'down', whenBack: 'back' });
    cleanups.push(() => redis.disconnect());
    const { logger, lines } = captureLogger();
    const pace = createClusterPacer({ redis, prefix: space.prefix, perSecond: 10, outagePerSecond: 4, logger });
    (await pace()).done();
    redis.disconnect();
    const started = Date.now();
    for (const turn of await Promise.all(Array.from({ length: 5 }, () => pace()))) turn.done();
    // Five turns at four a second: the last one a second after the first.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(lines.filter((line) => /pace under Discord's global limit unavailable/.test(String(line.msg)))).toHaveLength(1);
    await redis.connect();
    (await pace()).done();
    expect(lines.some((line) => /pace under Discord's global limit is back/.test(String(line.msg)))).toBe(true);
  });
});

it('counts every request toward the global limit except the interaction endpoints', () => {
  const api = 'http://127.0.0.1:1/api/v10';
  expect(countsTowardGlobalLimit(`${api}/channels/1/messages`)).toBe(true);
  expect(countsTowardGlobalLimit(`${api}/gateway/bot`)).toBe(true);
  expect(countsTowardGlobalLimit(`${api}/users/@me/channels`)).toBe(true);
  expect(countsTowardGlobalLimit(`${api}/interactions/1/token/callback`)).toBe(false);
  expect(countsTowardGlobalLimit(`${api}/webhooks/1/token/messages/@original`)).toBe(false);
  expect(countsTowardGlobalLimit(`${api}/webhooks/1/token`)).toBe(false);
});

it("gives pinning and unpinning a message the 'after' turns, the daily pins' priority; every other request 'first'", () => {
  const api = 'http://127.0.0.1:1/api/v10';
  expect(globalTurnPriority(`${api}/channels/1/messages/pins/2`, 'PUT')).toBe('after');
  expect(globalTurnPriority(`${api}/channels/1/messages/pins/2`, 'DELETE')).toBe('after');
  expect(globalTurnPriority(`${api}/channels/1/pins/2`, 'PUT')).toBe('after');
  expect(globalTurnPriority(`${api}/channels/1/messages/pins`, 'GET')).toBe('first');
  expect(globalTurnPriority(`${api}/channels/1/messages`, 'POST')).toBe('first');
  expect(globalTurnPriority(`${api}/channels/1/messages/2`, 'DELETE')).toBe('first');
  expect(globalTurnPriority(`${api}/channels/1/messages/2/threads`, 'POST')).toBe('first');
});

it("asks the shared pace for a daily pin's requests (the pin, the unpin) at the 'after' priority, for the post's at 'first'", async () => {
  const discord = await startDiscordServer();
  cleanups.push(() => discord.close());
  const guild = discord.addGuild({
    name: 'Words',
    roles: [{ name: 'posting', permissions: DEFAULT_BOT_PERMISSIONS | PermissionFlagsBits.PinMessages }],
    botMember: { roles: ['posting'] },
    channels: [{ name: 'words' }],
  });
  const asked: Array<TurnPriority | undefined> = [];
  const takeGlobalTurn: TakeGlobalTurn = (priority) => {
    asked.push(priority);
    return Promise.resolve({ done: () => undefined });
  };
  const rest = restFor(discord, { makeRequest: gatedMakeRequest(takeGlobalTurn) });
  // Cluster mode's daily poster: no pace of its own (postsPerSecond 0), every request paced by the shared one.
  const poster = createDailyPoster(rest, { selfId: discord.botUser.id, postsPerSecond: 0 });
  const channelId = guild.channelId('words');
  const message = (day: string) => ({ channelId, day, embeds: [{ title: day }], mentionRoleId: null, nonce: `n-${day}` });
  const yesterday = await poster.post(message('2026-06-14'));
  const today = await poster.post(message('2026-06-15'));
  expect(asked.length).toBeGreaterThanOrEqual(2);
  expect(new Set(asked)).toEqual(new Set(['first']));
  asked.length = 0;
  expect(await poster.pin?.({ channelId, messageId: today.messageId, unpin: yesterday.messageId })).toEqual([]);
  expect(asked).toEqual(['after', 'after']);
});
