import { PermissionFlagsBits } from 'discord.js';
import { Writable } from 'node:stream';
import { expect } from 'vitest';
import { commands } from '../../commands/index.ts';
import { startDiscordBot } from '../../src/discord/bot.ts';
import { createChannelPoster } from '../../src/discord/channel-poster.ts';
import { startDiscordDailyPosts } from '../../src/discord/discord-daily-posts.ts';
import { runDeployCommands } from '../../src/discord/deploy-commands.ts';
import { dailyPostRendering } from '../../src/replies/daily-embeds.ts';
import { openDailyPosts, type OpenDailyPostsOptions } from '../../src/schedule/daily-posts.ts';
import type { ChannelPoster } from '../../src/schedule/poster.ts';
import { DailyScheduler, type SchedulerObserver } from '../../src/schedule/scheduler.ts';
import type { WotdLookup } from '../../src/wotd/lookup.ts';
import { startDiscordServer, type ChannelSpec, type DiscordServer, type GuildSpec, type RoleSpec } from '../support/discord/index.ts';
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

/**
 * A daily scheduler for the started bot, ticked by the test (no minute timer), posting through `poster` (the channel
 * poster unless given). Its first `crashes` attempts, and the next after each `crashNext()`, "crash" right after
 * Discord took the post, as a process killed there would: the retry must find that post rather than make another.
 */
export function testScheduler(
  started: Awaited<ReturnType<typeof startBotOnServer>>,
  options: { crashes?: number; poster?: ChannelPoster; observer?: SchedulerObserver } = {},
) {
  let crashes = options.crashes ?? 0;
  const scheduler = new DailyScheduler({
    store: started.daily.store,
    lookup: started.lookup,
    poster: options.poster ?? createChannelPoster(started.bot.client.rest, { logger: started.logger }),
    ...dailyPostRendering('https://wotd.site'),
    logger: started.logger,
    concurrency: 2,
    ...(options.observer ? { observer: options.observer } : {}),
    hooks: {
      afterSend: () => {
        if (crashes > 0) {
          crashes -= 1;
          throw new Error('crashed after sending');
        }
      },
    },
  });
  return Object.assign(scheduler, { crashNext: () => (crashes = Math.max(crashes, 1)) });
}

/** A local Discord server with one server (guild) on it, and the bot started there by startBotOnServer. */
export async function startBotWithGuild(
  cleanups: Cleanups,
  spec: GuildSpec,
  options: BotOnServerOptions & { server?: Parameters<typeof startDiscordServer>[0] } = {},
) {
  const { server, ...botOptions } = options;
  const discord = await startDiscordServer(server);
  cleanups.push(() => discord.close());
  const guild = discord.addGuild(spec);
  const started = await startBotOnServer(discord, cleanups, botOptions);
  return { discord, guild, started };
}

export const OWNER = '500000000000000001';
export const MOD = '500000000000000002';
export const HELPER = '500000000000000003';

/**
 * A server "Words" owned by OWNER, where MOD's role "mods" holds Manage Channels and HELPER holds `helperRoles`
 * (none unless given): the cast of the permission checks.
 */
export function modsGuild(spec: { channels: ChannelSpec[]; roles?: RoleSpec[]; helperRoles?: string[] }): GuildSpec {
  return {
    name: 'Words',
    ownerId: OWNER,
    roles: [{ name: 'mods', permissions: PermissionFlagsBits.ManageChannels }, ...(spec.roles ?? [])],
    members: [
      { id: OWNER, username: 'owner' },
      { id: MOD, username: 'mod', roles: ['mods'] },
      { id: HELPER, username: 'helper', ...(spec.helperRoles ? { roles: spec.helperRoles } : {}) },
    ],
    channels: spec.channels,
  };
}

/** The admin of startPostingWorld's server (Manage Channels). */
export const ADMIN = '500000000000000001';

export interface PostingWorldOptions {
  /** The bot's own role "posting". */
  botPermissions: bigint;
  /** Channels besides "general", where the admin runs commands. */
  channels: ChannelSpec[];
  /** Roles besides "admins" and "posting". */
  roles?: RoleSpec[];
  server?: Parameters<typeof startDiscordServer>[0];
  /** Given to startBotOnServer's openDailyPosts besides concurrency 2. */
  daily?: BotOnServerOptions['daily'];
}

/**
 * A server "Words" with an admin and the bot in a role "posting", and the bot started on it with the test posting
 * (no daily posts of its own). `command` runs a command as the admin in "general".
 */
export async function startPostingWorld(cleanups: Cleanups, options: PostingWorldOptions) {
  const { discord, guild, started } = await startBotWithGuild(
    cleanups,
    {
      name: 'Words',
      roles: [
        { name: 'admins', permissions: PermissionFlagsBits.ManageChannels },
        { name: 'posting', permissions: options.botPermissions },
        ...(options.roles ?? []),
      ],
      members: [{ id: ADMIN, username: 'admin', roles: ['admins'] }],
      botMember: { roles: ['posting'] },
      channels: [{ name: 'general' }, ...options.channels],
    },
    { server: options.server, daily: { concurrency: 2, ...options.daily }, dailyPosts: false },
  );
  const command = (name: string, values: Record<string, string | boolean> = {}, locale?: string) =>
    discord.invokeCommand({ name, options: values, channelId: guild.channelId('general'), user: ADMIN, ...(locale ? { locale } : {}) }).waitForResponse();
  return { discord, guild, started, command };
}
