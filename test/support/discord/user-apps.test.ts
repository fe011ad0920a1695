import {
  ApplicationIntegrationType,
  AttachmentBuilder,
  DiscordAPIError,
  Events,
  InteractionContextType,
  MessageFlags,
  PermissionFlagsBits,
  Routes,
  SlashCommandBuilder,
  type APIChannel,
  type APIMessage,
  type Client,
  type Interaction,
} from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loginClient, restFor, startDiscordServer, type DiscordServer, type GuildInfo } from './index.ts';
import { apiError } from './suite-helpers.ts';

/** User-installed apps, private channels, DMs the bot may not send, attachments, threads and crossposts. */

const everywhere = new SlashCommandBuilder()
  .setName('anywhere')
  .setDescription('Guild and user install, every context')
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel);
const serverOnly = new SlashCommandBuilder()
  .setName('server-only')
  .setDescription('Guild install, servers only')
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
  .setContexts(InteractionContextType.Guild);

describe('fake Discord: user-installed apps and what the bot may do outside its servers', () => {
  let discord: DiscordServer;
  let client: Client<true>;
  let home: GuildInfo;
  let elsewhere: GuildInfo;
  const handlers: ((i: Interaction) => Promise<void>)[] = [];

  beforeEach(async () => {
    discord = await startDiscordServer();
    home = discord.addGuild({ name: 'Home', channels: [{ name: 'general' }, { name: 'news', type: 5 }] });
    elsewhere = discord.addGuild({
      name: 'Elsewhere',
      withoutBot: true,
      roles: [{ name: 'guests' }],
      channels: [{ name: 'lobby' }, { name: 'strict', permissionOverwrites: [{ id: '@everyone', deny: PermissionFlagsBits.UseExternalApps }] }],
    });
    await restFor(discord).put(Routes.applicationCommands(discord.applicationId), { body: [everywhere.toJSON(), serverOnly.toJSON()] });
    client = await loginClient(discord);
    client.on(Events.InteractionCreate, (interaction) => void handlers.shift()?.(interaction));
  });
  afterEach(async () => {
    handlers.length = 0;
    await client.destroy();
    await discord.close();
  });

  it('checks integration_types and contexts when commands are registered', async () => {
    const bad = await apiError(
      restFor(discord).put(Routes.applicationCommands(discord.applicationId), {
        body: [{ name: 'x', description: 'x', integration_types: [2], contexts: [] }],
      }),
    );
    expect(bad.code).toBe(50035);
    expect(JSON.stringify(bad.rawError)).toContain('integration_types');
    expect(JSON.stringify(bad.rawError)).toContain('contexts');
  });

  it('offers user-installed commands in a server without the bot, with the owners and permissions Discord sends', async () => {
    const lobby = elsewhere.channelId('lobby');
    expect(() => discord.invokeCommand({ name: 'anywhere', channelId: lobby })).toThrow(/not installed here/);
    discord.installApp(discord.defaultUser.id);
    expect(() => discord.invokeCommand({ name: 'server-only', channelId: lobby })).toThrow(/not installed here/);

    let seen: Record<string, unknown> = {};
    handlers.push(async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      const owners = interaction.authorizingIntegrationOwners;
      seen = { guild: interaction.guild, guildId: interaction.guildId, context: interaction.context, owners: { guild: owners.guildId, user: owners.userId } };
      await interaction.reply({ content: 'hello from a user install' });
    });
    const ix = discord.invokeCommand({ name: 'anywhere', channelId: lobby });
    const reply = await ix.waitForResponse();
    expect(seen).toEqual({ guild: null, guildId: elsewhere.id, context: 0, owners: { guild: null, user: discord.defaultUser.id } });
    expect(reply).toMatchObject({ content: 'hello from a user install', ephemeral: false, channelId: lobby });
    // The app acts with what @everyone may do there; the bot user itself can do nothing in the server.
    expect(BigInt(String(ix.payload.app_permissions)) & PermissionFlagsBits.SendMessages).toBe(PermissionFlagsBits.SendMessages);
    expect((await apiError(restFor(discord).post(Routes.channelMessages(lobby), { body: { content: 'x' } }))).code).toBe(50001);

    // In the bot's own server, both installations authorize a command that has both types.
    const both = discord.invokeCommand({ name: 'anywhere', channelId: home.channelId('general') });
    expect(both.payload.authorizing_integration_owners).toEqual({ '0': home.id, '1': discord.defaultUser.id });
    handlers.push(async (interaction) => {
      if (interaction.isChatInputCommand()) await interaction.reply({ content: 'ok', flags: MessageFlags.Ephemeral });
    });
    await both.waitForResponse();
  });

  it('makes replies ephemeral where members may not use external apps, and allows 5 follow-ups', async () => {
    discord.installApp(discord.defaultUser.id);
    const done = new Promise<unknown[]>((resolve) => {
      handlers.push(async (interaction) => {
        if (!interaction.isChatInputCommand()) return;
        await interaction.reply({ content: 'first' });
        const outcomes: unknown[] = [];
        for (let n = 1; n <= 6; n += 1) {
          outcomes.push(await interaction.followUp({ content: `follow-up ${n}` }).then(() => 'ok', (e: unknown) => (e instanceof DiscordAPIError ? e.code : e)));
        }
        resolve(outcomes);
      });
    });
    const ix = discord.invokeCommand({ name: 'anywhere', channelId: elsewhere.channelId('strict') });
    expect(await done).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 40094]);
    expect(ix.original?.ephemeral).toBe(true);
    expect(ix.followUps.every((message) => message.ephemeral)).toBe(true);
  });

  it('offers user-installed commands in group DMs (context 2), where the bot cannot post', async () => {
    const friend = discord.addMember(home.id, { username: 'friend' });
    const group = discord.addPrivateChannel([discord.defaultUser.id, friend.id]);
    expect(() => discord.invokeCommand({ name: 'anywhere', channelId: group })).toThrow(/not installed here/);
    discord.installApp(discord.defaultUser.id);
    expect(() => discord.invokeCommand({ name: 'server-only', channelId: group })).toThrow(/cannot be used in group DMs/);
    handlers.push(async (interaction) => {
      if (interaction.isChatInputCommand()) await interaction.reply({ content: `context ${String(interaction.context)}` });
    });
    const ix = discord.invokeCommand({ name: 'anywhere', channelId: group });
    expect(await ix.waitForResponse()).toMatchObject({ content: 'context 2', guildId: null });
    expect(ix.payload).toMatchObject({ context: 2, channel: { type: 3 }, authorizing_integration_owners: { '1': discord.defaultUser.id } });
    expect((await apiError(restFor(discord).post(Routes.channelMessages(group), { body: { content: 'x' } }))).code).toBe(50001);
  });

  it('refuses DMs to users who closed them (50007) or share no server and have no user install (50278)', async () => {
    const rest = restFor(discord);
    const stranger = discord.addMember(elsewhere.id, { username: 'stranger' });
    const openDm = async (userId: string) => ((await rest.post(Routes.userChannels(), { body: { recipient_id: userId } })) as APIChannel).id;
    const send = (channelId: string) => rest.post(Routes.channelMessages(channelId), { body: { content: 'word of the day' } });

    expect((await apiError(send(await openDm(stranger.id)))).code).toBe(50278);
    discord.installApp(stranger.id);
    await send(await openDm(stranger.id));
    discord.setDmsOpen(discord.defaultUser.id, false);
    const closed = await apiError(send(await openDm(discord.defaultUser.id)));
    expect([closed.status, closed.code, closed.message]).toEqual([403, 50007, 'Cannot send messages to this user']);
  });

  it('keeps the files of a reply, readable as text', async () => {
    handlers.push(async (interaction) => {
      if (!interaction.isChatInputCommand()) return;
      await interaction.reply({ files: [new AttachmentBuilder(Buffer.from('{"a":1}'), { name: 'data.json' })], flags: MessageFlags.Ephemeral });
    });
    const reply = await discord.invokeCommand({ name: 'anywhere', channelId: home.channelId('general') }).waitForResponse();
    expect(reply.files).toEqual([{ filename: 'data.json', contentType: expect.any(String), size: 7, text: '{"a":1}' }]);
  });

  it('starts threads from messages and crossposts in announcement channels, with Discord’s checks', async () => {
    const rest = restFor(discord);
    const news = home.channelId('news');
    const general = home.channelId('general');
    const post = async (channelId: string) => ((await rest.post(Routes.channelMessages(channelId), { body: { content: 'word' } })) as APIMessage).id;
    const inNews = await post(news);
    const thread = (channelId: string, messageId: string) => rest.post(Routes.threads(channelId, messageId), { body: { name: 'Discuss', auto_archive_duration: 1440 } });

    expect((await apiError(thread(news, inNews))).code).toBe(50013);
    discord.updateRole(home.id, home.botRoleId ?? '', { permissions: PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages | PermissionFlagsBits.CreatePublicThreads });
    expect(await thread(news, inNews)).toMatchObject({ id: inNews, type: 10, parent_id: news, name: 'Discuss' });
    expect((await apiError(thread(news, inNews))).code).toBe(160004);
    expect(discord.threadsIn(news)).toEqual([{ id: inNews, name: 'Discuss', type: 10, parentId: news, autoArchiveDuration: 1440 }]);
    const badName = await apiError(rest.post(Routes.threads(general, await post(general)), { body: { name: '' } }));
    expect(badName.code).toBe(50035);

    // CROSSPOSTED (1), and HAS_THREAD (32) since the thread above was started from it.
    expect(await rest.post(Routes.channelMessageCrosspost(news, inNews))).toMatchObject({ id: inNews, flags: 1 | 32 });
    expect((await apiError(rest.post(Routes.channelMessageCrosspost(news, inNews)))).code).toBe(40033);
    expect((await apiError(rest.post(Routes.channelMessageCrosspost(general, await post(general))))).code).toBe(50024);
  });
});
