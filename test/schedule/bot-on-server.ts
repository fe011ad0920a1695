import { Writable } from 'node:stream';
import { expect } from 'vitest';
import { commands } from '../../commands/index.ts';
import { startDiscordBot } from '../../src/discord/bot.ts';
import { startDiscordDailyPosts } from '../../src/discord/discord-daily-posts.ts';
import { runDeployCommands } from '../../src/discord/deploy-commands.ts';
import { openDailyPosts, type OpenDailyPostsOptions } from '../../src/schedule/daily-posts.ts';
import type { WotdLookup } from '../../src/wotd/lookup.ts';
import type { DiscordServer } from '../support/discord/index.ts';
import { captureLogger, FixedLookup, tempStore } from './helpers.ts';

export type Cleanups = Array<() => Promise<void> | void>;

const quiet = () => new Writable({ write: (_chunk, _encoding, callback) => callback() });

export interface BotOnServerOptions {
  /** Given to openDailyPosts besides the store (a temp SQLite file), limit 5 and the logger; concurrency 4 unless said. */
  daily?: Partial<Pick<OpenDailyPostsOptions, 'concurrency' | 'now' | 'observer'>>;
  /** Whether the bot posts the daily words itself (startDiscordDailyPosts): yes unless false. */
  dailyPosts?: boolean;
}

/**
 * The real bot against the local Discord server: its commands deployed there, its daily posts opened on a temp store,
 * answering from a FixedLookup and logging to `lines`. Everything it opens is closed through `cleanups`.
 */
export async function startBotOnServer(discord: DiscordServer, cleanups: Cleanups, options: BotOnServerOptions = {}) {
  const env = { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl };
  expect(await runDeployCommands([], { env, stdout: quiet(), stderr: quiet(), commands })).toBe(0);
  const temp = tempStore();
  cleanups.push(temp.cleanup);
  const { logger, lines } = captureLogger();
  const daily = await openDailyPosts({ store: temp.url, limit: 5, concurrency: 4, logger, ...options.daily });
  cleanups.push(() => daily.close());
  const lookup = new FixedLookup();
  const bot = await startDiscordBot({
    config: { ...env, DISCORD_APPLICATION_ID: undefined },
    commands,
    services: { lookup: lookup as unknown as WotdLookup, siteUrl: 'https://wotd.site', logger, subscriptions: daily.subscriptions },
    logger,
  });
  cleanups.push(() => bot.stop());
  if (options.dailyPosts !== false) cleanups.push(startDiscordDailyPosts(bot.client, daily, { lookup, siteUrl: 'https://wotd.site', logger }));
  return { daily, lookup, bot, logger, lines };
}
