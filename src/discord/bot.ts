import { Events, type Client } from 'discord.js';
import type { Config } from '../config.ts';
import type { InteractionObserver } from '../interaction-outcome.ts';
import type { BotServices, SlashCommand } from '../interactions.ts';
import type { Logger } from '../logger.ts';
import type { TakeGlobalTurn } from '../cluster/discord-pacer.ts';
import { createDiscordClient } from './client.ts';
import { inviteUrl, userInstallUrl } from './invite.ts';
import { createInteractionRouter } from './router.ts';
import { describeShardPlan, type ShardPlan } from './shards.ts';

export interface StartDiscordBotOptions {
  config: Pick<Config, 'DISCORD_TOKEN' | 'DISCORD_API_URL' | 'DISCORD_APPLICATION_ID'> & Partial<Pick<Config, 'DISCORD_GLOBAL_RATE_LIMIT'>>;
  commands: readonly SlashCommand[];
  services: BotServices;
  logger: Logger;
  /** How long stop() lets interactions in progress finish before disconnecting. */
  drainTimeoutMs?: number;
  shards?: ShardPlan;
  /** Told when each interaction is done (see RouterOptions.onInteractionDone). */
  onInteractionDone?: InteractionObserver;
  /** Cluster mode: a turn under Discord's global limit, shared by every process, before each request that counts. */
  takeGlobalTurn?: TakeGlobalTurn;
}

export interface DiscordBot {
  client: Client<true>;
  /** The link that adds the bot to a server. */
  inviteUrl: string;
  /** Lets the interactions in progress finish (up to drainTimeoutMs), then disconnects. Safe to call twice. */
  stop(): Promise<void>;
}

const DEFAULT_DRAIN_TIMEOUT_MS = 5_000;

/**
 * Connects to Discord and answers interactions until stop(). Resolves once the gateway session is ready.
 * Reconnecting after a dropped connection is left to discord.js; it is only logged here.
 */
export async function startDiscordBot(options: StartDiscordBotOptions): Promise<DiscordBot> {
  const { config, logger } = options;
  const token = config.DISCORD_TOKEN;
  if (!token) throw new Error('DISCORD_TOKEN is not set; the Discord bot cannot log in without it.');
  const log = logger.child({ component: 'discord' });
  const client = createDiscordClient({
    apiUrl: config.DISCORD_API_URL,
    ...(options.shards ? { shards: options.shards } : {}),
    ...(config.DISCORD_GLOBAL_RATE_LIMIT ? { globalRequestsPerSecond: config.DISCORD_GLOBAL_RATE_LIMIT } : {}),
    ...(options.takeGlobalTurn ? { takeGlobalTurn: options.takeGlobalTurn } : {}),
  });
  const route = createInteractionRouter({
    commands: options.commands,
    services: options.services,
    logger: log,
    ...(options.onInteractionDone ? { onInteractionDone: options.onInteractionDone } : {}),
  });

  // Interactions that arrive while stopping are still answered: dropping one would show "This interaction failed".
  const inFlight = new Set<Promise<void>>();
  client.on(Events.InteractionCreate, (interaction) => {
    const handled = route(interaction).finally(() => inFlight.delete(handled));
    inFlight.add(handled);
  });

  client.on(Events.Error, (error) => log.error({ err: error }, 'discord client error'));
  client.on(Events.Warn, (message) => log.warn({ detail: message }, 'discord client warning'));
  // Only when it would be logged: discord.js's debug messages are frequent, and each would cost a log object.
  if (log.isLevelEnabled('trace')) client.on(Events.Debug, (message) => log.trace({ detail: message }, 'discord client debug'));
  client.on(Events.ShardDisconnect, (event, shardId) => log.warn({ shardId, code: event.code }, 'gateway disconnected'));
  client.on(Events.ShardReconnecting, (shardId) => log.info({ shardId }, 'gateway reconnecting'));
  client.on(Events.ShardResume, (shardId, replayed) => log.info({ shardId, replayed }, 'gateway session resumed'));
  client.on(Events.ShardError, (error, shardId) => log.error({ err: error, shardId }, 'gateway error'));
  client.on(Events.GuildCreate, (guild) => log.info({ guildId: guild.id, guilds: client.guilds.cache.size }, 'joined a server'));
  client.on(Events.GuildDelete, (guild) => log.info({ guildId: guild.id, guilds: client.guilds.cache.size }, 'left a server'));
  client.rest.on('rateLimited', (info) =>
    log.warn({ route: info.route, method: info.method, retryAfterMs: info.retryAfter, global: info.global }, 'Discord rate limit hit'),
  );

  const readyClient = new Promise<Client<true>>((resolve) => client.once(Events.ClientReady, resolve));
  let ready: Client<true>;
  try {
    log.info({ apiUrl: config.DISCORD_API_URL, shards: describeShardPlan(options.shards ?? { kind: 'single' }) }, 'connecting to Discord');
    await client.login(token);
    ready = await readyClient;
  } catch (error) {
    await client.destroy();
    throw error;
  }

  const applicationId = ready.application.id;
  if (config.DISCORD_APPLICATION_ID && config.DISCORD_APPLICATION_ID !== applicationId) {
    log.warn(
      { configured: config.DISCORD_APPLICATION_ID, actual: applicationId },
      'DISCORD_APPLICATION_ID does not match the application of this token; using the token\'s',
    );
  }
  const invite = inviteUrl(applicationId);
  log.info(
    { user: ready.user.tag, applicationId, guilds: ready.guilds.cache.size, shards: ready.ws.shards.size, inviteUrl: invite, userInstallUrl: userInstallUrl(applicationId) },
    `connected to Discord as ${ready.user.tag}; add the bot to a server with ${invite}`,
  );

  let stopped: Promise<void> | undefined;
  async function stop(): Promise<void> {
    if (inFlight.size > 0) {
      log.info({ inFlight: inFlight.size }, 'waiting for interactions in progress');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
      });
      await Promise.race([Promise.allSettled([...inFlight]), timeout]);
      clearTimeout(timer);
    }
    await client.destroy();
    log.info('disconnected from Discord');
  }

  return {
    client: ready,
    inviteUrl: invite,
    stop: () => (stopped ??= stop()),
  };
}
