import { execFile, execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createChannelPoster } from '../../src/discord/channel-poster.ts';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { SOMETHING_WENT_WRONG } from '../../src/discord/router.ts';
import { openDailyPosts, type DailyPosts } from '../../src/schedule/daily-posts.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { openStore } from '../../src/store/open-store.ts';
import { verifySqliteStores } from '../../src/store/sqlite-file.ts';
import { createWotdAdapter, type WotdAdapter } from '../../src/wotd/adapter.ts';
import { captureLogger } from '../schedule/helpers.ts';
import { createSchema, dropSchema, postgresAdmin, postgresTestUrl, postgresUrlFor } from '../support/postgres.ts';
import { faultCell, type CellFigures } from './tally.ts';
import { acknowledgedInTime, ADMIN_ID, entryOn, finalAnswer, SITE_URL, startFaultWorld, TODAY, type FaultWorld } from './world.ts';

/**
 * Store faults × (lookup, subscribe, daily post, subscriptions kept), on a real SQLite store file shared by the
 * cache and the subscriptions as in production, with the real bot answering through the local Discord server.
 *
 * file deleted while running: `rm store.sqlite` under the running bot; the bot writes it back (store/sqlite-file.ts).
 * disk full: every write that would grow a file fails with EFBIG, as on a full disk. This process's own
 *   RLIMIT_FSIZE is lowered with prlimit(1) (no root needed for one's own process), after the WAL is checkpointed
 *   to nothing, so every commit has to grow it. Writes within a file's size still work, as on a full disk.
 * corrupted file: garbage over the whole file while the bot runs, then a restart: the bot refuses to start, says
 *   why, leaves the file as it is; the operator restores the backup.
 * locked by another process: a separate process holds BEGIN EXCLUSIVE for over 3 s (less than the store's 10 s
 *   busy timeout), as another tool writing to the file would; and the same on a PostgreSQL store, whose table
 *   another session holds locked (its lock_timeout is 10 s too).
 *
 * Every interaction must get its first callback within 3 s and a truthful answer (never "Subscribed" for a
 * subscription that was not stored); every subscription stored before the fault must be there after a restart;
 * every due post must go out exactly once. Discord forgets nonces after 300 ms here, so a post the bot lost
 * track of would show up as a duplicate.
 */

const DAY_START = () => world.now();
let world: FaultWorld;

beforeAll(async () => {
  world = await startFaultWorld({ nonceWindowMs: 300 });
});

afterAll(async () => {
  setFileSizeLimit('unlimited');
  await world?.close();
});

/** The bot's store-backed parts on one file: the cached adapter and the daily posts (subscriptions, deliveries). */
interface Running {
  adapter: WotdAdapter;
  daily: DailyPosts;
  close(): Promise<void>;
}

async function startRunning(where: string): Promise<Running> {
  // A file path, or a store URL (PostgreSQL).
  const url = /^[a-z]+:\/\//.test(where) ? where : `sqlite://${where}`;
  const adapter = await createWotdAdapter({
    baseUrl: world.service.url,
    store: await openStore(url, 'wotd-cache'),
    ownsStore: true,
    variant: 'A',
    now: world.now,
    onStoreError: () => undefined,
  });
  const daily = await openDailyPosts({ store: url, limit: 25, concurrency: 4, logger: captureLogger().logger, now: world.now });
  world.services.lookup = adapter;
  world.services.subscriptions = daily.subscriptions;
  return {
    adapter,
    daily,
    async close() {
      await daily.close();
      await adapter.close();
    },
  };
}

function schedulerOn(running: Running): DailyScheduler {
  return new DailyScheduler({
    store: running.daily.store,
    lookup: running.adapter,
    poster: createChannelPoster(world.bot.client.rest),
    render: (entry) => entryEmbed(entry, { siteUrl: SITE_URL }),
    logger: captureLogger().logger,
    concurrency: 4,
  });
}

function newChannel(name: string): string {
  return world.discord.addChannel(world.guild.id, { name }).id;
}

async function seed(running: Running, names: string[]): Promise<string[]> {
  const ids = names.map(newChannel);
  for (const [index, channelId] of ids.entries()) {
    const result = await running.daily.subscriptions.subscribe({
      guildId: world.guild.id,
      channelId,
      channelName: names[index] ?? channelId,
      time: '09:00',
      timeZone: 'UTC',
      roleId: null,
      userId: ADMIN_ID,
    });
    expect(result.kind).toBe('created');
  }
  return ids;
}

/** /wotd for today: acknowledged in time and answered with the entry, from the service if the store cannot help. */
async function lookupCell(): Promise<string> {
  const handle = world.discord.invokeCommand({ name: 'wotd', channelId: world.guild.channelId('general') });
  const answer = await finalAnswer(world, handle);
  const ack = acknowledgedInTime(handle);
  expect(answer.embeds[0]?.title).toBe(entryOn(TODAY).word);
  return `answered from the service (ack ${ack} ms)`;
}

