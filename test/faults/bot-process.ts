import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { addDays, utcDateOf } from '../../src/wotd/dates.ts';
import { testEntries } from '../commands/world.ts';
import { makeSubscription } from '../schedule/helpers.ts';
import type { Run, startBot } from '../console/console-process.ts';

/**
 * Real bot processes for the fault matrix (the locks and time families): waiting for one to start or to stop, the
 * daily posts it printed, and a PostgreSQL server of the test's own that can be stopped and started again.
 */

/** Waits for the console's first screen (on stderr, where the console writes its notices; stdout is its answers). */
export async function started(run: Run, exited: Promise<Run>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!run.stderr.includes('wotd-bot: console mode')) {
    const done = await Promise.race([exited, new Promise<null>((wait) => setTimeout(() => wait(null), 50))]);
    if (done) throw new Error(`exited (${String(done.code)}) before starting:\n${done.stderr}`);
    if (Date.now() > deadline) throw new Error(`no first screen within 30 s:\n${run.stderr}`);
  }
}

/** The bot's exit within `ms`, or null while it still runs (then it is killed). */
export async function exitWithin(bot: ReturnType<typeof startBot>, ms: number): Promise<Run | null> {
  const done = await Promise.race([bot.exited, new Promise<null>((wait) => setTimeout(() => wait(null), ms))]);
  if (!done) {
    bot.child.kill('SIGKILL');
    await bot.exited;
  }
  return done;
}

/** The test word list, with words for the real days about now too: the bots' daily posts are for today. */
export function entriesWithToday(): Entry[] {
  const today = utcDateOf(new Date());
  const near = [-1, 0, 1].map((days) => addDays(today, days));
  return [...testEntries(), ...near.map((date) => ({ date, word: `word${date.replaceAll('-', '')}`, pos: 'noun', ipa: '/wɜːd/', definition: `The word for ${date}.` }))];
}

/** The lines a stopping bot wrote to say why, on stderr. */
export function stopLines(run: Run | null): string[] {
  return (run?.stderr ?? '').split('\n').filter((line) => line.startsWith('wotd-bot start:'));
}

/** The console channels a bot printed a daily post for, one per post (the console headline names the channel). */
export function postsIn(stdout: string): string[] {
  return [...stdout.matchAll(/^Daily word in #(\S+):$/gm)].map((match) => match[1] ?? '');
}

/** Waits until the bot printed a daily post for `channel`. */
export async function postedTo(bot: ReturnType<typeof startBot>, channel: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!postsIn(bot.run.stdout).includes(channel)) {
    if (bot.child.exitCode !== null || Date.now() > deadline) throw new Error(`no post for #${channel}:\n${bot.run.stdout}\n${bot.run.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Stores console subscriptions (guild `console`, as the console's member), owed today from the bot's first pass. */
export async function subscribeConsole(url: string, channels: string[]): Promise<void> {
  const store = await SubscriptionStore.open(url);
  try {
    for (const channel of channels) {
      const subscription = makeSubscription({ guildId: 'console', channelId: channel, channelName: channel, time: '00:00', createdAt: '1969-01-01T00:00:00.000Z', enabledAt: '1969-01-01T00:00:00.000Z' });
      await store.upsert('console', channel, 100, () => subscription);
    }
  } finally {
    await store.close();
  }
}

export async function freePort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const run = promisify(execFile);
const BIN = '/usr/lib/postgresql/15/bin';

export interface OwnPostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A PostgreSQL of the test's own (initdb in a temp dir, trust on loopback, no fsync) on a free loopback port.
 * PostgreSQL refuses to run as root: as root, initdb and the server run as the `postgres` user, owner of the dir.
 */
export async function ownPostgres(): Promise<OwnPostgres> {
  const dir = await mkdtemp(join(tmpdir(), 'wotd-own-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) await chown(dir, Number((await run('id', ['-u', 'postgres'])).stdout), Number((await run('id', ['-g', 'postgres'])).stdout));
  const as = (command: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', join(BIN, command), ...args]) : run(join(BIN, command), args));
  const data = join(dir, 'data');
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-N']);
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const pgCtl = (...args: string[]) => as('pg_ctl', ['-D', data, '-w', '-t', '30', ...args]);
  let running = false;
  const self: OwnPostgres = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      await pgCtl('-l', join(dir, 'log'), '-o', options, 'start');
      running = true;
    },
    async stop() {
      running = false;
      await pgCtl('-m', 'fast', 'stop');
    },
    async close() {
      if (running) await self.stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await self.start();
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return self;
}
