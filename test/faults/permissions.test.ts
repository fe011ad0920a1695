import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect } from 'vitest';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { startBot, type Run } from '../console/console-process.ts';
import { entriesWithToday, exitWithin, postedTo, started, subscribeConsole } from './bot-process.ts';
import { faultRow } from './tally.ts';

/**
 * Permissions on the paths the bot writes and reads (issue 31: the SQLite lock file's folder made read-only, the
 * blocking-path family's unreadable files). The tests run as root, for whom no permission bites, so the bot runs as
 * `nobody` in a folder given to it (or without root's overriding capabilities: lessRights). At start: refused in one
 * line naming the path and what is wrong, nothing stored touched. While running: the system checks permissions when
 * a file is opened only, so the store the bot has open goes on taking writes (a member's change is made and kept);
 * /healthz fails naming the path, since the next start would be refused, and wotd_bot_store_errors_total counts the
 * failed probes; once the permissions are back, /healthz passes again.
 */

/**
 * How the bot runs with rights that permissions bind: as this user when it is not root; as root, as `nobody` where
 * nobody can run this checkout (runuser), else as root without the capabilities that override permissions (setpriv).
 */
function lessRights(): { under?: string[]; user?: string } {
  if (process.getuid?.() !== 0) return {};
  const runuser = ['runuser', '-u', 'nobody', '--'];
  try {
    execFileSync(runuser[0] ?? '', [...runuser.slice(1), process.execPath, resolve(import.meta.dirname, '../../bin/wotd-bot.js'), '--version'], { stdio: 'ignore' });
    return { under: runuser, user: 'nobody' };
  } catch {
    return { under: ['setpriv', '--bounding-set', '-dac_override,-dac_read_search', '--'] };
  }
}
const { user, ...options } = lessRights();
let words = '';
let service: RunningService | undefined;
const dirs: string[] = [];

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'wotd-permissions-words-'));
  dirs.push(dir);
  words = join(dir, 'words.sqlite');
  await writeWordDb(words, entriesWithToday());
  service = await startWotdService({ dbPath: words, variant: 'A', port: 0, rateLimitPerMinute: 0 });
});
afterAll(async () => {
  await service?.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
/** Every permission a test took away, given back after it whatever happened (the cells of a row run side by side). */
const restores: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const restore of restores.splice(0)) await restore().catch(() => undefined);
});

type World = Awaited<ReturnType<typeof world>>;

/** A folder of the bot's user with a store of one subscription (#kept, owed today) in `store/`. */
async function world(): Promise<{ dir: string; storeDir: string; store: string; env: Record<string, string>; restores: Array<() => Promise<void>> }> {
  const dir = await mkdtemp(join(tmpdir(), 'wotd-permissions-'));
  dirs.push(dir);
  const storeDir = join(dir, 'store');
  await mkdir(storeDir);
  const store = join(storeDir, 'store.sqlite');
  await subscribeConsole(`sqlite://${store}`, ['kept']);
  await copyFile(words, join(dir, 'words.sqlite'));
  if (user) execFileSync('chown', ['-R', `${user}:`, dir]);
  await chmod(dir, 0o755);
  return { dir, storeDir, store, restores: [], env: { STORE_URL: `sqlite://${store}`, WOTD_API_URL: service?.url ?? '', WOTD_API_VARIANT: 'A', WOTD_MIRROR: 'off' } };
}

/** chmod now; back to `back` when the world's faults are undone (and after the test whatever happens). */
async function withMode(w: World, path: string, mode: number, back: number): Promise<() => Promise<void>> {
  await chmod(path, mode);
  const restore = () => chmod(path, back);
  restores.push(restore);
  w.restores.push(restore);
  return restore;
}

const digest = async (path: string) => createHash('sha256').update(await readFile(path)).digest('hex');

async function channelsIn(store: string): Promise<string[]> {
  const opened = await SubscriptionStore.open(`sqlite://${store}`);
  try {
    return (await opened.listGuild('console')).map((subscription) => subscription.channelName).sort();
  } finally {
    await opened.close();
  }
}

/** One refused start: exactly one line on stderr matching `line`, exit 1, the store file as it was. */
async function refusedAtStart(w: World, env: Record<string, string>, line: RegExp): Promise<string> {
  const before = await digest(w.store);
  const run = await runAs(w.dir, { ...w.env, ...env });
  expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1);
  expect(run.stderr.trim()).toMatch(line);
  expect(run.code).toBe(1);
  for (const restore of w.restores.splice(0)) await restore();
  expect(await digest(w.store), 'the store file was changed').toBe(before);
  expect(await channelsIn(w.store)).toEqual(['kept']);
  return `refused in one line naming the path, exit ${String(run.code)}; the store untouched`;
}

async function runAs(dir: string, env: Record<string, string>): Promise<Run> {
  const bot = startBot(dir, env, 'console', options);
  bot.child.stdin.end('exit\n');
  return bot.exited;
}

/**
 * A running bot whose store loses its permissions (`fault`, undone by the function it returns): a change made at the
 * console while it lasts, /healthz and the probe counter during it and after.
 */
