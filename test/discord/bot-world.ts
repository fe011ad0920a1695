import { Writable } from 'node:stream';
import { commands as botCommands } from '../../commands/index.ts';
import { startDiscordBot, type DiscordBot } from '../../src/discord/bot.ts';
import type { InteractionObserver } from '../../src/replies/interaction-outcome.ts';
import { runDeployCommands } from '../../src/discord/deploy-commands.ts';
import type { SlashCommand } from '../../src/replies/interactions.ts';
import type { WotdAdapterOptions } from '../../src/wotd/adapter.ts';
import { startDiscordServer, type DiscordServer, type GuildInfo, type InteractionHandle, type RecordedRequest } from '../support/discord/index.ts';
import type { WotdWorld } from '../support/wotd-world.ts';
import { capturingLogger, SITE_URL, startWotdWorld } from './world.ts';

/**
 * One bot as a member meets it: the real discord.js Client (via startDiscordBot) against the local
 * Discord-compatible server, with the bot's commands registered there by deploy-commands, and the real adapter in
 * front of our own Word-of-the-Day service.
 */
export interface BotWorld {
  discord: DiscordServer;
  wotd: WotdWorld;
  bot: DiscordBot;
  guild: GuildInfo;
  channelId: string;
  logs: ReturnType<typeof capturingLogger>;
  close(): Promise<void>;
}

export interface BotWorldOptions {
  adapter?: Partial<WotdAdapterOptions>;
  /** Extra commands the bot handles, for the router's failure paths. */
  extraCommands?: SlashCommand[];
  /** Commands registered with Discord that the bot does not handle (a stale registration). */
  registeredOnly?: SlashCommand[];
  onInteractionDone?: InteractionObserver;
}

export const quiet = (): Writable => new Writable({ write: (_chunk, _encoding, callback) => callback() });

export async function startBotWorld(options: BotWorldOptions = {}): Promise<BotWorld> {
  const discord = await startDiscordServer();
  const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'general' }, { name: 'news', type: 5 }] });
  const wotd = await startWotdWorld(options.adapter);
  const logs = capturingLogger([discord.token]);
  const handled = [...botCommands, ...(options.extraCommands ?? [])];
  const env = { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl };
  const deployed = await runDeployCommands([], {
    env,
    stdout: quiet(),
    stderr: quiet(),
    commands: [...handled, ...(options.registeredOnly ?? [])],
  });
  if (deployed !== 0) throw new Error(`deploy-commands exited with ${deployed}`);
  const bot = await startDiscordBot({
    config: { ...env, DISCORD_APPLICATION_ID: undefined },
    commands: handled,
    services: { lookup: wotd.adapter, siteUrl: SITE_URL, logger: logs.logger },
    logger: logs.logger,
    ...(options.onInteractionDone ? { onInteractionDone: options.onInteractionDone } : {}),
  });
  return {
    discord,
    wotd,
    bot,
    guild,
    channelId: guild.channelId('general'),
    logs,
    async close() {
      await bot.stop();
      await wotd.close();
      await discord.close();
    },
  };
}

export interface SentCall {
  /** e.g. "POST callback", "PATCH @original", "DELETE @original", "POST followup". */
  call: string;
  body: unknown;
}

function classify(request: RecordedRequest, handle: InteractionHandle): SentCall | undefined {
  const path = decodeURIComponent(request.path);
  if (!path.includes(handle.token)) return undefined;
  if (path.endsWith('/callback')) return { call: `${request.method} callback`, body: request.body };
  if (path.endsWith('/messages/@original')) return { call: `${request.method} @original`, body: request.body };
  if (path.endsWith(handle.token)) return { call: `${request.method} followup`, body: request.body };
  return { call: `${request.method} ${path.replace(handle.token, ':token')}`, body: request.body };
}

/** What the bot sent for one interaction, in order, with bodies exactly as they arrived. */
export function sentFor(discord: DiscordServer, handle: InteractionHandle): SentCall[] {
  return discord.requests.map((request) => classify(request, handle)).filter((call): call is SentCall => call !== undefined);
}

/** Waits until the bot has sent `count` requests for the interaction, and returns them. */
export function waitForSent(discord: DiscordServer, handle: InteractionHandle, count: number): Promise<SentCall[]> {
  return discord.waitFor(() => {
    const calls = sentFor(discord, handle);
    return calls.length >= count ? calls : undefined;
  }, `${count} requests for interaction ${handle.id}`);
}

/** allowed_mentions on everything the bot sends: nothing from the service can ping anyone. */
export const NO_PINGS = { parse: [], roles: [] };
/** What discord.js adds to every message body it sends. */
export const BASE = { tts: false, enforce_nonce: false };
