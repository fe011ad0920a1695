import { Client, DiscordjsErrorCodes, Events, GatewayIntentBits, PermissionFlagsBits } from 'discord.js';
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

  it('resumes after close 4000 and replays what was dispatched while disconnected', async () => {
    const guild = discord.addGuild({ channels: [{ name: 'a' }, { name: 'b' }] });
    client = await loginClient(discord);
    const gone = new Promise<string>((resolve) => client?.once(Events.ChannelDelete, (c) => resolve(c.id)));
    const clientResumed = new Promise<void>((resolve) => client?.once(Events.ShardResume, () => resolve()));
    discord.closeGateway(4000);
    discord.deleteChannel(guild.channelId('a'));
    const resumed = await discord.waitForResume();
    await clientResumed;
    expect(await gone).toBe(guild.channelId('a'));
    expect(discord.gatewayEvents.filter((e) => e.kind === 'identify')).toHaveLength(1);
    expect(discord.gatewayEvents.find((e) => e.kind === 'close')?.code).toBe(4000);
    expect(resumed.sessionId).toBe(discord.gatewayEvents.find((e) => e.kind === 'ready')?.sessionId);
  });

  it('starts a new session after 4009: the RESUME is refused (op 9) and discord.js identifies again', async () => {
    discord.addGuild();
    // discord.js would wait out its 5 s identify throttle before identifying again; skip that wait here.
    client = await loginClient(discord, { ws: { buildIdentifyThrottler: async () => ({ waitForIdentify: async () => undefined }) } });
    const readyAgain = new Promise<void>((resolve) => client?.once(Events.ShardReady, () => resolve()));
    discord.closeGateway(4009);
    await readyAgain;
    expect(discord.gatewayEvents.map((e) => e.kind)).toEqual(expect.arrayContaining(['resume', 'invalid-session']));
    const [first, second] = discord.gatewayEvents.filter((e) => e.kind === 'ready');
    expect(second?.sessionId).toBeDefined();
    expect(second?.sessionId).not.toBe(first?.sessionId);
    expect(discord.connected).toBe(true);
  });

  it('resumes after an abnormal drop (1006) and after op 7 Reconnect', async () => {
    discord.addGuild();
    client = await loginClient(discord);
    const resumed = (): Promise<void> => new Promise((resolve) => client?.once(Events.ShardResume, () => resolve()));
    const afterDrop = resumed();
    discord.dropGateway();
    await afterDrop;
    expect(discord.gatewayEvents.find((e) => e.kind === 'close')?.code).toBe(1006);
    const afterReconnect = resumed();
    discord.requestReconnect();
    await afterReconnect;
    expect(discord.gatewayEvents.filter((e) => e.kind === 'resumed')).toHaveLength(2);
    expect(discord.gatewayEvents.filter((e) => e.kind === 'identify')).toHaveLength(1);
  });

  it('acknowledges heartbeats', async () => {
    await discord.close();
    discord = await startDiscordServer({ heartbeatIntervalMs: 100 });
    client = await loginClient(discord);
    const acked = new Promise<void>((resolve) => {
      const check = (): void => {
        if (client && client.ws.ping >= 0) resolve();
        else setTimeout(check, 20);
      };
      check();
    });
    await discord.waitForGateway('heartbeat', 3);
    await acked;
    expect(client.ws.ping).toBeGreaterThanOrEqual(0);
  });

  it('rejects a wrong token at login', async () => {
    const stranger = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: discord.apiUrl } });
    await expect(stranger.login('not-the-token')).rejects.toMatchObject({ code: DiscordjsErrorCodes.TokenInvalid });
    await stranger.destroy();
  });

  it('keeps the client’s view of permissions current: role updates, the bot’s own member update, outages', async () => {
    const guild = discord.addGuild({ everyonePermissions: PermissionFlagsBits.ViewChannel, roles: [{ name: 'posters', permissions: 0n }], channels: [{ name: 'daily' }] });
    client = await loginClient(discord);
    const daily = guild.channelId('daily');
    const me = () => client?.guilds.cache.get(guild.id)?.members.me;
    const canPost = () => {
      const channel = client?.channels.cache.get(daily);
      const member = me();
      return channel && member && 'permissionsFor' in channel ? channel.permissionsFor(member).has('SendMessages') : undefined;
    };
    expect(canPost()).toBe(true);

    const roleUpdated = new Promise<void>((resolve) => client?.once(Events.GuildRoleUpdate, () => resolve()));
    discord.updateRole(guild.id, guild.botRoleId ?? '', { permissions: PermissionFlagsBits.ViewChannel });
    await roleUpdated;
    expect(canPost()).toBe(false);
    expect(discord.botPermissions(daily) & PermissionFlagsBits.SendMessages).toBe(0n);

    const memberUpdated = new Promise<void>((resolve) => client?.once(Events.GuildMemberUpdate, () => resolve()));
    discord.updateRole(guild.id, 'posters', { permissions: PermissionFlagsBits.SendMessages });
    discord.setMemberRoles(guild.id, discord.botUser.id, [guild.botRoleId ?? '', 'posters']);
    await memberUpdated;
    expect(canPost()).toBe(true);

    const gone = new Promise<boolean>((resolve) => client?.once(Events.GuildUnavailable, (g) => resolve(g.available)));
    discord.setGuildAvailable(guild.id, false);
    expect(await gone).toBe(false);
    const back = new Promise<void>((resolve) => client?.once(Events.GuildAvailable, () => resolve()));
    discord.setGuildAvailable(guild.id, true);
    await back;
    expect(client.guilds.cache.get(guild.id)?.available).toBe(true);
  });
});
