import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createBotMetrics } from '../../src/metrics/registry.ts';
import { dailyPostEmbed } from '../../src/replies/daily-embeds.ts';
import { deliveryNonce } from '../../src/schedule/poster.ts';
import type { DailyScheduler } from '../../src/schedule/scheduler.ts';
import type { Subscription } from '../../src/schedule/subscription.ts';
import { restFor, startDiscordServer } from '../support/discord/index.ts';
import { startBotOnServer } from './bot-on-server.ts';
import { entryFor, makeSubscription } from './helpers.ts';

/**
 * An admin takes Embed Links away after subscribing. Discord then takes a channel post with its embeds dropped, and
 * answers 50006 "Cannot send an empty message" when nothing else is left (the local server does the same). Either
 * way the day's word is not delivered: the bot must say so (failing, "Missing Embed Links in #…", counted), not record
 * a bare ping as sent or a refusal that hides the cause. The real bot and its daily posts against the local server.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ADMIN = '500000000000000001';
const NO_EMBEDS = [{ id: '@bot', deny: PermissionFlagsBits.EmbedLinks }];
/** #pinged lets the bot open threads; it loses Embed Links, then gets it back. */
const THREADS = { id: '@bot', allow: PermissionFlagsBits.CreatePublicThreads };

async function world(serverOptions: Parameters<typeof startDiscordServer>[0] = {}) {
  const discord = await startDiscordServer(serverOptions);
  cleanups.push(() => discord.close());
  const guild = discord.addGuild({
    name: 'Words',
    roles: [{ name: 'word-fans' }, { name: 'admins', permissions: PermissionFlagsBits.ManageChannels }],
    members: [{ id: ADMIN, username: 'admin', roles: ['admins'] }],
    channels: [{ name: 'general' }, { name: 'daily' }, { name: 'pinged', permissionOverwrites: [THREADS] }, { name: 'quiet_words' }],
  });
  const clock = { now: new Date('2026-06-15T07:00:00Z') };
  const metrics = createBotMetrics({ mode: 'discord', defaultMetrics: false });
  const { daily, lookup, lines } = await startBotOnServer(discord, cleanups, { daily: { now: () => clock.now, observer: metrics.scheduler } });
  // start() hands back the scheduler startDiscordDailyPosts started, which posts through the bot's REST client.
  const scheduler: DailyScheduler = daily.start({ poster: { post: () => Promise.reject(new Error('not this one')), findEarlierPost: () => Promise.reject(new Error('not this one')) }, lookup, render: () => ({}) });
  const tick = (iso: string) => {
    clock.now = new Date(iso);
    return scheduler.tick(clock.now);
  };
  // The pass start() began (nothing is due at 07:00) is over before a test's first tick.
  await tick('2026-06-15T07:00:00Z');
  const subscribe = (name: string, overrides: Partial<Subscription> = {}) => {
    const channelId = guild.channelId(name);
    return daily.store.upsert(guild.id, channelId, 5, () => makeSubscription({ guildId: guild.id, channelId, channelName: name, ...overrides }));
  };
  /** /wotd-subscriptions as the admin sees it. */
  const listing = async () => {
    const answer = await discord.invokeCommand({ name: 'wotd-subscriptions', channelId: guild.channelId('general'), user: ADMIN }).waitForResponse();
    return String(answer.embeds[0]?.description ?? '');
  };
  const postsTo = (channelId: string) => discord.requests.filter((r) => r.route === 'POST /channels/:channel_id/messages' && r.path === `/channels/${channelId}/messages`);
  return { discord, guild, daily, metrics, tick, subscribe, listing, postsTo, lines };
}

const title = (day: string) => dailyPostEmbed(entryFor(day), 'full', { siteUrl: 'https://wotd.site' }).title;

