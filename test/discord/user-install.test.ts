import { PermissionFlagsBits } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GuildInfo } from '../support/discord/index.ts';
import { startBotWorld, type BotWorld } from './bot-world.ts';

/**
 * The bot installed to a member's account (Discord's user install) rather than to a server: the lookup commands
 * follow the member into servers the bot is not in, group DMs and the bot's DM; the admin commands stay with servers
 * that installed the bot. Through the real client and the local Discord server.
 */

let world: BotWorld;
let outside: GuildInfo;

beforeAll(async () => {
  world = await startBotWorld();
  outside = world.discord.addGuild({
    name: 'Not the bot’s',
    withoutBot: true,
    channels: [{ name: 'chat' }, { name: 'no-apps', permissionOverwrites: [{ id: '@everyone', deny: PermissionFlagsBits.UseExternalApps }] }],
  });
  world.discord.installApp(world.discord.defaultUser.id);
});

afterAll(async () => {
  await world?.close();
});

describe('user install', () => {
  it('registers the lookup and personal commands for both installations and every context, the admin commands for servers only', () => {
    const registered = new Map(world.discord.commands().map((command) => [command.name, command]));
    for (const name of ['wotd', 'wotd-history', 'wotd-find', 'wotd-subscribe-me', 'wotd-unsubscribe-me', 'wotd-data']) {
      expect(registered.get(name)).toMatchObject({ integration_types: [0, 1], contexts: [0, 1, 2] });
    }
    for (const name of ['wotd-subscribe', 'wotd-unsubscribe', 'wotd-subscriptions']) {
      expect(registered.get(name)).toMatchObject({ integration_types: [0], contexts: [0] });
    }
  });

  it('answers /wotd in a server the bot is not in, publicly, and the admin commands are not offered there', async () => {
    const chat = outside.channelId('chat');
    const ix = world.discord.invokeCommand({ name: 'wotd', options: { date: '2025-01-14' }, channelId: chat });
    const reply = await ix.waitForResponse();
    expect(reply).toMatchObject({ ephemeral: false, channelId: chat, guildId: outside.id });
    expect(reply.embeds[0]).toMatchObject({ title: 'serendipity' });
    expect(ix.payload.authorizing_integration_owners).toEqual({ '1': world.discord.defaultUser.id });
    expect(() => world.discord.invokeCommand({ name: 'wotd-subscribe', options: { channel: chat }, channelId: chat, memberPermissions: PermissionFlagsBits.Administrator })).toThrow(
      /not installed here/,
    );
    // Nothing was tried against the server itself: the bot user may not touch it.
    expect(world.discord.requests.filter((request) => request.path.includes(chat) && !request.path.startsWith('/webhooks') && !request.path.startsWith('/interactions'))).toEqual([]);
  });

  it('where the server forbids external apps, Discord makes the answer private and the bot still answers', async () => {
    const ix = world.discord.invokeCommand({ name: 'wotd-find', options: { word: 'echo' }, channelId: outside.channelId('no-apps') });
    const reply = await ix.waitForResponse();
    expect(reply.ephemeral).toBe(true);
    expect(String(reply.embeds[0]?.title)).toContain('echo');
  });

  it('pages /wotd-history in a group DM: another member presses Older and the message is replaced', async () => {
    const friend = world.discord.addMember(world.guild.id, { username: 'friend' });
    const group = world.discord.addPrivateChannel([world.discord.defaultUser.id, friend.id]);
    const ix = world.discord.invokeCommand({ name: 'wotd-history', options: { limit: 2 }, channelId: group });
    const first = await ix.waitForResponse();
    expect(ix.payload).toMatchObject({ context: 2 });
    expect(first.embeds[0]?.fields).toHaveLength(2);
    const button = (first.components[0]?.components as { custom_id: string; label: string }[])[0];
    expect(button).toMatchObject({ label: 'Older', custom_id: 'hist:2025-01-18:2' });
    const older = world.discord.pressButton({ customId: button?.custom_id ?? '', channelId: group, user: friend.id });
    const second = await older.waitForResponse();
    expect(second.id).toBe(first.id);
    expect((second.embeds[0]?.fields as { name: string }[]).map((field) => field.name)).toEqual(['quixotic · 2025-01-17', 'plume · 2025-01-16']);
    expect(older.callback).toMatchObject({ type: 7 });
  });

  it('answers in the bot’s DM with a user install', async () => {
    const ix = world.discord.invokeCommand({ name: 'wotd', options: { date: 'yesterday' }, dm: true });
    expect(ix.payload.authorizing_integration_owners).toEqual({ '0': '0', '1': world.discord.defaultUser.id });
    expect((await ix.waitForResponse()).embeds[0]).toMatchObject({ footer: { text: expect.stringContaining('2025-01-19') } });
  });
});
