import { afterEach, expect, it } from 'vitest';
import { commands } from '../../commands/index.ts';
import { startDiscordBot, type DiscordBot } from '../../src/discord/bot.ts';
import { runDeployCommands } from '../../src/discord/deploy-commands.ts';
import { createLogger } from '../../src/config/logger.ts';
import { shardOf, startDiscordServer } from '../support/discord/index.ts';
import { startWotdWorld } from '../support/wotd-world.ts';
import { quiet } from './bot-world.ts';
import { testEntries, TODAY } from '../commands/world.ts';

/** Two bot processes' worth of shards on one local Discord server: each answers the servers of its own shards. */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

it('runs shards 0-1 and 2-3 of four in two bots, each answering only its own servers', async () => {
  const discord = await startDiscordServer();
  cleanups.push(() => discord.close());
  const guilds = discord.addGuilds(8, (index) => ({ name: `Words ${index}`, channels: [{ name: 'general' }] }));
  const wotd = await startWotdWorld({ entries: testEntries(), today: TODAY });
  cleanups.push(() => wotd.close());
  const env = { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl };
  expect(await runDeployCommands([], { env, stdout: quiet(), stderr: quiet(), commands })).toBe(0);
  const logger = createLogger({ level: 'silent' });
  const start = async (ids: number[]): Promise<DiscordBot> => {
    const bot = await startDiscordBot({
      config: { ...env, DISCORD_APPLICATION_ID: undefined },
      commands,
      services: { lookup: wotd.adapter, siteUrl: 'https://wotd.example', logger },
      logger,
      shards: { kind: 'fixed', count: 4, ids },
    });
    cleanups.push(() => bot.stop());
    return bot;
  };
  const [low, high] = await Promise.all([start([0, 1]), start([2, 3])]);
  const owner = (guildId: string) => (shardOf(guildId, 4) < 2 ? low : high);
  for (const guild of guilds) {
    expect(owner(guild.id).client.guilds.cache.has(guild.id)).toBe(true);
    expect((owner(guild.id) === low ? high : low).client.guilds.cache.has(guild.id)).toBe(false);
  }
  const shown = await Promise.all(
    guilds.map((guild) => discord.invokeCommand({ name: 'wotd', options: { date: '2025-01-14' }, channelId: guild.channelId('general') }).waitForResponse()),
  );
  for (const message of shown) expect(message.embeds[0]?.title).toContain('serendipity');
  expect(new Set(guilds.map((guild) => shardOf(guild.id, 4))).size).toBe(4);
});