describe('daily posts where the bot has lost Embed Links', () => {
  it('with a role: the bare mention Discord took is removed, the day fails naming Embed Links, once; it posts again once allowed', async () => {
    const { discord, guild, daily, metrics, tick, subscribe, listing, postsTo, lines } = await world();
    const pinged = guild.channelId('pinged');
    const allowed = guild.channelId('daily');
    const role = guild.roleId('word-fans');
    await subscribe('pinged', { roleId: role, openThread: true });
    await subscribe('daily', { roleId: role });
    discord.updateChannel(pinged, { permissionOverwrites: [{ ...THREADS, deny: PermissionFlagsBits.EmbedLinks }] });

    expect(await tick('2026-06-15T09:00:00Z')).toMatchObject({ sent: 1, failed: 1, retrying: 0 });
    // Where the bot may embed, the post is as always.
    expect(discord.messagesIn(allowed)).toMatchObject([{ content: `<@&${role}>`, embeds: [expect.objectContaining({ title: title('2026-06-15') })] }]);

    // Discord took the post as a bare mention; the bot removed it, and opened no thread on it.
    expect(postsTo(pinged)).toHaveLength(1);
    const taken = discord.allMessages().filter((m) => m.channelId === pinged);
    expect(taken).toMatchObject([{ content: `<@&${role}>`, embeds: [] }]);
    expect(discord.messagesIn(pinged)).toEqual([]);
    expect(discord.requests.filter((r) => r.method === 'DELETE' && r.path === `/channels/${pinged}/messages/${taken[0]?.id}`)).toMatchObject([{ status: 204 }]);
    expect(discord.threadsIn(pinged)).toEqual([]);

    const reason = { kind: 'missingPermission', permission: 'EmbedLinks', channelName: 'pinged' };
    expect(await daily.store.getDelivery(pinged, '2026-06-15')).toMatchObject({ state: 'failed', failure: reason, nonce: deliveryNonce(pinged, '2026-06-15') });
    expect(await daily.store.getDelivery(pinged, '2026-06-15')).not.toHaveProperty('messageId');
    expect((await daily.store.get(pinged))?.status).toEqual({ state: 'failing', reason, failedDays: 1, lastFailedDay: '2026-06-15' });
    const text = await metrics.text();
    expect(text).toMatch(/^wotd_bot_daily_posts_total\{outcome="failed"\} 1$/m);
    expect(text).toMatch(/^wotd_bot_daily_posts_total\{outcome="sent"\} 1$/m);
    expect(await listing()).toContain(`<#${pinged}> — every day, 09:00 UTC, full style, mentions <@&${role}>, thread on each post\n  failing (Missing Embed Links in #pinged; 1 failed day in a row)`);
    expect(lines.some((l) => l.msg === 'Discord took the daily post without its embed (no Embed Links); removed the bare mention')).toBe(true);

    // Not tried again that day: no second ping.
    for (const at of ['2026-06-15T09:01:00Z', '2026-06-15T18:00:00Z']) expect(await tick(at)).toMatchObject({ total: 0 });
    expect(postsTo(pinged)).toHaveLength(1);

    // Embed Links back: the next day's post goes out whole, with its thread, and the subscription is active again.
    discord.updateChannel(pinged, { permissionOverwrites: [THREADS] });
    expect(await tick('2026-06-16T09:00:00Z')).toMatchObject({ sent: 2, failed: 0 });
    const [post] = discord.messagesIn(pinged);
    expect(post).toMatchObject({ content: `<@&${role}>`, embeds: [expect.objectContaining({ title: title('2026-06-16') })] });
    expect(discord.threadsIn(pinged)).toMatchObject([{ id: post?.id, name: `${title('2026-06-16')} — word of the day, 2026-06-16` }]);
    expect((await daily.store.get(pinged))?.status).toEqual({ state: 'active' });
    expect(await daily.store.getDelivery(pinged, '2026-06-16')).toMatchObject({ state: 'sent', messageId: post?.id });
  });

  it('without a role: Discord’s 50006 is put down to Embed Links, failing for days, then disabled; not a refused day', async () => {
    const { discord, guild, daily, metrics, tick, subscribe, listing, postsTo } = await world();
    const channel = guild.channelId('quiet_words');
    await subscribe('quiet_words');
    discord.updateChannel(channel, { permissionOverwrites: NO_EMBEDS });

    expect(await tick('2026-06-15T09:00:00Z')).toMatchObject({ sent: 0, failed: 1, retrying: 0 });
    expect(postsTo(channel)).toMatchObject([{ status: 400, response: expect.objectContaining({ code: 50006 }) }]);
    const reason = { kind: 'missingPermission', permission: 'EmbedLinks', channelName: 'quiet_words' };
    const record = await daily.store.getDelivery(channel, '2026-06-15');
    expect(record).toMatchObject({ state: 'failed', failure: reason });
    expect(record).not.toHaveProperty('refused');
    expect((await daily.store.get(channel))?.status).toEqual({ state: 'failing', reason, failedDays: 1, lastFailedDay: '2026-06-15' });
    const text = await metrics.text();
    expect(text).toMatch(/^wotd_bot_daily_posts_total\{outcome="failed"\} 1$/m);
    expect(text).toMatch(/^wotd_bot_daily_posts_total\{outcome="refused"\} 0$/m);
    const shown = await listing();
    // The channel's name as subscribed, its markdown escaped.
    expect(shown).toContain('failing (Missing Embed Links in #quiet\\_words; 1 failed day in a row)');
    expect(shown).not.toContain('empty message');

    expect(await tick('2026-06-15T12:00:00Z')).toMatchObject({ total: 0 });
    expect(await tick('2026-06-16T09:00:00Z')).toMatchObject({ failed: 1 });
    expect((await daily.store.get(channel))?.status).toMatchObject({ state: 'failing', failedDays: 2 });
    expect(await tick('2026-06-17T09:00:00Z')).toMatchObject({ failed: 1 });
    expect((await daily.store.get(channel))?.status).toMatchObject({ state: 'disabled', reason, failedDays: 3 });
    expect(postsTo(channel)).toHaveLength(3);
    expect(discord.allMessages().filter((m) => m.channelId === channel)).toEqual([]);
  });

  it('a 50006 where the bot does hold Embed Links stays Discord’s refusal: the permissions are read, not assumed', async () => {
    const { discord, guild, daily, tick, subscribe } = await world();
    const channel = guild.channelId('daily');
    await subscribe('daily');
    const refusing = discord.injectFault({ route: 'POST /channels/:id/messages', channelId: channel, status: 400, code: 50006, message: 'Cannot send an empty message', times: 1 });

    expect(await tick('2026-06-15T09:00:00Z')).toMatchObject({ failed: 1 });
    expect(refusing.hits).toBe(1);
    expect(await daily.store.getDelivery(channel, '2026-06-15')).toMatchObject({ state: 'failed', refused: { status: 400, code: 50006 } });
    expect((await daily.store.get(channel))?.status).toEqual({ state: 'active' });
  });

  it('a restart after an attempt died before removing the bare mention removes it and does not ping again', async () => {
    const { discord, guild, daily, tick, subscribe, postsTo } = await world({ nonceWindowMs: 20 });
    const pinged = guild.channelId('pinged');
    const role = guild.roleId('word-fans');
    await subscribe('pinged', { roleId: role });
    discord.updateChannel(pinged, { permissionOverwrites: NO_EMBEDS });
    // What the attempt left: its record says sending, and Discord took its post without the embed.
    const startedAt = new Date().toISOString();
    await daily.store.putDelivery({ channelId: pinged, day: '2026-06-15', state: 'sending', nonce: deliveryNonce(pinged, '2026-06-15'), attempts: 1, attemptStartedAt: startedAt, updatedAt: startedAt });
    await restFor(discord).post(`/channels/${pinged}/messages`, {
      body: { content: `<@&${role}>`, embeds: [dailyPostEmbed(entryFor('2026-06-15'), 'full', { siteUrl: 'https://wotd.site' })], nonce: deliveryNonce(pinged, '2026-06-15'), enforce_nonce: true },
    });
    expect(discord.messagesIn(pinged)).toMatchObject([{ embeds: [] }]);
    // Past Discord's nonce window, a second post would be a second ping.
    await new Promise((resolve) => setTimeout(resolve, 60));

    expect(await tick('2026-06-15T09:30:00Z')).toMatchObject({ failed: 1, sent: 0 });
    expect(postsTo(pinged)).toHaveLength(1);
    expect(discord.messagesIn(pinged)).toEqual([]);
    expect(await daily.store.getDelivery(pinged, '2026-06-15')).toMatchObject({ state: 'failed', failure: { kind: 'missingPermission', permission: 'EmbedLinks', channelName: 'pinged' } });
    expect((await daily.store.get(pinged))?.status).toMatchObject({ state: 'failing', failedDays: 1 });
  });
});
