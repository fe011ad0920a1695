import { Events, type Client } from 'discord.js';
import { withoutPassword, type Config } from '../config/settings.ts';
import type { InteractionObserver } from '../replies/interaction-outcome.ts';
import type { BotServices, SlashCommand } from '../replies/interactions.ts';
import type { Logger } from '../config/logger.ts';
import type { TakeGlobalTurn } from '../cluster/redis-discord-pacer.ts';
import { createDiscordClient } from './client.ts';
import { inviteUrl, userInstallUrl } from './invite.ts';
import { createInteractionRouter } from './router.ts';
import { describeShardPlan, type ShardPlan } from './shards.ts';
import { DEFAULT_LOGIN_BACKOFF_BASE_MS, LoginAbortedError, loginBackoffMs, waitUnlessAborted } from './login-backoff.ts';
import { FATAL_CLOSE_CODES, isRetryableLoginError, loginFailure } from './login-retry.ts';

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
  /** The first login retry's delay ceiling (see login-retry.ts); default 1 s. */
  loginBackoffBaseMs?: number;
  /** Aborting it gives up logging in: during a back-off at once, with a LoginAbortedError. */
  abort?: AbortSignal;
  /** The longest one rate limit from Discord may hold a route or the bot, in seconds (default 60). */
  maxRateLimitWaitS?: number;
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

export const DEFAULT_DRAIN_TIMEOUT_MS = 5_000;

/**
 * Logs in, trying again after a network error or a 5xx with exponential back-off and full jitter (each attempt
 * logged with the next delay); a refusal retrying cannot change is thrown at once, as what to do about it.
 */
async function loginWithRetries(
  newClient: () => Client,
  token: string,
  options: StartDiscordBotOptions,
  log: Logger,
): Promise<Client<true>> {
  const baseMs = options.loginBackoffBaseMs ?? DEFAULT_LOGIN_BACKOFF_BASE_MS;
  log.info({ apiUrl: withoutPassword(options.config.DISCORD_API_URL), shards: describeShardPlan(options.shards ?? { kind: 'single' }) }, 'connecting to Discord');
  for (let attempt = 1; ; attempt += 1) {
    const client = newClient();
    try {
      return await loginOnce(client, token);
    } catch (error) {
      await client.destroy();
      if (options.abort?.aborted) throw new LoginAbortedError();
      if (!isRetryableLoginError(error)) throw loginFailure(error);
      const delayMs = loginBackoffMs(attempt - 1, baseMs);
      log.warn({ err: error, attempt, nextDelayMs: delayMs }, `could not reach Discord (attempt ${attempt}); trying again in ${delayMs} ms`);
      if (!(await waitUnlessAborted(delayMs, options.abort))) throw new LoginAbortedError();
    }
  }
}

/**
 * Ready, or a gateway close code after which Discord will never let this login in (discord.js stops that shard
 * and would leave the start waiting for ready forever).
 */
async function loginOnce(client: Client, token: string): Promise<Client<true>> {
  const ready = new Promise<Client<true>>((resolve, reject) => {
    client.once(Events.ClientReady, resolve);
    client.on(Events.ShardDisconnect, (event) => {
      const fatal = FATAL_CLOSE_CODES.get(event.code);
      if (fatal) reject(new Error(fatal));
    });
  });
  ready.catch(() => undefined); // Awaited below, once login resolves; a close before that must not go unhandled.
  await client.login(token);
  return ready;
}

/**
 * Connects to Discord and answers interactions until stop(). Resolves once the gateway session is ready.
 * Reconnecting after a dropped connection is left to discord.js; it is only logged here.
 */
export async function startDiscordBot(options: StartDiscordBotOptions): Promise<DiscordBot> {
  const { config, logger } = options;
  const token = config.DISCORD_TOKEN;
  if (!token) throw new Error('DISCORD_TOKEN is not set; the Discord bot cannot log in without it.');
  const log = logger.child({ component: 'discord' });
  const route = createInteractionRouter({
    commands: options.commands,
    services: options.services,
    logger: log,
    ...(options.onInteractionDone ? { onInteractionDone: options.onInteractionDone } : {}),
  });
  // Interactions that arrive while stopping are still answered: dropping one would show "This interaction failed".
  // A count rather than a set of promises: no closure or promise chain per interaction (bench:commands).
  let inFlight = 0;
  let drained: (() => void) | undefined;
  const finished = (): void => {
    inFlight -= 1;
    if (inFlight === 0) drained?.();
  };
  const failed = (error: unknown): never => {
    finished();
    throw error;
  };

  /** A client with every handler attached: a new one for each login attempt, since a destroyed one is not reused. */
  function newClient(): Client {
    const client = createDiscordClient({
      apiUrl: config.DISCORD_API_URL,
      ...(options.shards ? { shards: options.shards } : {}),
      ...(config.DISCORD_GLOBAL_RATE_LIMIT ? { globalRequestsPerSecond: config.DISCORD_GLOBAL_RATE_LIMIT } : {}),
      ...(options.maxRateLimitWaitS !== undefined ? { maxRateLimitWaitS: options.maxRateLimitWaitS } : {}),
      ...(options.takeGlobalTurn ? { takeGlobalTurn: options.takeGlobalTurn } : {}),
    });
    client.on(Events.InteractionCreate, (interaction) => {
      inFlight += 1;
      void route(interaction).then(finished, failed);
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
    return client;
  }

  const ready = await loginWithRetries(newClient, token, options, log);

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
    if (inFlight > 0) {
      log.info({ inFlight }, 'waiting for interactions in progress');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS);
      });
      await Promise.race([new Promise<void>((resolve) => (drained = resolve)), timeout]);
      clearTimeout(timer);
    }
    await ready.destroy();
    log.info('disconnected from Discord');
  }

  return {
    client: ready,
    inviteUrl: invite,
    stop: () => (stopped ??= stop()),
  };
}
