import { Events, GatewayDispatchEvents, type Client } from 'discord.js';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { botPermissionsIn } from '../../src/discord/bot-permissions.ts';
import { createDiscordClient } from '../../src/discord/client.ts';
import { startDiscordServer, type DiscordServer } from '../support/discord/index.ts';

let discord: DiscordServer;
let client: Client | undefined;

beforeEach(async () => {
  discord = await startDiscordServer();
});

afterEach(async () => {
  await client?.destroy();
  client = undefined;
  await discord.close();
});

it('hands discord.js a GUILD_CREATE without its channel list, and the server is still available and checked', async () => {
  const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'general' }, { name: 'news', type: 5 }, { name: 'talk' }] });
  client = createDiscordClient({ apiUrl: discord.apiUrl });
  // Listeners added after the client's own see the payload discord.js then builds the server from.
  const listed: number[] = [];
  client.ws.on(GatewayDispatchEvents.GuildCreate, (data: { channels?: unknown[] }) => listed.push(data.channels?.length ?? -1));
  const ready = new Promise<Client<true>>((resolve) => client?.once(Events.ClientReady, resolve));
  await client.login(discord.token);
  const connected = await ready;

  expect(listed).toEqual([0]);
  const server = connected.guilds.cache.get(guild.id);
  expect(server?.available).toBe(true);
  expect(server?.members.me?.id).toBe(connected.user.id);
  expect(server?.roles.cache.has(guild.id)).toBe(true);
  // The channel is read when it is needed, with the bot's permissions in it.
  expect(await botPermissionsIn(server ?? null, guild.channelId('talk'))).toEqual(new Set(['ViewChannel', 'SendMessages', 'EmbedLinks', 'ReadMessageHistory']));
});
