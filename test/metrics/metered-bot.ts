import { commands } from '../../commands/index.ts';
import { startDiscordBot, type DiscordBot } from '../../src/discord/bot.ts';
import { runDeployCommands } from '../../src/discord/deploy-commands.ts';
import { createChannelPoster } from '../../src/discord/channel-poster.ts';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { discordMetricsView } from '../../src/discord/metrics-view.ts';
import type { Logger } from '../../src/config/logger.ts';
import type { BotMetrics } from '../../src/metrics/registry.ts';
import { openDailyPosts, type DailyPosts } from '../../src/schedule/daily-posts.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import type { WotdAdapterOptions } from '../../src/wotd/adapter.ts';
import { quiet } from '../discord/bot-world.ts';
import { SITE_URL, startWotdWorld } from '../discord/world.ts';
import { tempStore } from '../schedule/helpers.ts';
import type { DiscordServer } from '../support/discord/index.ts';
import type { WotdWorld } from '../support/wotd-world.ts';

/**
 * The bot's services as a metered bot has them: the adapter in front of our service and the daily posts on a fresh
 * SQLite store, both watched by `metrics`. What they open is closed by the functions pushed onto `cleanups`.
 */
export async function openMeteredServices(options: {
  metrics: BotMetrics;
  logger: Logger;
  cleanups: Array<() => Promise<void> | void>;
  concurrency: number;
  adapter?: Partial<WotdAdapterOptions>;
}): Promise<{ wotd: WotdWorld; daily: DailyPosts }> {
  const { metrics, logger, cleanups } = options;
  const wotd = await startWotdWorld({ onRequest: metrics.upstreamRequest, ...options.adapter });
  cleanups.push(() => wotd.close());
  const temp = tempStore();
  cleanups.push(temp.cleanup);
  const daily = await openDailyPosts({ store: temp.url, limit: 5, concurrency: options.concurrency, logger, now: wotd.now });
  cleanups.push(() => daily.close());
  metrics.watchAdapter(wotd.adapter);
  metrics.watchStore(daily.store);
  return { wotd, daily };
}

/** The bot's commands deployed to the local Discord server, and the real bot connected there, reporting to `metrics`. */
export async function startMeteredBot(options: {
  discord: DiscordServer;
  wotd: WotdWorld;
  daily: DailyPosts;
  metrics: BotMetrics;
  logger: Logger;
}): Promise<DiscordBot> {
  const { discord, wotd, daily, metrics, logger } = options;
  const env = { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl };
  const deployed = await runDeployCommands([], { env, stdout: quiet(), stderr: quiet(), commands });
  if (deployed !== 0) throw new Error(`deploy-commands exited with ${deployed}`);
  const bot = await startDiscordBot({
    config: { ...env, DISCORD_APPLICATION_ID: undefined },
    commands,
    services: { lookup: wotd.adapter, siteUrl: SITE_URL, logger, subscriptions: daily.subscriptions },
    logger,
    onInteractionDone: metrics.interactionDone,
  });
  metrics.watchDiscord(discordMetricsView(bot.client));
  return bot;
}

/** The daily scheduler of a metered bot without its minute timer, so the test decides when it ticks. */
export function meteredScheduler(options: {
  wotd: WotdWorld;
  daily: DailyPosts;
  bot: DiscordBot;
  metrics: BotMetrics;
  logger: Logger;
  concurrency: number;
}): DailyScheduler {
  return new DailyScheduler({
    store: options.daily.store,
    lookup: options.wotd.adapter,
    poster: createChannelPoster(options.bot.client.rest),
    render: (entry) => entryEmbed(entry, { siteUrl: SITE_URL }),
    logger: options.logger,
    concurrency: options.concurrency,
    observer: options.metrics.scheduler,
  });
}
