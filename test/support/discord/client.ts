import { Client, Events, GatewayIntentBits, REST, type ClientOptions, type RESTOptions } from 'discord.js';
import type { DiscordServer } from './server.ts';

/** A discord.js Client pointed at the harness, logged in and ready (all scripted guilds received). */
export async function loginClient(discord: DiscordServer, options: Partial<ClientOptions> = {}): Promise<Client<true>> {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds],
    ...options,
    rest: { ...options.rest, api: discord.apiUrl },
  });
  const ready = new Promise<Client<true>>((resolve) => client.once(Events.ClientReady, resolve));
  await client.login(discord.token);
  return ready;
}

/** A bare discord.js REST pointed at the harness with the bot token. */
export function restFor(discord: DiscordServer, options: Partial<RESTOptions> = {}): REST {
  return new REST({ ...options, api: discord.apiUrl }).setToken(discord.token);
}
