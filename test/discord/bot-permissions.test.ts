import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { botPermissionsIn } from '../../src/discord/bot-permissions.ts';
import { loginClient, startDiscordServer } from '../support/discord/index.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the bot\'s permissions in a channel, as discord.js resolves them', () => {
  it('reads roles and channel overwrites, and grants nothing for an unknown channel', async () => {
    const discord = await startDiscordServer();
    cleanups.push(() => discord.close());
    const guild = discord.addGuild({
      channels: [
        { name: 'open' },
        { name: 'no-embeds', permissionOverwrites: [{ id: '@bot', deny: PermissionFlagsBits.EmbedLinks }] },
        { name: 'read-only', permissionOverwrites: [{ id: '@everyone', deny: PermissionFlagsBits.SendMessages }] },
        { name: 'hidden', permissionOverwrites: [{ id: '@bot', deny: PermissionFlagsBits.ViewChannel }] },
      ],
    });
    const client = await loginClient(discord);
    cleanups.push(() => client.destroy());
    const cached = client.guilds.cache.get(guild.id) ?? null;
    const held = async (name: string) => [...(await botPermissionsIn(cached, guild.channelId(name)))].sort();

    expect(await held('open')).toEqual(['EmbedLinks', 'ReadMessageHistory', 'SendMessages', 'ViewChannel']);
    expect(await held('no-embeds')).toEqual(['ReadMessageHistory', 'SendMessages', 'ViewChannel']);
    expect(await held('read-only')).toEqual(['EmbedLinks', 'ReadMessageHistory', 'ViewChannel']);
    // Only View Channel is missing: granting it is all the admin has to do, so that is what gets named.
    expect(await held('hidden')).toEqual(['EmbedLinks', 'ReadMessageHistory', 'SendMessages']);
    expect([...(await botPermissionsIn(cached, '999999999999999999'))]).toEqual([]);
    expect([...(await botPermissionsIn(null, guild.channelId('open')))]).toEqual([]);
  });
});
