import { afterEach, describe, expect, it, vi } from 'vitest';
import { openMetricsEndpoint } from '../../src/metrics/endpoint.ts';
import { capturingLogger } from '../discord/world.ts';
import { startDiscordServer } from '../support/discord/index.ts';
import { meteredScheduler, openMeteredServices, startMeteredBot } from './metered-bot.ts';
import { scrape } from './prom-text.ts';

/**
 * The metrics endpoint.test.ts sees only at zero or not at all: heartbeat latency, 429s from Discord and from the
 * service, failed and retrying posts, and subscriptions failing or disabled. Real bot, local Discord server, real
 * HTTP scrapes.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('metrics of what went wrong, over HTTP', () => {
  it('shows heartbeat latency per shard, counts 429s by service, posts by outcome and subscriptions by state', async () => {
    const discord = await startDiscordServer({ heartbeatIntervalMs: 200 });
    cleanups.push(() => discord.close());
    const channels = ['limited', 'locked', 'flaky', 'gone'];
    const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'general' }, ...channels.map((name) => ({ name }))] });
    const { logger } = capturingLogger([discord.token]);
    const endpoint = await openMetricsEndpoint({ METRICS_PORT: 0, METRICS_HOST: '127.0.0.1' }, logger, {
      mode: 'discord',
      subscriptionsCacheMs: 0,
      defaultMetrics: false,
    });
    if (!endpoint) throw new Error('METRICS_PORT was set, yet no endpoint');
    cleanups.push(() => endpoint.close());
    const { metrics, server } = endpoint;

    const { wotd, daily } = await openMeteredServices({ metrics, logger, cleanups, concurrency: 1, adapter: { pauseAfter429Ms: 50 } });

    const bot = await startMeteredBot({ discord, wotd, daily, metrics, logger });
    cleanups.push(() => bot.stop());

    // Absent until the first heartbeat is acknowledged, then the round trip in seconds.
    const latency = await vi.waitFor(
      async () => {
        const value = (await scrape(server.url)).get('wotd_bot_gateway_latency_seconds', { shard: '0' });
        expect(value).toBeDefined();
        return value ?? -1;
      },
      { timeout: 5_000, interval: 50 },
    );
    expect(latency).toBeGreaterThanOrEqual(0);
    expect(latency).toBeLessThan(1);

    for (const name of channels) {
      await daily.subscriptions.subscribe({
        guildId: guild.id,
        channelId: guild.channelId(name),
        channelName: name,
        time: '09:00',
        timeZone: 'UTC',
        roleId: null,
        userId: discord.defaultUser.id,
      });
    }
    const post = (name: string) => ({ route: 'POST /channels/:id/messages', channelId: guild.channelId(name) });
    const limited = discord.injectFault({ ...post('limited'), status: 429, rateLimit: { global: false, retryAfterMs: 100 }, times: 1 });
    discord.injectFault({ ...post('locked'), status: 403, code: 50001 });
    // discord.js retries a 5xx three times; four outlast it.
    discord.injectFault({ ...post('flaky'), status: 500, times: 4 });
    const goneId = guild.channelId('gone');
    discord.deleteChannel(goneId);

    const before = await scrape(server.url);
    const scheduler = meteredScheduler({ wotd, daily, bot, metrics, logger, concurrency: 1 });
    expect(await scheduler.tick(wotd.now())).toMatchObject({ total: 4, sent: 1, failed: 2, retrying: 1 });
    expect(limited.hits).toBe(1);
    expect(discord.messagesIn(guild.channelId('limited'))).toHaveLength(1);

    const after = await scrape(server.url);
    const moved = (name: string, labels: Record<string, string>) => (after.get(name, labels) ?? 0) - (before.get(name, labels) ?? 0);
    expect(moved('wotd_bot_daily_posts_total', { outcome: 'sent' })).toBe(1);
    expect(moved('wotd_bot_daily_posts_total', { outcome: 'failed' })).toBe(2);
    expect(moved('wotd_bot_daily_posts_total', { outcome: 'retrying' })).toBe(1);
    expect(moved('wotd_bot_429_responses_total', { service: 'discord' })).toBe(1);
    expect(moved('wotd_bot_429_responses_total', { service: 'wotd' })).toBe(0);
    expect(after.get('wotd_bot_fanout_size')).toBe(4);
    expect(after.get('wotd_bot_fanout_done')).toBe(4);
    expect(after.get('wotd_bot_subscriptions', { state: 'active' })).toBe(2);
    expect(after.get('wotd_bot_subscriptions', { state: 'failing' })).toBe(1);
    expect(after.get('wotd_bot_subscriptions', { state: 'disabled' })).toBe(1);

    // The service's own 429s: each counted under wotd and as its request's outcome (a member's lookup waits out the
    // pause and asks again, so there may be more than one).
    wotd.proxy.rateLimited = true;
    const logged = wotd.proxy.log.length;
    const busy = await discord.invokeCommand({ name: 'wotd', options: { date: '2025-01-05' }, channelId: guild.channelId('general') }).waitForResponse();
    expect(busy.ephemeral).toBe(true);
    const last = await vi.waitFor(async () => {
      const current = await scrape(server.url);
      expect(current.get('wotd_bot_interactions_total', { kind: 'command', name: 'wotd', outcome: 'upstream_error' })).toBe(1);
      return current;
    });
    const answered429 = wotd.proxy.log.slice(logged).filter((entry) => entry.status === 429).length;
    expect(answered429).toBeGreaterThanOrEqual(1);
    expect((last.get('wotd_bot_429_responses_total', { service: 'wotd' }) ?? 0) - (after.get('wotd_bot_429_responses_total', { service: 'wotd' }) ?? 0)).toBe(answered429);
    expect(last.get('wotd_bot_upstream_requests_total', { endpoint: '/query_previous', outcome: 'rate_limited' })).toBe(answered429);
    expect(last.get('wotd_bot_429_responses_total', { service: 'discord' })).toBe(after.get('wotd_bot_429_responses_total', { service: 'discord' }));
  });
});
