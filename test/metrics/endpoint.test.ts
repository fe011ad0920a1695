import { afterEach, describe, expect, it, vi } from 'vitest';
import { openMetricsEndpoint } from '../../src/metrics/endpoint.ts';
import type { HealthReport } from '../../src/metrics/health.ts';
import { capturingLogger } from '../discord/world.ts';
import { startDiscordServer } from '../support/discord/index.ts';
import { meteredScheduler, openMeteredServices, startMeteredBot } from './metered-bot.ts';
import { scrape, type Scrape } from './prom-text.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function health(url: string): Promise<{ status: number; body: HealthReport }> {
  const response = await fetch(`${url}/healthz`);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  return { status: response.status, body: (await response.json()) as HealthReport };
}

/** The change of every sample named `name` with these labels between two scrapes. */
function moved(before: Scrape, after: Scrape, name: string, labels: Record<string, string>): number {
  return (after.get(name, labels) ?? 0) - (before.get(name, labels) ?? 0);
}

describe('health and metrics over HTTP, with the real bot on the local Discord server', () => {
  it('counts commands, upstream requests, the cache and a daily post exactly; /healthz follows the gateway and the store', async () => {
    const discord = await startDiscordServer();
    cleanups.push(() => discord.close());
    const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'general' }, { name: 'daily' }] });
    const { logger } = capturingLogger([discord.token]);
    const endpoint = await openMetricsEndpoint({ METRICS_PORT: 0, METRICS_HOST: '127.0.0.1' }, logger, {
      mode: 'discord',
      subscriptionsCacheMs: 0,
    });
    if (!endpoint) throw new Error('METRICS_PORT was set, yet no endpoint');
    cleanups.push(() => endpoint.close());
    const { metrics, server } = endpoint;
    const url = server.url;

    const { wotd, daily } = await openMeteredServices({ metrics, logger, cleanups, concurrency: 2 });

    // Before the bot is connected, the gateway check fails.
    const starting = await health(url);
    expect(starting.status).toBe(503);
    expect(starting.body).toMatchObject({ status: 'unhealthy', failing: ['gateway'], gateway: { status: 'down', shards: [] }, store: 'ok' });

    const bot = await startMeteredBot({ discord, wotd, daily, metrics, logger });
    cleanups.push(() => bot.stop());
    const scheduler = meteredScheduler({ wotd, daily, bot, metrics, logger, concurrency: 2 });

    const before = await scrape(url);
    const wotdCommand = async (date: string) =>
      discord.invokeCommand({ name: 'wotd', options: { date }, channelId: guild.channelId('general') }).waitForResponse();
    expect((await wotdCommand('2025-01-14')).embeds[0]?.title).toBe('serendipity');
    // Cached by the read-ahead of the first: no request.
    expect((await wotdCommand('2025-01-13')).embeds[0]?.title).toBe('mirth');
    expect((await wotdCommand('someday')).content).toContain('is not a date I can read');
    wotd.proxy.down = true;
    expect((await wotdCommand('2025-01-02')).content).toContain('cannot be reached');
    wotd.proxy.down = false;
    const suggested = await discord.autocomplete({ name: 'wotd-find', options: { word: 'seren' }, focused: 'word', channelId: guild.channelId('general') });
    expect(suggested).toContainEqual({ name: 'serendipity', value: 'serendipity' });

    await daily.subscriptions.subscribe({
      guildId: guild.id,
      channelId: guild.channelId('daily'),
      channelName: 'daily',
      time: '09:00',
      timeZone: 'UTC',
      roleId: null,
      userId: discord.defaultUser.id,
    });
    expect(await scheduler.tick(wotd.now())).toMatchObject({ total: 1, sent: 1 });
    expect(discord.messagesIn(guild.channelId('daily'))).toHaveLength(1);

    // The router reports an interaction once its handling is complete, a moment after Discord has the answer.
    const after = await vi.waitFor(async () => {
      const current = await scrape(url);
      expect(current.sum('wotd_bot_interaction_duration_seconds_count') - before.sum('wotd_bot_interaction_duration_seconds_count')).toBe(5);
      return current;
    });

    const command = (outcome: string) => ({ kind: 'command', name: 'wotd', outcome });
    expect(moved(before, after, 'wotd_bot_interactions_total', command('ok'))).toBe(2);
    expect(moved(before, after, 'wotd_bot_interactions_total', command('user_error'))).toBe(1);
    expect(moved(before, after, 'wotd_bot_interactions_total', command('upstream_error'))).toBe(1);
    expect(moved(before, after, 'wotd_bot_interactions_total', command('internal_error'))).toBe(0);
    expect(moved(before, after, 'wotd_bot_interactions_total', { kind: 'autocomplete', name: 'wotd-find', outcome: 'ok' })).toBe(1);
    expect(after.sum('wotd_bot_interactions_total') - before.sum('wotd_bot_interactions_total')).toBe(5);
    expect(moved(before, after, 'wotd_bot_interaction_first_response_seconds_count', { kind: 'command', name: 'wotd' })).toBe(4);
    expect(moved(before, after, 'wotd_bot_interaction_first_response_seconds_count', { kind: 'autocomplete', name: 'wotd-find' })).toBe(1);
    expect(moved(before, after, 'wotd_bot_interaction_duration_seconds_count', command('ok'))).toBe(2);
    expect(after.get('wotd_bot_interaction_duration_seconds_bucket', { ...command('ok'), le: '+Inf' })).toBe(2);

    const upstream = (endpoint: string, outcome: string) => ({ endpoint, outcome });
    expect(moved(before, after, 'wotd_bot_upstream_requests_total', upstream('/query_previous', 'ok'))).toBe(1);
    expect(moved(before, after, 'wotd_bot_upstream_requests_total', upstream('/query_previous', 'http_5xx'))).toBe(1);
    expect(moved(before, after, 'wotd_bot_upstream_requests_total', upstream('/query', 'ok'))).toBe(1);
    expect(after.sum('wotd_bot_upstream_requests_total') - before.sum('wotd_bot_upstream_requests_total')).toBe(3);
    expect(after.sum('wotd_bot_upstream_request_duration_seconds_count') - before.sum('wotd_bot_upstream_request_duration_seconds_count')).toBe(3);
    expect(after.sum('wotd_bot_429_responses_total')).toBe(0);

    expect(moved(before, after, 'wotd_bot_cache_lookups_total', { result: 'hit' })).toBe(1);
    expect(moved(before, after, 'wotd_bot_cache_lookups_total', { result: 'miss' })).toBe(3);
    expect(after.get('wotd_bot_cache_hit_ratio')).toBe(0.25);

    expect(moved(before, after, 'wotd_bot_daily_posts_total', { outcome: 'sent' })).toBe(1);
    expect(after.sum('wotd_bot_daily_posts_total') - before.sum('wotd_bot_daily_posts_total')).toBe(1);
    expect(after.get('wotd_bot_fanout_size')).toBe(1);
    expect(after.get('wotd_bot_fanout_done')).toBe(1);
    expect(after.get('wotd_bot_fanout_running')).toBe(0);
    expect(moved(before, after, 'wotd_bot_scheduler_ticks_total', { outcome: 'ok' })).toBe(1);
    expect(after.get('wotd_bot_subscriptions', { state: 'active' })).toBe(1);
    expect(after.get('wotd_bot_subscriptions', { state: 'failing' })).toBe(0);
    expect(after.get('wotd_bot_subscriptions', { state: 'disabled' })).toBe(0);

    expect(after.get('wotd_bot_gateway_connected', { shard: '0' })).toBe(1);
    expect(after.get('wotd_bot_gateway_shard_state', { shard: '0', state: 'ready' })).toBe(1);
    expect(after.has('process_cpu_user_seconds_total')).toBe(true);

    const up = await health(url);
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ status: 'ok', failing: [], gateway: { status: 'ok', shards: [{ id: 0, state: 'ready' }] }, store: 'ok', scheduler: 'ok' });
    expect(up.body.lastTickAgeSeconds).toBeGreaterThanOrEqual(0);

    // The gateway drops and cannot come back until released.
    discord.holdGateway();
    discord.closeGateway(4000);
    const down = await vi.waitFor(async () => {
      const checked = await health(url);
      expect(checked.status).toBe(503);
      return checked;
    });
    expect(down.body).toMatchObject({ status: 'unhealthy', failing: ['gateway'], gateway: { status: 'down' }, store: 'ok', scheduler: 'ok' });
    expect(down.body.gateway.shards[0]?.state).not.toBe('ready');
    expect((await scrape(url)).get('wotd_bot_gateway_connected', { shard: '0' })).toBe(0);

    discord.releaseGateway();
    await discord.waitForResume();
    await vi.waitFor(async () => expect((await health(url)).status).toBe(200));

    expect((await fetch(`${url}/nothing-here`)).status).toBe(404);
    const post = await fetch(`${url}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');

    await daily.store.close();
    const storeDown = await health(url);
    expect(storeDown.status).toBe(503);
    expect(storeDown.body).toMatchObject({ status: 'unhealthy', failing: ['store'], gateway: { status: 'ok' } });
    expect(storeDown.body.store).toMatch(/^unreachable: /);
    // A count that cannot be read is left out rather than shown stale.
    expect((await scrape(url)).has('wotd_bot_subscriptions')).toBe(false);
  });
});