async function whileRunning(fault: (w: World) => Promise<() => Promise<void>>, named: RegExp): Promise<string> {
  const w = await world();
  const bot = startBot(w.dir, { ...w.env, METRICS_PORT: '0' }, 'console', options);
  try {
    await started(bot.run, bot.exited);
    await postedTo(bot, 'kept');
    const base = /Health and metrics: (http:\/\/\S+)\/healthz/.exec(bot.run.stderr)?.[1] ?? '';
    const health = async () => {
      const response = await fetch(`${base}/healthz`);
      return { status: response.status, body: (await response.json()) as { store: string } };
    };
    const probeErrors = async () =>
      Number(/wotd_bot_store_errors_total\{store="subscriptions",operation="probe"\} (\d+)/.exec(await (await fetch(`${base}/metrics`)).text())?.[1] ?? NaN);
    expect((await health()).status).toBe(200);
    const undo = await fault(w);
    const during = await health();
    expect(during.status).toBe(503);
    expect(during.body.store).toMatch(named);
    expect(await probeErrors()).toBeGreaterThanOrEqual(1);
    bot.child.stdin.write('/wotd-subscribe channel:#during time:23:59\n');
    await expect.poll(() => bot.run.stdout, { timeout: 10_000, interval: 50 }).toContain('Subscribed #during');
    await undo();
    expect((await health()).status).toBe(200);
    bot.child.stdin.end('exit\n');
    const ended = await exitWithin(bot, 15_000);
    expect(ended?.code, ended?.stderr).toBe(0);
  } finally {
    if (bot.child.exitCode === null) bot.child.kill('SIGKILL');
  }
  expect(await channelsIn(w.store), 'the change made during the fault was kept').toEqual(['during', 'kept']);
  return 'writes go on to the open file (kept); /healthz 503 naming it, probe errors counted; 200 once undone';
}

describe('the SQLite store folder (where its lock file is) made read-only', () => {
  faultRow('locks', 'SQLite store (lock) folder read-only', [
    [
      'at start',
      async () => {
        const w = await world();
        await withMode(w, w.storeDir, 0o555, 0o755);
        return refusedAtStart(w, {}, /^wotd-bot console: the store's folder \/\S+\/store is read-only for this process \(.*EACCES\): SQLite writes the store's journal and its lock file there$/);
      },
    ],
    [
      'while running',
      () =>
        whileRunning(async (w) => withMode(w, w.storeDir, 0o555, 0o755), /^unreachable: subscriptions: .*the store's folder \/\S+\/store is read-only for this process .*could not start again/),
    ],
  ], 60_000);
});

describe('an unreadable file a setting names', () => {
  faultRow('paths', 'an unreadable file', [
    [
      'STORE_URL',
      async () => {
        const w = await world();
        await withMode(w, w.store, 0o000, 0o644);
        return refusedAtStart(w, {}, /^wotd-bot console: the store \/\S+\/store\.sqlite cannot be read and written by this process \(.*EACCES\)$/);
      },
    ],
    [
      "the store's lock file",
      async () => {
        const w = await world();
        await writeFile(`${w.store}.lock`, '');
        if (user) execFileSync('chown', [`${user}:`, `${w.store}.lock`]);
        await withMode(w, `${w.store}.lock`, 0o000, 0o644);
        return refusedAtStart(w, {}, /^wotd-bot console: the store's file \/\S+\/store\.sqlite\.lock cannot be read and written by this process \(.*EACCES\)$/);
      },
    ],
    [
      'WOTD_SERVICE_DB',
      async () => {
        const w = await world();
        await withMode(w, join(w.dir, 'words.sqlite'), 0o000, 0o644);
        return settingRefused(await runAs(w.dir, { ...w.env, WOTD_API_URL: '' }), /^wotd-bot: Invalid WOTD_SERVICE_DB=".*"(?: \(\d+ characters\))?: expected a path to a SQLite file; this one cannot be read \(EACCES\)$/);
      },
    ],
    [
      'WOTD_MIRROR',
      async () => {
        const w = await world();
        await copyFile(words, join(w.dir, 'snapshot.db'));
        await withMode(w, join(w.dir, 'snapshot.db'), 0o000, 0o644);
        return settingRefused(await runAs(w.dir, { ...w.env, WOTD_MIRROR: join(w.dir, 'snapshot.db') }), /^wotd-bot: Invalid WOTD_MIRROR=".*"(?: \(\d+ characters\))?: expected the path of a SQLite snapshot file; this one cannot be read \(EACCES\)$/);
      },
    ],
    ['STORE_URL, while running', () => whileRunning(async (w) => withMode(w, w.store, 0o000, 0o644), /^unreachable: subscriptions: .*the store \/\S+\/store\.sqlite cannot be read and written by this process .*could not start again/)],
  ], 60_000);
});

function settingRefused(run: Run, line: RegExp): string {
  expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1);
  expect(run.stderr.trim()).toMatch(line);
  expect(run.code).toBe(2);
  return `refused in one line before opening, exit ${String(run.code)}`;
}
