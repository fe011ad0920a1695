import { afterEach, describe, expect, it } from 'vitest';
import { wotdSubscribeMeCommand } from '../../commands/wotd-subscribe-me.ts';
import { deliveryNonce } from '../../src/schedule/poster.ts';
import type { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { createSubscriptionService } from '../../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { startDiscordServer } from '../support/discord/index.ts';
import { startBotOnServer } from './bot-on-server.ts';
import { tempStore } from './helpers.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});


/** The real bot and scheduler against the local Discord server, with a clock the test moves. */
async function world(serverOptions: Parameters<typeof startDiscordServer>[0] = {}) {
  const discord = await startDiscordServer(serverOptions);
  cleanups.push(() => discord.close());
  const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'general' }] });
  const outside = discord.addGuild({ name: 'Elsewhere', withoutBot: true, members: [{ id: '700000000000000001', username: 'traveller' }] });
  const clock = { now: new Date('2026-06-15T07:00:00Z') };
  const { daily, lookup, lines } = await startBotOnServer(discord, cleanups, { daily: { now: () => clock.now } });
  const scheduler: DailyScheduler = daily.start({ poster: { post: () => Promise.reject(new Error('not this one')), findEarlierPost: () => Promise.reject(new Error('not this one')) }, lookup, render: () => ({}) });
  const tick = (iso: string) => {
    clock.now = new Date(iso);
    return scheduler.tick(clock.now);
  };
  return { discord, guild, outside, daily, tick, lines };
}

