import { Writable } from 'node:stream';
import { expect } from 'vitest';
import { commands } from '../../commands/index.ts';
import type { Logger } from '../../src/config/logger.ts';
import { startDiscordBot } from '../../src/discord/bot.ts';
import { startDiscordDailyPosts } from '../../src/discord/discord-daily-posts.ts';
import { runDeployCommands } from '../../src/discord/deploy-commands.ts';
import { LearningService } from '../../src/learning/learning-service.ts';
import type { LearningStore } from '../../src/learning/learning-store.ts';
import { openLearningStore } from '../../src/learning/open-learning-store.ts';
import { wordListOf } from '../../src/learning/word-list.ts';
import { savePoster } from '../../src/learning/save-poster.ts';
import { dailySaveButton } from '../../src/replies/learning-replies.ts';
import { openDailyPosts, type DailyPosts } from '../../src/schedule/daily-posts.ts';
import type { ChannelPoster } from '../../src/schedule/poster.ts';
import { startDiscordServer, type GuildSpec } from '../support/discord/index.ts';
import { captureLogger, tempStore } from '../schedule/helpers.ts';
import { startCommandWorld, SITE_URL, type CommandWorld } from '../commands/world.ts';
import type { Cleanups } from '../schedule/bot-on-server.ts';

const quiet = () => new Writable({ write: (_chunk, _encoding, callback) => callback() });

export interface LearningBotWorldOptions {
  guild: GuildSpec;
  /** Where the test clock starts; the daily posts, the learning service and the bot all read it. */
  now: Date;
  /** Whether the learning service knows which channels post the quiz (the daily quiz) and /wotd-data covers it. */
  quiz?: boolean;
  /** The daily posts' second decoration, over Save's: the quiz, or the review line. */
  decorate: (inner: ChannelPoster, parts: { daily: DailyPosts; store: LearningStore; learning: LearningService; words: CommandWorld; logger: Logger }) => ChannelPoster;
}

/**
 * The real bot on the local Discord server with the learning store and service on a temp store, its daily posts
 * decorated with Save and then `decorate`, as bot-services.ts does. Everything it opens is closed through `cleanups`.
 */
export async function startLearningBotWorld(cleanups: Cleanups, options: LearningBotWorldOptions) {
  const discord = await startDiscordServer();
  cleanups.push(() => discord.close());
  const guild = discord.addGuild(options.guild);
  const env = { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl };
  expect(await runDeployCommands([], { env, stdout: quiet(), stderr: quiet(), commands })).toBe(0);
  const words = await startCommandWorld();
  cleanups.push(() => words.close());
  const temp = tempStore();
  cleanups.push(temp.cleanup);
  const clock = { now: options.now };
  const { logger } = captureLogger();
  const daily = await openDailyPosts({ store: temp.url, limit: 5, concurrency: 4, logger, now: () => clock.now });
  cleanups.push(() => daily.close());
  const store = await openLearningStore({ url: temp.url });
  cleanups.push(() => store.close());
  const learning = new LearningService(store, wordListOf(words.adapter), {
    now: () => clock.now.getTime(),
    ...(options.quiz ? { quizChannel: daily.store.quizOn } : {}),
  });
  if (options.quiz) daily.privacy.include(store);
  daily.wrapPoster((inner) => savePoster(inner, { subscriptionOf: (id) => daily.store.get(id), button: dailySaveButton }));
  daily.wrapPoster((inner) => options.decorate(inner, { daily, store, learning, words, logger }));
  const services = { ...words.services, logger, subscriptions: daily.subscriptions, ...(options.quiz ? { privacy: daily.privacy } : {}), learning };
  const bot = await startDiscordBot({ config: { ...env, DISCORD_APPLICATION_ID: undefined }, commands, services, logger });
  cleanups.push(() => bot.stop());
  cleanups.push(startDiscordDailyPosts(bot.client, daily, { lookup: words.adapter, siteUrl: SITE_URL, logger, now: () => clock.now }));
  return { discord, guild, words, daily, clock, store, learning, logger, bot };
}

/** A scheduler the test ticks, whose own poster and lookup must not be used: the bot's decorated poster posts. */
export function tickOnlyScheduler(daily: DailyPosts) {
  return daily.start({
    poster: { post: () => Promise.reject(new Error('not this one')), findEarlierPost: () => Promise.reject(new Error('not this one')) },
    lookup: { getEntry: () => Promise.reject(new Error('unused')) },
    render: () => ({}),
  });
}
