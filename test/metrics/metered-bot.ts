import { commands } from '../../commands/index.ts';
import { startDiscordBot, type DiscordBot } from '../../src/discord/bot.ts';
import { runDeployCommands } from '../../src/discord/deploy-commands.ts';
import { discordMetricsView } from '../../src/discord/metrics-view.ts';
import type { Logger } from '../../src/logger.ts';
import type { BotMetrics } from '../../src/metrics/registry.ts';
import type { DailyPosts } from '../../src/schedule/daily-posts.ts';
import { quiet } from '../discord/bot-world.ts';
import { SITE_URL } from '../discord/world.ts';
import type { DiscordServer } from '../support/discord/index.ts';
import type { WotdWorld } from '../support/wotd-world.ts';

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
