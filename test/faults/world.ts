import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PermissionFlagsBits } from 'discord.js';
import sqlite3 from 'sqlite3';
import { commands } from '../../commands/index.ts';
import { startDiscordBot, type DiscordBot } from '../../src/discord/bot.ts';
import { runDeployCommands } from '../../src/discord/deploy-commands.ts';
import type { BotServices } from '../../src/replies/interactions.ts';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import type { IsoDate } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import type { WotdLookup } from '../../src/wotd/lookup.ts';
import { quiet } from '../discord/bot-world.ts';
import { capturingLogger, sampleEntries, SITE_URL, TODAY } from '../discord/world.ts';
import { startDiscordServer, type DiscordServer, type DiscordServerOptions, type GuildInfo, type InteractionHandle, type MessageView } from '../support/discord/index.ts';
import { realSpeedClockFrom } from '../support/wotd-world.ts';

/**
 * What every fault file runs against: the local Discord-compatible server, the REAL discord.js client started the
 * way the bot starts it (startDiscordBot, commands deployed by deploy-commands), and our own Word-of-the-Day
 * service on the sample word list. The commands' lookup (and subscriptions) live in `services`, which a file may
 * point at a fresh adapter per scenario, so no scenario sees another's cache.
 */

export { SITE_URL, TODAY };
export const ENTRIES: Entry[] = sampleEntries();
/** Discord's deadline for the first answer to an interaction. */
export const DEADLINE_MS = 3_000;

export const UNREACHABLE = 'The Word-of-the-Day service cannot be reached right now. Please try again later.';
export const NONSENSE = 'The Word-of-the-Day service sent an answer I could not make sense of. Please try again later.';
export const BUSY = /^The Word-of-the-Day service is busy right now\. Please try again <t:\d+:R>\.$/;
/** A member of the guild who holds Manage Channels (through the `admins` role), for the subscription commands. */
export const ADMIN_ID = '500000000000000001';

export function entryOn(date: IsoDate): Entry {
  const entry = ENTRIES.find((candidate) => candidate.date === date);
  if (!entry) throw new Error(`no sample entry on ${date}`);
  return entry;
}

export interface FaultWorld {
  discord: DiscordServer;
  guild: GuildInfo;
  bot: DiscordBot;
  service: RunningService;
  /** Handed to the commands; change `lookup` or `subscriptions` between scenarios. */
  services: BotServices;
  logs: ReturnType<typeof capturingLogger>;
  /** The adapters' clock: TODAY at noon UTC, running at real speed. */
  now: () => Date;
  dir: string;
  close(): Promise<void>;
}

export async function startFaultWorld(discordOptions: DiscordServerOptions = {}): Promise<FaultWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'wotd-faults-'));
  const dbPath = join(dir, 'words.sqlite');
  await writeWordDb(dbPath, ENTRIES);
  const now = realSpeedClockFrom(TODAY);
  const service = await startWotdService({ dbPath, variant: 'A', port: 0, rateLimitPerMinute: 0, now });
  const discord = await startDiscordServer(discordOptions);
  const guild = discord.addGuild({
    name: 'Words',
    roles: [{ name: 'admins', permissions: PermissionFlagsBits.ManageChannels }],
    members: [{ id: ADMIN_ID, username: 'admin', roles: ['admins'] }],
    channels: [{ name: 'general' }],
  });
  const logs = capturingLogger([discord.token]);
  const env = { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl };
  const deployed = await runDeployCommands([], { env, stdout: quiet(), stderr: quiet(), commands });
  if (deployed !== 0) throw new Error(`deploy-commands exited with ${deployed}`);
  const services: BotServices = { lookup: unset, siteUrl: SITE_URL, logger: logs.logger };
  const bot = await startDiscordBot({ config: { ...env, DISCORD_APPLICATION_ID: undefined }, commands, services, logger: logs.logger });
  return {
    discord,
    guild,
    bot,
    service,
    services,
    logs,
    now,
    dir,
    async close() {
      await bot.stop();
      await discord.close();
      await service.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A lookup for before a scenario has set its own: every call says so. */
const unset: WotdLookup = {
  today: () => TODAY,
  getEntry: () => Promise.reject(new Error('no lookup set for this scenario')),
  getPrevious: () => Promise.reject(new Error('no lookup set for this scenario')),
  findWord: () => Promise.reject(new Error('no lookup set for this scenario')),
  suggestWords: () => Promise.resolve([]),
};

export function invoke(world: FaultWorld, name: string, options: Record<string, string | number> = {}, channelId?: string): InteractionHandle {
  return world.discord.invokeCommand({ name, options, channelId: channelId ?? world.guild.channelId('general') });
}

/** What the member ends up seeing: the reply (or the edit of a deferral), or the private follow-up that replaced it. */
export function finalAnswer(world: FaultWorld, handle: InteractionHandle, timeoutMs = 15_000): Promise<MessageView> {
  return world.discord.waitFor(() => {
    const followUp = handle.followUps[0];
    if (followUp) return followUp;
    const original = handle.original;
    return original && !original.loading && !original.deleted ? original : undefined;
  }, `the final answer to interaction ${handle.id}`, timeoutMs);
}

/**
 * Checks Discord's side of "answered in time", from the callbacks the server recorded: the first accepted one
 * (reply or deferral) arrived within 3 s of the interaction's dispatch, and none was refused. Returns its latency.
 */
export function acknowledgedInTime(handle: InteractionHandle): number {
  const accepted = handle.callback;
  if (!accepted) throw new Error(`interaction ${handle.id} was never acknowledged`);
  const refused = handle.callbacks.filter((callback) => callback.status >= 300);
  if (refused.length > 0) throw new Error(`a callback was refused (${refused.map((c) => `${c.status} ${c.errorCode ?? ''}`).join(', ')})`);
  if (accepted.latencyMs > DEADLINE_MS) throw new Error(`acknowledged after ${accepted.latencyMs} ms, past Discord's ${DEADLINE_MS} ms`);
  return accepted.latencyMs;
}

/** The text a member reads in a message: its content, or its first embed's title. */
export function shown(message: MessageView): string {
  const title = message.embeds[0]?.title;
  return typeof title === 'string' && title !== '' ? title : message.content;
}

/** Every row of a Keyv SQLite file (table `keyv`), read through a connection of its own. */
export function readKeyvRows(file: string): Promise<Array<{ key: string; value: string }>> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (openError) => {
      if (openError) return reject(openError);
      db.all('SELECT key, value FROM keyv', (error, rows: Array<{ key: string; value: string }>) => {
        db.close();
        if (error) reject(error);
        else resolve(rows);
      });
    });
  });
}
