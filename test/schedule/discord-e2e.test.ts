import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { startDiscordServer } from '../support/discord/index.ts';
import { startBotOnServer } from './bot-on-server.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});


describe('daily posts end to end: the real bot, the local Discord server, a SQLite store', () => {
  it('subscribe through Discord, post at the time with the role mention, disable on channel deletion', async () => {
    const discord = await startDiscordServer();
    cleanups.push(() => discord.close());
    const guild = discord.addGuild({
      name: 'Words',
      roles: [{ name: 'word-fans' }, { name: 'admins', permissions: PermissionFlagsBits.ManageChannels }],
      members: [{ id: '500000000000000001', username: 'admin', roles: ['admins'] }],
      channels: [
        { name: 'general' },
        { name: 'daily' },
        { name: 'locked', permissionOverwrites: [{ id: '@bot', deny: PermissionFlagsBits.EmbedLinks | PermissionFlagsBits.SendMessages }] },
        // The bot may post here but not embed: Discord would take the post and drop its embed (the word itself).
        { name: 'no-embeds', permissionOverwrites: [{ id: '@bot', deny: PermissionFlagsBits.EmbedLinks }] },
      ],
    });
    const now = () => new Date('2026-06-15T07:00:00Z');
    const { daily, lookup } = await startBotOnServer(discord, cleanups, { daily: { now } });
    // The member holds Manage Channels through the admins role; Discord (and the local server) offer the commands only then.
    const invoke = async (name: string, options: Record<string, string | boolean>) => {
      const handle = discord.invokeCommand({ name, options, channelId: guild.channelId('general'), user: '500000000000000001' });
      return handle.waitForResponse();
    };

    const locked = await invoke('wotd-subscribe', { channel: guild.channelId('locked') });
    expect(locked.content).toContain(`I'm missing **Send Messages** and **Embed Links** there`);
    expect(locked.ephemeral).toBe(true);
    const noEmbeds = await invoke('wotd-subscribe', { channel: guild.channelId('no-embeds') });
    expect(noEmbeds.content).toContain(`I can't post in <#${guild.channelId('no-embeds')}>: I'm missing **Embed Links** there. Give me it in the channel's permissions`);
    expect(noEmbeds.ephemeral).toBe(true);

    const settings = { channel: guild.channelId('daily'), time: '09:30', timezone: 'Europe/London', role: guild.roleId('word-fans'), style: 'compact' };
    const preview = await invoke('wotd-subscribe', { ...settings, preview: true });
    expect(preview).toMatchObject({ ephemeral: true, allowedMentions: { parse: [], roles: [] }, pings: { roles: [] } });
    expect(preview.content).toContain(`**Preview** of the daily post in <#${guild.channelId('daily')}>: the word of the day every day at 09:30 (Europe/London)`);
    expect(preview.content).toContain(`<@&${guild.roleId('word-fans')}>`);
    expect(preview.embeds[0]).toMatchObject({ title: 'word-2026-06-15', description: '/wɜːd/ — The word for 2026-06-15.' });
    expect(await daily.store.listAll()).toEqual([]);

    const ok = await invoke('wotd-subscribe', settings);
    expect(ok.content).toContain(`Subscribed <#${guild.channelId('daily')}>: the word of the day every day at 09:30 (Europe/London), compact`);
    expect(ok.content).toContain(`mentioning <@&${guild.roleId('word-fans')}>`);
    expect(ok.allowedMentions).toEqual({ parse: [], roles: [] });

    const zones = await discord.autocomplete({ name: 'wotd-subscribe', options: { channel: guild.channelId('daily'), timezone: 'lond' }, focused: 'timezone', channelId: guild.channelId('general'), user: '500000000000000001' });
    expect(zones).toContainEqual({ name: 'Europe/London', value: 'Europe/London' });

    // start() hands back the scheduler startDiscordDailyPosts already started, which posts through the bot's REST client.
    const scheduler: DailyScheduler = daily.start({ poster: { post: () => Promise.reject(new Error('not this one')), findEarlierPost: () => Promise.reject(new Error('not this one')) }, lookup, render: () => ({}) });
    expect(await scheduler.tick(new Date('2026-06-15T08:29:00Z'))).toMatchObject({ total: 0 });
    expect(await scheduler.tick(new Date('2026-06-15T08:30:00Z'))).toMatchObject({ sent: 1 });
    const [post] = discord.messagesIn(guild.channelId('daily'));
    expect(post).toMatchObject({ content: `<@&${guild.roleId('word-fans')}>`, allowedMentions: { parse: [], roles: [guild.roleId('word-fans')] } });
    // The post is what the preview showed.
    expect(post?.embeds[0]).toEqual(preview.embeds[0]);

    const listed = await invoke('wotd-subscriptions', {});
    expect(listed.embeds[0]).toMatchObject({ title: 'Daily posts (1 of 5)' });
    expect(JSON.stringify(listed.embeds[0])).toContain('active; next post <t:');

    discord.deleteChannel(guild.channelId('daily'));
    await vi.waitFor(async () => expect((await daily.store.get(guild.channelId('daily')))?.status.state).toBe('disabled'));
    const after = await invoke('wotd-subscriptions', {});
    expect(after.embeds[0]).toMatchObject({ title: 'Daily posts (0 of 5)' });
    expect(JSON.stringify(after.embeds[0])).toContain('disabled (the channel was deleted; not counted toward the limit)');
  });
});