/** /wotd-subscribe by an admin; returns whether the member was told it worked (and checks that was true). */
async function subscribeCell(running: Running, channelId: string, expected: 'stored' | 'refused' | 'either'): Promise<string> {
  const handle = world.discord.invokeCommand({
    name: 'wotd-subscribe',
    options: { channel: channelId },
    channelId: world.guild.channelId('general'),
    user: ADMIN_ID,
  });
  const answer = await finalAnswer(world, handle, 20_000);
  const ack = acknowledgedInTime(handle);
  expect(answer.ephemeral).toBe(true);
  const stored = await running.daily.store.get(channelId).catch(() => null);
  if (answer.content.startsWith('Subscribed')) {
    expect(expected, 'told "Subscribed"').not.toBe('refused');
    expect(stored?.channelId, 'the subscription the member was told about').toBe(channelId);
    return `"Subscribed", and stored (ack ${ack} ms)`;
  }
  expect(expected, `told ${JSON.stringify(answer.content.slice(0, 40))}`).not.toBe('stored');
  expect(answer.content).toBe(SOMETHING_WENT_WRONG);
  return `private error, nothing claimed (ack ${ack} ms)`;
}

/** After a restart on the store: every subscription stored before the fault is there. */
async function keptAfterRestart(where: string, before: string[], figures: CellFigures): Promise<{ running: Running; note: string }> {
  const running = await startRunning(where);
  const listed = new Set((await running.daily.store.listAll()).map((subscription) => subscription.channelId));
  figures.lost = before.filter((channelId) => !listed.has(channelId)).length;
  expect(before.filter((channelId) => !listed.has(channelId)), 'subscriptions gone after the restart').toEqual([]);
  return { running, note: `${before.length} of ${before.length} there after a restart` };
}

/** Each channel has exactly one post of today's entry. */
function expectOnePostEach(channelIds: string[], figures: CellFigures): void {
  const counts = channelIds.map((channelId) => world.discord.messagesIn(channelId).length);
  figures.duplicated = counts.reduce((sum, count) => sum + Math.max(0, count - 1), 0);
  expect(counts).toEqual(channelIds.map(() => 1));
  for (const channelId of channelIds) expect(world.discord.messagesIn(channelId)[0]?.embeds[0]?.title).toBe(entryOn(TODAY).word);
}

// ---------------------------------------------------------------------------------------------------------------
// The faults themselves: real ones, on the real file
// ---------------------------------------------------------------------------------------------------------------

/** Lowers (or lifts) RLIMIT_FSIZE of this very process: past it, a write that grows a file fails with EFBIG. */
function setFileSizeLimit(bytes: number | 'unlimited'): void {
  try {
    execFileSync('prlimit', ['--pid', String(process.pid), `--fsize=${bytes}:unlimited`]);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`could not set this process's file size limit with prlimit (util-linux), which the full-disk faults need: ${reason}`);
  }
}

function withDatabase<T>(file: string, work: (db: sqlite3.Database, done: (error: Error | null, value?: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, (openError) => {
      if (openError) return reject(openError);
      work(db, (error, value) => {
        db.close();
        if (error) reject(error);
        else resolve(value as T);
      });
    });
  });
}

/** Moves everything in the WAL into the file and empties the WAL, so the next commit must grow it. */
function checkpointToNothing(file: string): Promise<void> {
  return withDatabase(file, (db, done) => db.run('PRAGMA wal_checkpoint(TRUNCATE)', (error) => done(error)));
}

/** A consistent copy, as an operator's backup would be. */
function backUp(file: string, to: string): Promise<void> {
  return withDatabase(file, (db, done) => db.run('VACUUM INTO ?', to, (error) => done(error)));
}

const LOCK_HOLDER = `
const sqlite3 = require('sqlite3');
const db = new sqlite3.Database(process.argv[1]);
db.run('BEGIN EXCLUSIVE', (error) => {
  if (error) { console.error(error.message); process.exit(1); }
  console.log('locked');
  process.stdin.once('data', () => db.run('COMMIT', () => db.close(() => process.exit(0))));
});
`;

/** Another process that holds the store's write lock (BEGIN EXCLUSIVE) until released. */
async function holdLock(file: string): Promise<{ release(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', LOCK_HOLDER, file], { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', (data: Buffer) => (data.toString().includes('locked') ? resolve() : reject(new Error(data.toString()))));
    child.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
  return {
    async release() {
      child.stdin.end('release\n');
      await exited;
    },
  };
}

