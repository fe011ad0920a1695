/**
 * Kill-anywhere: a real bot process (`wotd-bot start`, on a SQLite or a PostgreSQL store) fans out to every subscribed channel of the
 * local Discord-compatible server while the harness SIGKILLs it again and again and starts it again. Afterwards
 * every channel must hold exactly one post of the day, the store's record of it must name that very message, and
 * the store must have reopened each time with every subscription in it.
 *
 * Kills come in three kinds, in turn:
 * - at-post: inside Discord's handling of a post, after the message exists and before the bot hears of it
 *   (between post and record);
 * - in-store-write: inside the store write that records a post. The server holds one post back for a moment while
 *   the harness takes the store's write lock from a connection of its own (SQLite: BEGIN IMMEDIATE; PostgreSQL: a
 *   table lock that lets reads through and holds writes); the bot's write of that post's `sent` record then waits
 *   inside the store, and the bot is killed there. A record still saying `sending` afterwards shows the write was
 *   cut off (counted in `storeWritesCut`);
 * - random: wherever the bot happens to be.
 * Every other restart waits out the server's nonce window first, so the nonce cannot be what saves it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import sqlite3 from 'sqlite3';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import type { Subscription } from '../../src/schedule/subscription.ts';
import { startWotdService } from '../../src/service/server.ts';
import { utcDateOf } from '../../src/wotd/dates.ts';
import { startDiscordServer } from '../support/discord/index.ts';
import { childEnv } from '../support/child-env.ts';

const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');
const WORDS = resolve(import.meta.dirname, '../../data/words.sqlite');
const KINDS = ['at-post', 'in-store-write', 'random'] as const;
/** How long the server holds back the post of an in-store-write kill: time enough to take the store's write lock. */
const HOLD_POST_MS = 400;
type KillKind = (typeof KINDS)[number];

export interface ChaosOptions {
  /** The store the bot runs on: a SQLite file (the default), or a schema of its own in the PostgreSQL database at this URL. */
  postgresUrl?: string;
  channels: number;
  kills: number;
  /** How long the local server deduplicates a nonce; half the restarts wait longer than this. */
  nonceWindowMs?: number;
  channelsPerGuild?: number;
  /** Progress lines; silent when absent. */
  log?: (line: string) => void;
}

export interface ChaosReport {
  channels: number;
  kills: number;
  killsByKind: Record<KillKind, number>;
  restartsAfterWindow: number;
  /** Kills after which the store held a `sending` record for a channel that had its post: the case the nonce cannot cover past its window. */
  leftPostedButUnrecorded: number;
  /** In-store-write kills whose cut-off write is seen afterwards: the post exists, its record still says `sending`. */
  storeWritesCut: number;
  missing: number;
  duplicates: number;
  /** Channels whose delivery record does not say `sent` with the id of the message in the channel. */
  wrongRecords: number;
  subscriptionsLost: number;
  integrity: string;
  seconds: number;
  /** Where the bot's logs are, kept when anything went wrong. */
  logDir: string | null;
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

async function until(done: () => boolean | Promise<boolean>, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(50);
  }
}

/** What the harness does to and reads from the bot's store, behind the bot's back. */
interface ChaosStore {
  /** STORE_URL for the bot. */
  url: string;
  /** The store's write lock, held from a connection of this process until released; reads go on. */
  holdWriteLock(): Promise<{ release(): Promise<void> }>;
  /** Every row of the deliveries namespace as stored: full key and text. */
  deliveryRows(): Promise<Array<{ key: string; value: string }>>;
  /** Resolves once nothing the killed bot `pid` sent the store can still take effect (its server sessions ended). */
  settled(pid: number): Promise<void>;
  /** The store's own consistency check: 'ok', or what it found. */
  integrity(): Promise<string>;
  close(): Promise<void>;
}

function sqliteChaosStore(dir: string): ChaosStore {
  const path = join(dir, 'store.sqlite');
  return {
    url: `sqlite://${path}`,
    holdWriteLock: () => holdSqliteWriteLock(path),
    deliveryRows: async () =>
      (await sqliteAll(path, "SELECT key, value FROM keyv WHERE key LIKE 'deliveries:%'")).map((row) => ({ key: String(row.key), value: String(row.value) })),
    integrity: async () => String((await sqliteAll(path, 'PRAGMA integrity_check'))[0]?.integrity_check ?? 'unknown'),
    // A SQLite write happens in the writing process: it died with it.
    settled: async () => undefined,
    close: async () => undefined,
  };
}

