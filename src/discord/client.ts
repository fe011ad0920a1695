import { Client, DefaultRestOptions, GatewayDispatchEvents, GatewayIntentBits, Options, type RESTOptions } from 'discord.js';
import type { TakeGlobalTurn } from '../cluster/redis-discord-pacer.ts';
import type { TurnPriority } from '../schedule/poster.ts';
import { MAX_RATE_LIMIT_WAIT_S, withSaneRateLimits } from './rate-limit-headers.ts';
import { shardClientOptions, type ShardPlan } from './shards.ts';

/** Users and members kept from interactions: enough for the ones in progress; older ones are dropped first. */
const USERS_CACHED = 1_000;
const MEMBERS_CACHED_PER_SERVER = 20;

/**
 * The REST base discord.js expects: it appends the API version itself, so a base given with one
 * (".../api/v10", as proxies often document it) would be requested as ".../api/v10/v10".
 */
export function restApiBase(apiUrl: string): string {
  return apiUrl.replace(/\/+$/, '').replace(/\/v\d+$/, '');
}

export interface DiscordClientOptions {
  /** Base of Discord's REST API (DISCORD_API_URL); the gateway URL is then read from its GET /gateway/bot. */
  apiUrl: string;
  /** Which gateway shards this process runs (default: one unsharded connection). */
  shards?: ShardPlan;
  /** Discord's global limit for this bot (DISCORD_GLOBAL_RATE_LIMIT), which discord.js's REST queue keeps to (default 50). */
  globalRequestsPerSecond?: number;
  /** The longest one rate limit from Discord may hold a route or the bot, in seconds (default 60; tests lower it). */
  maxRateLimitWaitS?: number;
  /**
   * Takes a turn under Discord's global limit before each request that counts toward it, and hands it back once the
   * answer is in (cluster mode: one pace for every process; see src/cluster/redis-discord-pacer.ts). Taken just before the
   * request is sent, so the time it spends in discord.js's queues is not spent holding a turn, and every retry
   * after a 429 takes a new one.
   */
  takeGlobalTurn?: TakeGlobalTurn;
}

const HANDLER_SWEEP_INTERVAL_MS = 10_000;

/**
 * The bot's discord.js client. It needs only the Guilds intent: slash commands, buttons and autocomplete arrive as
 * interactions, and the bot never reads message content or member lists. Nothing the bot sends may ping anyone
 * unless a message explicitly allows a role.
 */
export function createDiscordClient(options: DiscordClientOptions): Client {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds],
    ...shardClientOptions(options.shards ?? { kind: 'single' }),
    rest: {
      api: restApiBase(options.apiUrl),
      globalRequestsPerSecond: options.globalRequestsPerSecond ?? 50,
      // discord.js keeps a queue per channel it posted to, swept when idle only once an hour by default: after a daily
      // fan-out to 100,000 channels that is 100,000 queues held for an hour (bench:fanout's peak RSS). Idle ones go
      // within 10 s instead (at 470 posts/s, 30 s held up to 28,000 of them, a few hundred bytes each); a channel's
      // next post simply starts a new one, and one still waiting out a rate limit is not idle.
      handlerSweepInterval: HANDLER_SWEEP_INTERVAL_MS,
      // Discord's rate-limit numbers become discord.js's timers: checked and bounded first (rate-limit-headers.ts).
      makeRequest: withSaneRateLimits(
        options.takeGlobalTurn ? gatedMakeRequest(options.takeGlobalTurn) : undefined,
        options.maxRateLimitWaitS ?? MAX_RATE_LIMIT_WAIT_S,
      ),
    },
    allowedMentions: { parse: [] },
    // The bot reads no messages, so there is nothing worth caching beyond what interactions carry. Every interaction
    // would otherwise add its user and member for good: those caches keep only a few (and always the bot itself).
    makeCache: Options.cacheWithLimits({
      ...Options.DefaultMakeCacheSettings,
      MessageManager: 0,
      PresenceManager: 0,
      ReactionManager: 0,
      UserManager: { maxSize: USERS_CACHED, keepOverLimit: (user) => user.id === user.client.user.id },
      GuildMemberManager: { maxSize: MEMBERS_CACHED_PER_SERVER, keepOverLimit: (member) => member.id === member.client.user.id },
      ...CHANNELS_NOT_CACHED,
      ...UNUSED_SERVER_PARTS,
    }),
  });
  client.ws.on(GatewayDispatchEvents.GuildCreate, skipChannelLists);
  return client;
}