function sha256(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** `wotd-bot start` as an operator runs it, on this store. */
function startBotProcess(file: string): Promise<{ code: number; stderr: string }> {
  const env = {
    ...process.env,
    DISCORD_TOKEN: world.discord.token,
    DISCORD_API_URL: world.discord.apiUrl,
    STORE_URL: `sqlite://${file}`,
    WOTD_API_URL: world.service.url,
    REDIS_URL: '',
    DISCORD_SHARD_COUNT: '',
    DISCORD_SHARD_IDS: '',
    LOG_LEVEL: 'fatal',
  };
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/wotd-bot.js', 'start'], { env, timeout: 30_000 }, (error, _stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr });
    });
  });
}

// ---------------------------------------------------------------------------------------------------------------

const LOOKUP = 'lookup (/wotd)';
const SUBSCRIBE = 'subscribe (/wotd-subscribe)';
const POST = 'daily post';
const KEPT = 'subscriptions kept (restart)';

describe('file deleted while running', () => {
  const label = 'file deleted while running';
  let file: string;
  let running: Running;
  let before: string[];
  let during: string;

  beforeAll(async () => {
    file = join(await mkdtemp(join(world.dir, 'deleted-')), 'store.sqlite');
    running = await startRunning(file);
    before = await seed(running, ['deleted-a', 'deleted-b']);
    during = newChannel('deleted-c');
  });
  afterAll(() => running?.close());

  faultCell('store', label, LOOKUP, async () => {
    rmSync(file);
    return lookupCell();
  });

  faultCell('store', label, SUBSCRIBE, () => subscribeCell(running, during, 'stored'));

  faultCell('store', label, POST, async (figures) => {
    const report = await schedulerOn(running).tick(DAY_START());
    expect(report).toMatchObject({ sent: 3 });
    expectOnePostEach([...before, during], figures);
    // The bot notices within 10 s; the test asks now instead of waiting.
    expect(await verifySqliteStores()).toContain(file);
    expect(existsSync(file), 'the file is back').toBe(true);
    return 'posted once each; file written back';
  });

  faultCell('store', label, KEPT, async (figures) => {
    await running.close();
    const restarted = await keptAfterRestart(file, [...before, during], figures);
    running = restarted.running;
    // The delivery records came back too: nothing is posted a second time.
    expect(await schedulerOn(running).tick(new Date(DAY_START().getTime() + 60_000))).toMatchObject({ sent: 0 });
    expectOnePostEach([...before, during], figures);
    return `${restarted.note}, posts not repeated`;
  });
});

describe('disk full', () => {
  const label = 'disk full (RLIMIT_FSIZE)';
  let file: string;
  let running: Running;
  let before: string[];
  let during: string;

  beforeAll(async () => {
    file = join(await mkdtemp(join(world.dir, 'full-')), 'store.sqlite');
    running = await startRunning(file);
    before = await seed(running, ['full-a', 'full-b']);
    during = newChannel('full-c');
    await checkpointToNothing(file);
    setFileSizeLimit(1);
  });
  afterAll(async () => {
    setFileSizeLimit('unlimited');
    await running?.close();
  });

  faultCell('store', label, LOOKUP, () => lookupCell());

  faultCell('store', label, SUBSCRIBE, () => subscribeCell(running, during, 'refused'));

  faultCell('store', label, POST, async (figures) => {
    const scheduler = schedulerOn(running);
    try {
      // Without a record of the attempt nothing may be posted: a post could not be told from a lost one.
      expect(await scheduler.tick(DAY_START())).toMatchObject({ sent: 0 });
      expect(before.map((channelId) => world.discord.messagesIn(channelId).length)).toEqual([0, 0]);
    } finally {
      setFileSizeLimit('unlimited');
    }
    expect(await scheduler.tick(new Date(DAY_START().getTime() + 2 * 60_000))).toMatchObject({ sent: 2 });
    expectOnePostEach(before, figures);
    return 'none while full; once each after';
  });

  faultCell('store', label, KEPT, async (figures) => {
    await running.close();
    const restarted = await keptAfterRestart(file, before, figures);
    running = restarted.running;
    expect(await running.daily.store.get(during), 'the refused subscription').toBeNull();
    return `${restarted.note}; the refused one is not half there`;
  });
});

/**
 * Another process holds the store's write lock for over 3 s (less than the store's 10 s wait): on SQLite a process
 * in BEGIN EXCLUSIVE, as another tool writing to the file would; on PostgreSQL a session holding an EXCLUSIVE lock
 * on the table (reads go on, writes wait), as a migration or an administrator's long transaction would.
 */