/** A schema of its own in the database at `baseUrl` (the bot's URL sets search_path to it), dropped on close. */
async function postgresChaosStore(baseUrl: string): Promise<ChaosStore> {
  const admin = new pg.Pool({ connectionString: baseUrl, max: 3 });
  admin.on('error', () => undefined);
  const schema = `chaos_${randomBytes(6).toString('hex')}`;
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(baseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.href,
    async holdWriteLock() {
      const client = await admin.connect();
      await client.query('BEGIN');
      // Conflicts with every INSERT, UPDATE and DELETE on the table, not with reads.
      await client.query(`LOCK TABLE ${schema}.keyv IN SHARE ROW EXCLUSIVE MODE`);
      return {
        async release() {
          await client.query('ROLLBACK');
          client.release();
        },
      };
    },
    deliveryRows: async () =>
      (await admin.query<{ key: string; value: string }>(`SELECT key, value FROM ${schema}.keyv WHERE key LIKE 'deliveries:%'`)).rows,
    async settled(pid) {
      // A statement the bot sent before it died runs on in its server session until that session ends.
      await until(async () => {
        const left = await admin.query('SELECT 1 FROM pg_stat_activity WHERE application_name = $1', [`wotd-bot pid ${pid}`]);
        return left.rowCount === 0;
      }, `the sessions of the killed bot (pid ${pid}) to end`, 30_000);
    },
    async integrity() {
      // amcheck: the primary key's index is a valid B-tree, and every row of the table is in it.
      try {
        await admin.query('CREATE EXTENSION IF NOT EXISTS amcheck');
        await admin.query(`SELECT bt_index_check('${schema}.keyv_pkey'::regclass, true)`);
        return 'ok';
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    },
    async close() {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`).catch(() => undefined);
      await admin.end();
    },
  };
}

function sqliteAll(path: string, sql: string): Promise<Array<Record<string, unknown>>> {
  return new Promise((done, fail) => {
    const db = new sqlite3.Database(path, sqlite3.OPEN_READONLY, (error) => {
      if (error) return fail(error);
      db.all(sql, (queryError, rows: Array<Record<string, unknown>>) => {
        db.close();
        if (queryError) fail(queryError);
        else done(rows);
      });
    });
  });
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const nonceWindowMs = options.nonceWindowMs ?? 2_000;
  const perGuild = options.channelsPerGuild ?? 10;
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'wotd-chaos-'));
  const store = options.postgresUrl ? await postgresChaosStore(options.postgresUrl) : sqliteChaosStore(dir);
  const storeUrl = store.url;
  const discord = await startDiscordServer({ nonceWindowMs });
  const service = await startWotdService({ dbPath: WORDS, variant: 'A', rateLimitPerMinute: 0 });
  let bot: ChildProcess | null = null;
  let keepLogs = false;
  try {
    const guildCount = Math.ceil(options.channels / perGuild);
    const guilds = discord.addGuilds(guildCount, (index) => ({
      name: `Chaos ${index}`,
      channels: Array.from({ length: Math.min(perGuild, options.channels - index * perGuild) }, (_, i) => ({ name: `words-${i}` })),
    }));
    const channelIds = guilds.flatMap((guild) => guild.channels.filter((channel) => channel.type === 0).map((channel) => channel.id));
    const day = utcDateOf(new Date());
    await subscribeAll(storeUrl, guilds.flatMap((guild) => guild.channels.filter((c) => c.type === 0).map((c) => ({ guildId: guild.id, channelId: c.id, name: c.name }))));
    log(`${channelIds.length} channels subscribed`);

    const env = childEnv({
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      WOTD_API_URL: service.url,
      WOTD_API_VARIANT: 'A',
      STORE_URL: storeUrl,
      LOG_LEVEL: 'info',
    });
    const logFile = createWriteStream(join(dir, 'bot.log'), { flags: 'a' });
    let generation = 0;
    const startBot = async (): Promise<void> => {
      generation += 1;
      logFile.write(`--- start ${generation}\n`);
      const child = spawn(process.execPath, [BIN, 'start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      bot = child;
      child.stdout?.pipe(logFile, { end: false });
      child.stderr?.pipe(logFile, { end: false });
      await new Promise<void>((done, fail) => {
        let seen = '';
        const timer = setTimeout(() => fail(new Error(`start ${generation}: not connected within 30 s`)), 30_000);
        child.stderr?.on('data', (chunk: Buffer) => {
          seen = (seen + chunk.toString('utf8')).slice(-4_000);
          if (seen.includes('connected to Discord')) {
            clearTimeout(timer);
            done();
          }
        });
        child.once('exit', (code) => {
          clearTimeout(timer);
          fail(new Error(`start ${generation}: the bot exited with ${code} before connecting (the store did not reopen?)`));
        });
      });
    };
    const killNow = (): Promise<void> => {
      const child = bot;
      if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      const exited = new Promise<void>((done) => child.once('exit', () => done()));
      child.kill('SIGKILL');
      return exited;
    };

    const postsOfDay = () => discord.allMessages().filter((m) => m.embeds.length > 0 && footerDay(m.embeds[0]) === day);
    const posted = () => new Set(postsOfDay().map((m) => m.channelId)).size;

    await startBot();
    const killsByKind: Record<KillKind, number> = { 'at-post': 0, 'in-store-write': 0, random: 0 };
    let restartsAfterWindow = 0;
    let leftPostedButUnrecorded = 0;
    let storeWritesCut = 0;
    // Kill points spread over the fan-out, each at a random place in its own stretch of it.
    const stretch = (0.9 * channelIds.length) / options.kills;
    for (let kill = 0; kill < options.kills; kill += 1) {
      const at = Math.floor(0.05 * channelIds.length + stretch * (kill + Math.random()));
      await until(() => posted() >= Math.min(at, channelIds.length - 1), `kill point ${kill + 1}`, 5 * 60_000);
      const kind = KINDS[kill % KINDS.length] ?? 'random';
      const victim = bot as ChildProcess | null;
      if (kind === 'random') {
        await sleep(Math.random() * 200);
        await killNow();
      } else if (kind === 'in-store-write') {
        const held = discord.injectFault({ route: 'POST /channels/:id/messages', delayMs: HOLD_POST_MS, times: 1 });
        await until(() => held.hits > 0, `a post to hold (kill ${kill + 1})`, 60_000);
        let locked = false;
        const createdWhileLocked = new Promise<string>((done) => {
          discord.onMessageCreated = (message) => {
            if (!locked) return;
            discord.onMessageCreated = null;
            done(message.channelId);
          };
        });
        const lock = await store.holdWriteLock();
        locked = true;
        let giveUp: NodeJS.Timeout | undefined;
        const channelId = await Promise.race([createdWhileLocked, new Promise<null>((done) => (giveUp = setTimeout(() => done(null), 5_000)))]);
        clearTimeout(giveUp);
        discord.onMessageCreated = null;
        if (channelId !== null) {
          const posts = `/channels/${channelId}/messages`;
          await until(() => discord.requests.some((request) => request.method === 'POST' && request.path === posts && request.status === 200), 'the held post answered', 5_000);
        }
        // Long enough for the bot to read the answer and start writing its record, which now waits on the lock.
        await sleep(150);
        await killNow();
        // Held until the store has let go of everything the dead bot sent: on PostgreSQL its session ends when the
        // server finds the bot gone, and the write waiting for this lock ends with it.
        if (victim?.pid !== undefined) await store.settled(victim.pid);
        await lock.release();
        if (channelId !== null && (await deliveryState(store, channelId, day)) === 'sending') storeWritesCut += 1;
      } else {
        await new Promise<void>((done) => {
          discord.onMessageCreated = () => {
            discord.onMessageCreated = null;
            victim?.kill('SIGKILL');
            done();
          };
        });
        await (victim && victim.exitCode === null && victim.signalCode === null ? new Promise((done) => victim.once('exit', done)) : Promise.resolve());
      }
      killsByKind[kind] += 1;
      leftPostedButUnrecorded += await postedButUnrecorded(store, day, new Set(postsOfDay().map((m) => m.channelId)));
      const afterWindow = kill % 2 === 1;
      if (afterWindow) {
        restartsAfterWindow += 1;
        await sleep(nonceWindowMs + 200);
      }
      log(`kill ${kill + 1}/${options.kills} (${kind}) at ${posted()} channels posted; restart${afterWindow ? ' after the nonce window' : ''}`);
      await startBot();
    }

    await until(() => posted() >= channelIds.length, 'every channel posted', 10 * 60_000);
    // A late second post has time to show before anything is counted.
    await sleep(1_500);
    const stopping = bot as ChildProcess | null;
    if (stopping && stopping.exitCode === null) {
      const exited = new Promise((done) => stopping.once('exit', done));
      stopping.kill('SIGTERM');
      await exited;
    }

    const byChannel = new Map<string, string[]>();
    for (const message of postsOfDay()) byChannel.set(message.channelId, [...(byChannel.get(message.channelId) ?? []), message.id]);
    const missing = channelIds.filter((id) => !byChannel.has(id)).length;
    const duplicates = [...byChannel.values()].filter((ids) => ids.length > 1).length;

    const reopened = await SubscriptionStore.open(storeUrl);
    let wrongRecords = 0;
    let subscriptionsLost = 0;
    try {
      const records = await reopened.getDeliveries(channelIds, day);
      channelIds.forEach((id, i) => {
        const record = records[i];
        const ids = byChannel.get(id) ?? [];
        if (record?.state !== 'sent' || ids.length !== 1 || record.messageId !== ids[0]) wrongRecords += 1;
      });
      const kept = new Set((await reopened.listAll()).map((subscription) => subscription.channelId));
      subscriptionsLost = channelIds.filter((id) => !kept.has(id)).length;
    } finally {
      await reopened.close();
    }
    const integrity = await store.integrity();
    const report: ChaosReport = {
      channels: channelIds.length,
      kills: options.kills,
      killsByKind,
      restartsAfterWindow,
      leftPostedButUnrecorded,
      storeWritesCut,
      missing,
      duplicates,
      wrongRecords,
      subscriptionsLost,
      integrity,
      seconds: (performance.now() - started) / 1000,
      logDir: null,
    };
    keepLogs = missing + duplicates + wrongRecords + subscriptionsLost > 0 || integrity !== 'ok';
    if (keepLogs) report.logDir = dir;
    logFile.end();
    return report;
  } catch (error) {
    keepLogs = true;
    const tail = (() => {
      try {
        return readFileSync(join(dir, 'bot.log'), 'utf8').split('\n').slice(-15).join('\n');
      } catch {
        return '';
      }
    })();
    throw new Error(`${error instanceof Error ? error.message : String(error)} (bot log kept in ${dir}):\n${tail}`, { cause: error });
  } finally {
    discord.onMessageCreated = null;
    const child = bot as ChildProcess | null;
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await discord.close();
    await service.close();
    if (!keepLogs) await store.close();
    if (!keepLogs) rmSync(dir, { recursive: true, force: true });
  }
}

/** The service day a daily post carries: its footer starts with the entry's date. */
function footerDay(embed: unknown): string | null {
  const footer = (embed as { footer?: { text?: unknown } } | undefined)?.footer?.text;
  return typeof footer === 'string' ? footer.slice(0, 10) : null;
}

async function subscribeAll(storeUrl: string, channels: Array<{ guildId: string; channelId: string; name: string }>): Promise<void> {
  const store = await SubscriptionStore.open(storeUrl);
  try {
    for (const { guildId, channelId, name } of channels) {
      const subscription: Subscription = {
        guildId,
        channelId,
        channelName: name,
        // Due since midnight UTC: every channel is owed today's post from the first tick on.
        time: '00:00',
        timeZone: 'UTC',
        roleId: null,
        createdBy: 'chaos',
        createdAt: '2026-01-01T00:00:00.000Z',
        enabledAt: '2026-01-01T00:00:00.000Z',
        status: { state: 'active' },
      };
      await store.upsert(guildId, channelId, 1_000_000, () => subscription);
    }
  } finally {
    await store.close();
  }
}

/** The SQLite store's write lock (BEGIN IMMEDIATE), held from a connection of this process until released. */
function holdSqliteWriteLock(path: string): Promise<{ release(): Promise<void> }> {
  return new Promise((done, fail) => {
    const db = new sqlite3.Database(path, (openError) => {
      if (openError) return fail(openError);
      db.configure('busyTimeout', 10_000);
      db.run('BEGIN IMMEDIATE', (error) => {
        if (error) {
          db.close();
          fail(error);
          return;
        }
        done({ release: () => new Promise<void>((released) => db.run('ROLLBACK', () => db.close(() => released()))) });
      });
    });
  });
}

/** The state of one channel's delivery record for `day`, or null when there is none. */
async function deliveryState(store: ChaosStore, channelId: string, day: string): Promise<string | null> {
  const value = (await store.deliveryRows()).find((row) => row.key === `deliveries:${channelId}:${day}`)?.value;
  if (typeof value !== 'string') return null;
  const state = /"state":"(\w+)"/.exec(value)?.[1];
  return state ?? null;
}

/** Channels whose post exists while the store still says `sending`: what a kill between post and record leaves. */
async function postedButUnrecorded(store: ChaosStore, day: string, postedChannels: Set<string>): Promise<number> {
  const rows = await store.deliveryRows();
  let count = 0;
  for (const row of rows) {
    const key = String(row.key);
    if (!key.endsWith(`:${day}`)) continue;
    const text = String(row.value);
    if (!text.includes('"sending"')) continue;
    const channelId = key.slice('deliveries:'.length, -(day.length + 1));
    if (postedChannels.has(channelId)) count += 1;
  }
  return count;
}
