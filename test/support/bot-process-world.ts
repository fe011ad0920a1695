import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Routes } from 'discord.js';
import { commands } from '../../commands/index.ts';
import { startWotdService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { testEntries } from '../commands/world.ts';
import { restFor, startDiscordServer } from './discord/index.ts';

/**
 * What a bot started as a child process (`bin/wotd-bot.js start`) meets: our service on the test word list, the local
 * Discord server with one guild (#general) where the commands are registered, and a temp folder for its store.
 * `settings` point the bot at all three; `close` stops and removes them.
 */
export async function startBotProcessWorld(name: string) {
  const dir = await mkdtemp(join(tmpdir(), `wotd-bot-${name}-`));
  await writeWordDb(join(dir, 'words.sqlite'), testEntries());
  const service = await startWotdService({ dbPath: join(dir, 'words.sqlite'), variant: 'A', port: 0, rateLimitPerMinute: 0 });
  const discord = await startDiscordServer();
  const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'general' }] });
  await restFor(discord).put(Routes.applicationGuildCommands(discord.applicationId, guild.id), {
    body: commands.map((command) => command.data.toJSON()),
  });
  const settings = {
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    WOTD_API_URL: service.url,
    STORE_URL: `sqlite://${join(dir, 'store.sqlite')}`,
  };
  const close = async () => {
    await discord.close();
    await service.close();
    await rm(dir, { recursive: true, force: true });
  };
  return { dir, service, discord, guild, settings, close };
}
