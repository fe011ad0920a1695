import { existsSync } from 'node:fs';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { testEntries } from '../commands/world.ts';
import { startBot, type Run } from '../console/console-process.ts';
import { postgresAdmin } from '../support/postgres.ts';
import { postgresBackend, schemaOf, sqliteBackend } from '../support/store-backends.ts';

/**
 * A running bot whose one-bot lock is lost (finding 2 of issue 31), with real processes: it used to warn every 5 s
 * and go on posting beside whoever took the lock. Now, unable to take it back at once, it stops with one line and
 * exit code 1, and the new holder carries on alone.
 */

let dir = '';
let service: RunningService | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wotd-lost-lock-'));
  await writeWordDb(join(dir, 'words.sqlite'), testEntries());
  service = await startWotdService({ dbPath: join(dir, 'words.sqlite'), variant: 'A', port: 0, rateLimitPerMinute: 0 });
});
afterAll(async () => {
  await service?.close();
  await rm(dir, { recursive: true, force: true });
});

async function started(run: Run, exited: Promise<Run>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!run.stdout.includes('wotd-bot: console mode')) {
    const done = await Promise.race([exited, new Promise<null>((wait) => setTimeout(() => wait(null), 50))]);
    if (done) throw new Error(`exited (${String(done.code)}) before starting:\n${done.stderr}`);
    if (Date.now() > deadline) throw new Error(`no first screen within 30 s:\n${run.stderr}`);
  }
}

/** The bot's exit within `ms`, or null while it still runs (then it is killed). */
async function exitWithin(bot: ReturnType<typeof startBot>, ms: number): Promise<Run | null> {
  const done = await Promise.race([bot.exited, new Promise<null>((wait) => setTimeout(() => wait(null), ms))]);
  if (!done) {
    bot.child.kill('SIGKILL');
    await bot.exited;
  }
  return done;
}

const env = () => ({ WOTD_API_URL: service?.url ?? '', WOTD_API_VARIANT: 'A', WOTD_MIRROR: 'off' });

postgresBackend.describe('a bot on PostgreSQL whose lock session is ended', () => {
  it('cannot take the lock back (another session has it): stops with one line, exit 1', async () => {
    const location = await postgresBackend.fresh();
    const bot = startBot(dir, { ...env(), STORE_URL: location.url });
    const other = await postgresAdmin().connect();
    try {
      await started(bot.run, bot.exited);
      // pg_terminate_backend (a failover or a restart does the same), and another bot's session takes the lock the
      // moment it is free: in one round trip, before the bot can reconnect.
      await other.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1;
         SELECT pg_advisory_lock(${0x776f7464}, hashtext('${schemaOf(location)}'))`.replace('$1', `'wotd-bot pid ${bot.child.pid}'`),
      );
      const ended = await exitWithin(bot, 15_000);
      expect(ended, 'the bot went on running without its lock').not.toBeNull();
      expect(ended?.code).toBe(1);
      const lines = (ended?.stderr ?? '').split('\n').filter((line) => line.startsWith('wotd-bot start:'));
      expect(lines).toEqual([expect.stringMatching(/^wotd-bot start: lost the lock on the PostgreSQL store .* and could not take it back: another wotd-bot process holds it now; stopping now so that two bots never write or post on one store$/)]);
    } finally {
      other.release(true);
    }
  }, 60_000);
});

sqliteBackend.describe('a bot on SQLite whose lock file is deleted', () => {
  it('takes the lock again on a new file when it can, and stops with one line, exit 1, when another process has it', async () => {
    const store = join(dir, 'lost.sqlite');
    const bot = startBot(dir, { ...env(), STORE_URL: `sqlite://${store}` });
    let other: sqlite3.Database | undefined;
    try {
      await started(bot.run, bot.exited);
      // Deleted with nobody else about: the bot locks a new file at the path, and runs on.
      await unlink(`${store}.lock`);
      await expect.poll(() => existsSync(`${store}.lock`), { timeout: 10_000, interval: 100 }).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(bot.child.exitCode, bot.run.stderr).toBeNull();
      await unlink(`${store}.lock`);
      // Another bot starting now would create a new lock file and lock it: this process does so.
      other = await new Promise<sqlite3.Database>((resolve, reject) => {
        const db: sqlite3.Database = new sqlite3.Database(`${store}.lock`, (error) => (error ? reject(error) : resolve(db)));
      });
      await new Promise<void>((resolve, reject) => other?.run('BEGIN IMMEDIATE', (error: Error | null) => (error ? reject(error) : resolve())));
      const ended = await exitWithin(bot, 15_000);
      expect(ended, 'the bot went on running without its lock').not.toBeNull();
      expect(ended?.code).toBe(1);
      const lines = (ended?.stderr ?? '').split('\n').filter((line) => line.startsWith('wotd-bot start:'));
      expect(lines).toEqual([expect.stringMatching(/^wotd-bot start: the lock file .*lost\.sqlite\.lock of the store .* was deleted or replaced, and the lock could not be taken again: another wotd-bot process holds it now; stopping now/)]);
    } finally {
      other?.close();
    }
  }, 60_000);
});