/**
 * What else a server brings that the bot never reads: its emojis, stickers, scheduled events, stage instances, voice
 * states, threads, bans, invites, automod rules and commands (discord.js keeps them all by default). Roles stay: a
 * channel's permissions for the bot are worked out from them (discord-member-permissions.ts).
 */
const UNUSED_SERVER_PARTS = {
  ApplicationCommandManager: 0,
  AutoModerationRuleManager: 0,
  GuildBanManager: 0,
  GuildEmojiManager: 0,
  GuildInviteManager: 0,
  GuildScheduledEventManager: 0,
  GuildStickerManager: 0,
  StageInstanceManager: 0,
  ThreadManager: 0,
  ThreadMemberManager: 0,
  VoiceStateManager: 0,
} as const;

/**
 * A GUILD_CREATE lists every channel and active thread of the server, and discord.js builds an object for each
 * before dropping it (nothing is cached, see CHANNELS_NOT_CACHED): at start-up, for a bot in servers with 100,000
 * channels, 100,000 objects of garbage. discord.js tells this manager's listeners of each dispatch before it handles
 * it, with the same payload, so emptying the lists here skips that work. An empty list, not a missing one: without
 * one discord.js takes the server for unavailable.
 */
function skipChannelLists(data: unknown): void {
  if (typeof data !== 'object' || data === null) return;
  const server = data as { channels?: unknown; threads?: unknown };
  if (Array.isArray(server.channels)) server.channels = [];
  if (Array.isArray(server.threads)) server.threads = [];
}

/**
 * Interaction endpoints (the interaction callback, and the interaction webhook's original response and follow-ups)
 * "are not bound to the bot's Global Rate Limit" (https://discord.com/developers/docs/topics/rate-limits#global-rate-limit);
 * every other request is. The bot calls no webhooks other than its interactions'.
 */
export function countsTowardGlobalLimit(url: string): boolean {
  const path = new URL(url).pathname;
  return !/\/(interactions|webhooks)\//.test(path);
}

/**
 * The priority of a request's turn under the global limit: `after` for pinning and unpinning a message, which only
 * the daily pins do (daily-pin.ts, which asks the one process's pace for `after` turns the same way), `first` for
 * the rest. Cluster mode paces here, below discord.js, where the request's route is all there is to go by.
 */
export function globalTurnPriority(url: string, method: string | undefined): TurnPriority {
  const pin = /\/channels\/[^/]+\/(messages\/)?pins\/[^/]+$/.test(new URL(url).pathname);
  return pin && (method === 'PUT' || method === 'DELETE') ? 'after' : 'first';
}

/**
 * discord.js's request function, with a turn under the global limit for every request that counts: taken before it
 * is sent (at its globalTurnPriority), handed back when its answer (or its failure) is in.
 */
export function gatedMakeRequest(takeGlobalTurn: TakeGlobalTurn): RESTOptions['makeRequest'] {
  const send = DefaultRestOptions.makeRequest;
  return async (url, init) => {
    if (!countsTowardGlobalLimit(url)) return send(url, init);
    const turn = await takeGlobalTurn(globalTurnPriority(url, init.method));
    try {
      return await send(url, init);
    } finally {
      turn.done();
    }
  };
}

/**
 * No channel objects are kept. The bot posts by channel id, reads a channel (GET /channels/:id) only when an admin
 * subscribes it, and learns of deleted channels from the raw CHANNEL_DELETE dispatch (subscription-events.ts); a
 * cached channel is about 1 KB of heap, so a bot in servers with 100,000 channels would hold 100 MB it never reads.
 * discord.js calls overriding these caches unsupported because its own getters (`interaction.channel`,
 * `guild.channels.cache`, the ChannelDelete event) then come back empty; nothing here uses them. Its warning saying so
 * at every start is left out (process-warnings.ts).
 * Permission overwrites stay cached: a fetched channel needs them for permissionsFor.
 */
const CHANNELS_NOT_CACHED = { ChannelManager: 0, GuildChannelManager: 0 } as const;