describe('DM subscriptions, end to end', () => {
  it('posts to the member’s DM at their time, once a day, with the same exactly-once machinery as channels', async () => {
    const { discord, guild, daily, tick } = await world();
    const user = discord.defaultUser.id;
    const reply = await discord
      .invokeCommand({ name: 'wotd-subscribe-me', options: { time: '09:30', timezone: 'Europe/London', style: 'compact' }, channelId: guild.channelId('general') })
      .waitForResponse();
    expect(reply.ephemeral).toBe(true);
    expect(reply.content).toContain("Subscribed: I'll DM you the word of the day every day at 09:30 (Europe/London), compact. Next: <t:");
    expect(await daily.store.get(`dm:${user}`)).toMatchObject({ guildId: `user:${user}`, roleId: null, style: 'compact', status: { state: 'active' } });

    expect(await tick('2026-06-15T08:29:00Z')).toMatchObject({ total: 0 });
    expect(await tick('2026-06-15T08:30:00Z')).toMatchObject({ sent: 1 });
    const dm = discord.dmChannelOf(user);
    const [post] = discord.messagesIn(dm);
    expect(post).toMatchObject({ nonce: deliveryNonce(`dm:${user}`, '2026-06-15'), content: '', pings: { roles: [], users: [], everyone: false } });
    expect(post?.embeds[0]).toMatchObject({ title: 'word-2026-06-15', description: '/wɜːd/ — The word for 2026-06-15.' });
    expect(await tick('2026-06-15T12:00:00Z')).toMatchObject({ total: 0 });
    // The bot down all of the next day's morning: the post catches up, once.
    expect(await tick('2026-06-16T15:00:00Z')).toMatchObject({ sent: 1 });
    expect(discord.messagesIn(dm)).toHaveLength(2);
    // The DM channel was opened once and remembered.
    expect(discord.requests.filter((request) => request.route === 'POST /users/@me/channels')).toHaveLength(1);

    const stop = await discord.invokeCommand({ name: 'wotd-unsubscribe-me', dm: true }).waitForResponse();
    expect(stop.content).toBe('Unsubscribed: no more word-of-the-day DMs from me.');
    expect(await daily.store.get(`dm:${user}`)).toBeNull();
  });

  it('keeps to the daylight-saving rules of channels: a missing time posts after the gap, a repeated one once', async () => {
    const { discord, guild, tick } = await world();
    const user = discord.defaultUser.id;
    const subscribeMe = (time: string) =>
      discord.invokeCommand({ name: 'wotd-subscribe-me', options: { time, timezone: 'America/New_York' }, channelId: guild.channelId('general') }).waitForResponse();
    await tick('2026-03-07T12:00:00Z');
    await subscribeMe('02:30');
    // 2026-03-08: New York springs forward at 02:00 EST (07:00 UTC) to 03:00 EDT, so 02:30 never happens: the post
    // goes out when the gap ends, at 03:00 EDT.
    expect(await tick('2026-03-08T06:59:00Z')).toMatchObject({ total: 0 });
    expect(await tick('2026-03-08T07:00:00Z')).toMatchObject({ sent: 1 });
    expect(await tick('2026-03-08T12:00:00Z')).toMatchObject({ total: 0 });

    // The bot down from March: only the current day is caught up, once, and moving the time does not post it again.
    expect(await tick('2026-10-31T12:00:00Z')).toMatchObject({ total: 1, sent: 1 });
    await subscribeMe('01:30');
    expect(await tick('2026-10-31T12:01:00Z')).toMatchObject({ total: 0 });
    // 2026-11-01: 01:30 happens at 05:30 UTC (EDT) and again at 06:30 UTC (EST); only the first posts.
    expect(await tick('2026-11-01T05:29:00Z')).toMatchObject({ total: 0 });
    expect(await tick('2026-11-01T05:30:00Z')).toMatchObject({ sent: 1 });
    expect(await tick('2026-11-01T06:30:00Z')).toMatchObject({ total: 0 });
    expect(discord.messagesIn(discord.dmChannelOf(user))).toHaveLength(3);
  });

  it('past the nonce window, a DM post left unrecorded by a crash is found in the DM and not sent again', async () => {
    const { discord, guild, daily, tick } = await world({ nonceWindowMs: 20 });
    const user = discord.defaultUser.id;
    await discord.invokeCommand({ name: 'wotd-subscribe-me', options: { time: '09:30', timezone: 'Europe/London' }, channelId: guild.channelId('general') }).waitForResponse();
    expect(await tick('2026-06-15T08:30:00Z')).toMatchObject({ sent: 1 });
    const [post] = discord.messagesIn(discord.dmChannelOf(user));
    // As a crash between the post and its record would have left it.
    const record = await daily.store.getDelivery(`dm:${user}`, '2026-06-15');
    if (!record || record.state === 'damaged') throw new Error('no delivery record');
    await daily.store.putDelivery({ ...record, state: 'sending', messageId: undefined });
    await new Promise((resolve) => setTimeout(resolve, 60));

    expect(await tick('2026-06-15T11:00:00Z')).toMatchObject({ sent: 1 });
    expect(discord.messagesIn(discord.dmChannelOf(user))).toHaveLength(1);
    expect(await daily.store.getDelivery(`dm:${user}`, '2026-06-15')).toMatchObject({ state: 'sent', messageId: post?.id });
  });

  it('switches off (never deletes) when the member’s DMs are closed, and their next command says why, once', async () => {
    const { discord, guild, daily, tick, lines } = await world();
    const user = discord.defaultUser.id;
    const general = guild.channelId('general');
    await discord.invokeCommand({ name: 'wotd-subscribe-me', options: { time: '06:00' }, channelId: general }).waitForResponse();
    discord.setDmsOpen(user, false);
    expect(await tick('2026-06-15T07:00:00Z')).toMatchObject({ failed: 1 });
    expect(await daily.store.get(`dm:${user}`)).toMatchObject({
      status: { state: 'disabled', reason: { kind: 'dmsClosed' } },
    });
    expect(lines.some((line) => line.msg === 'daily post target is gone; subscription disabled')).toBe(true);
    expect(await tick('2026-06-16T07:00:00Z')).toMatchObject({ total: 0 });

    const next = discord.invokeCommand({ name: 'wotd', options: { date: '2025-01-01' }, channelId: general });
    await next.waitForResponse();
    const notice = await next.waitForFollowUp(0);
    expect(notice).toMatchObject({ ephemeral: true });
    expect(notice.content).toContain('Your daily word-of-the-day DMs are switched off: Discord would not deliver it: your DMs are closed to me.');
    const again = discord.invokeCommand({ name: 'wotd', options: { date: '2025-01-01' }, channelId: general });
    await again.waitForResponse();
    await discord.waitFor(() => (again.callback ? true : undefined), 'the second answer');
    expect(again.followUps).toEqual([]);

    discord.setDmsOpen(user, true);
    const back = await discord.invokeCommand({ name: 'wotd-subscribe-me', options: { time: '06:00' }, channelId: general }).waitForResponse();
    expect(back.content).toContain('Updated and re-enabled');
    expect(await tick('2026-06-16T07:01:00Z')).toMatchObject({ sent: 1 });
  });

  it('works for a member who reaches the bot only through their user install, until they remove it', async () => {
    const { discord, outside, daily, tick } = await world();
    const traveller = '700000000000000001';
    discord.installApp(traveller);
    const reply = await discord.invokeCommand({ name: 'wotd-subscribe-me', channelId: outside.channelId('general'), user: traveller }).waitForResponse();
    expect(reply.content).toContain('every day at 09:00 (UTC)');
    expect(await tick('2026-06-15T09:00:00Z')).toMatchObject({ sent: 1 });
    expect(discord.messagesIn(discord.dmChannelOf(traveller))).toHaveLength(1);
    discord.uninstallApp(traveller);
    expect(await tick('2026-06-16T09:00:00Z')).toMatchObject({ failed: 1 });
    expect((await daily.store.get(`dm:${traveller}`))?.status).toMatchObject({ state: 'disabled', reason: { kind: 'noSharedServer' } });
  });

  it('is one per member, kept apart from servers: subscribing again changes it', async () => {
    const temp = tempStore();
    cleanups.push(temp.cleanup);
    const store = await SubscriptionStore.open(temp.url);
    cleanups.push(() => store.close());
    const service = createSubscriptionService({ store, limit: 1, now: () => new Date('2026-06-15T07:00:00Z') });
    expect((await service.subscribeDm({ userId: '1', time: '09:00', timeZone: 'UTC' })).kind).toBe('created');
    expect((await service.subscribeDm({ userId: '1', time: '10:00', timeZone: 'UTC' })).kind).toBe('updated');
    expect((await service.subscribeDm({ userId: '2', time: '09:00', timeZone: 'UTC' })).kind).toBe('created');
    // A server at its limit is not affected by its members' DM subscriptions, nor they by it.
    expect((await service.subscribe({ guildId: '9', channelId: '8', channelName: 'words', time: '09:00', timeZone: 'UTC', roleId: null, userId: '1' })).kind).toBe('created');
    expect((await store.listAll()).map((item) => item.channelId).sort()).toEqual(['8', 'dm:1', 'dm:2']);
    expect((await service.dm('1'))?.subscription).toMatchObject({ time: '10:00', channelId: 'dm:1' });
    expect(await service.list('9')).toHaveLength(1);
    expect(wotdSubscribeMeCommand.data.toJSON()).toMatchObject({ integration_types: [0, 1], contexts: [0, 1, 2] });
  });
});