const LOCKED_STORES: Array<{ label: string; open(): Promise<{ where: string; hold(): Promise<{ release(): Promise<void> }>; drop(): Promise<void> }> }> = [
  {
    label: 'locked by another process (3 s)',
    async open() {
      const file = join(await mkdtemp(join(world.dir, 'locked-')), 'store.sqlite');
      return { where: file, hold: () => holdLock(file), drop: async () => undefined };
    },
  },
  ...(postgresTestUrl === null
    ? []
    : [
        {
          label: 'PostgreSQL table locked by another session (3 s)',
          async open() {
            const schema = await createSchema();
            return { where: postgresUrlFor(schema), hold: () => holdPostgresLock(schema), drop: () => dropSchema(schema) };
          },
        },
      ]),
];

/** Another session that holds an EXCLUSIVE lock on the store's table until released: reads go on, writes wait. */
async function holdPostgresLock(schema: string): Promise<{ release(): Promise<void> }> {
  const client = await postgresAdmin().connect();
  await client.query('BEGIN');
  await client.query(`LOCK TABLE ${schema}.keyv IN EXCLUSIVE MODE`);
  return {
    async release() {
      await client.query('COMMIT');
      client.release();
    },
  };
}

for (const locked of LOCKED_STORES) {
  describe(locked.label, () => {
    const label = locked.label;
    let store: Awaited<ReturnType<typeof locked.open>>;
    let running: Running;
    let before: string[];
    let during: string;
    let lock: { release(): Promise<void> } | null = null;

    const releaseIn = (ms: number) =>
      new Promise<void>((resolve) => {
        setTimeout(() => {
          const held = lock;
          lock = null;
          void held?.release().then(resolve);
        }, ms);
      });

    beforeAll(async () => {
      store = await locked.open();
      running = await startRunning(store.where);
      before = await seed(running, ['locked-a', 'locked-b']);
      during = newChannel('locked-c');
    });
    afterAll(async () => {
      await lock?.release();
      await running?.close();
      await store?.drop();
    });

    faultCell('store', label, LOOKUP, async () => {
      lock = await store.hold();
      return lookupCell();
    });

    faultCell('store', label, SUBSCRIBE, async () => {
      // Still locked, past Discord's 3 s; released while the subscription waits for it (within the 10 s busy timeout).
      const released = releaseIn(3_200);
      const note = await subscribeCell(running, during, 'stored');
      await released;
      return note;
    });

    faultCell('store', label, POST, async (figures) => {
      lock = await store.hold();
      const released = releaseIn(1_000);
      expect(await schedulerOn(running).tick(DAY_START())).toMatchObject({ sent: 3 });
      await released;
      expectOnePostEach([...before, during], figures);
      return 'waited for the lock, posted once each';
    });

    faultCell('store', label, KEPT, async (figures) => {
      await running.close();
      const restarted = await keptAfterRestart(store.where, [...before, during], figures);
      running = restarted.running;
      return restarted.note;
    });
  });
}

describe('corrupted file', () => {
  const label = 'corrupted file (garbage, restart)';
  let file: string;
  let backup: string;
  let running: Running | null;
  let before: string[];

  beforeAll(async () => {
    const dir = await mkdtemp(join(world.dir, 'corrupt-'));
    file = join(dir, 'store.sqlite');
    backup = join(dir, 'backup.sqlite');
    running = await startRunning(file);
    before = await seed(running, ['corrupt-a', 'corrupt-b']);
    await backUp(file, backup);
  });
  afterAll(() => running?.close());

  faultCell('store', label, LOOKUP, async () => {
    writeFileSync(file, randomBytes(statSync(file).size));
    return lookupCell();
  });

  faultCell('store', label, SUBSCRIBE, async () => {
    if (!running) throw new Error('not running');
    // Whatever SQLite can still make of the file, the member is told the truth.
    return subscribeCell(running, newChannel('corrupt-c'), 'either');
  });

  faultCell('store', label, KEPT, async (figures) => {
    await running?.close();
    running = null;
    writeFileSync(file, randomBytes(statSync(file).size));
    for (const leftover of [`${file}-wal`, `${file}-shm`]) rmSync(leftover, { force: true });
    const damaged = sha256(file);
    const started = await startBotProcess(file);
    expect(started.code).toBe(1);
    expect(started.stderr).toContain('is damaged (SQLITE_NOTADB: file is not a database); it was left untouched');
    expect(sha256(file), 'the damaged file after the refused start').toBe(damaged);
    // The operator restores the backup.
    copyFileSync(backup, file);
    const restarted = await keptAfterRestart(file, before, figures);
    running = restarted.running;
    return `start refused, file untouched; ${restarted.note} from backup`;
  });

  faultCell('store', label, POST, async (figures) => {
    if (!running) throw new Error('not running');
    expect(await schedulerOn(running).tick(DAY_START())).toMatchObject({ sent: 2 });
    expectOnePostEach(before, figures);
    return 'posted once each after the restore';
  });
});
