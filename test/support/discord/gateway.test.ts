import { Events, type Client } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loginClient, startDiscordServer, type DiscordServer } from './index.ts';

describe('fake Discord gateway', () => {
  let discord: DiscordServer;
  let client: Client<true> | undefined;

  beforeEach(async () => {
    discord = await startDiscordServer();
  });
  afterEach(async () => {
    await client?.destroy();
    client = undefined;
    await discord.close();
  });

  it('logs a discord.js Client in: READY with the application id, then GUILD_CREATE with channels, roles and members', async () => {
    const guild = discord.addGuild({
      name: 'Words',
      roles: [{ name: 'mods', permissions: 1n << 4n }],
      channels: [
        { name: 'general' },
        { name: 'daily', permissionOverwrites: [{ id: '@everyone', deny: 1n << 11n }, { id: 'mods', allow: 1n << 11n }] },
      ],
    });
    client = await loginClient(discord);
    expect(client.user.id).toBe(discord.botUser.id);
    expect(client.application.id).toBe(discord.applicationId);
    const seen = client.guilds.cache.get(guild.id);
    expect(seen?.name).toBe('Words');
    expect(seen?.channels.cache.get(guild.channelId('general'))?.name).toBe('general');
    expect(seen?.roles.cache.get(guild.roleId('mods'))?.permissions.has('ManageChannels')).toBe(true);
    expect(seen?.members.me?.roles.cache.has(guild.botRoleId ?? '')).toBe(true);
    expect(seen?.members.me?.permissions.has('SendMessages')).toBe(true);
    const daily = seen?.channels.cache.get(guild.channelId('daily'));
    expect(daily && 'permissionOverwrites' in daily ? daily.permissionOverwrites.cache.get(guild.id)?.deny.has('SendMessages') : undefined).toBe(true);
    expect(seen?.members.me && daily?.permissionsFor(seen.members.me)?.has('SendMessages')).toBe(false);
    const identify = discord.gatewayEvents.find((e) => e.kind === 'identify');
    expect(identify?.detail).toMatchObject({ intents: 1, shard: [0, 1] });
  });

  it('sends GUILD_CREATE, CHANNEL_DELETE and GUILD_DELETE for changes after READY', async () => {
    const first = discord.addGuild({ name: 'First' });
    client = await loginClient(discord);
    const created = new Promise<string>((resolve) => client?.once(Events.GuildCreate, (g) => resolve(g.id)));
    const second = discord.addGuild({ name: 'Second', channels: [{ name: 'a' }, { name: 'b' }] });
    expect(await created).toBe(second.id);

    const channelGone = new Promise<string>((resolve) => client?.once(Events.ChannelDelete, (c) => resolve(c.id)));
    discord.deleteChannel(second.channelId('a'));
    expect(await channelGone).toBe(second.channelId('a'));
    expect(client.channels.cache.has(second.channelId('a'))).toBe(false);

    const guildGone = new Promise<string>((resolve) => client?.once(Events.GuildDelete, (g) => resolve(g.id)));
    discord.removeGuild(first.id);
    expect(await guildGone).toBe(first.id);
    expect(client.guilds.cache.has(first.id)).toBe(false);
  });
});
