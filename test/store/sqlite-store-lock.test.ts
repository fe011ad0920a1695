import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { withoutPassword } from '../../src/config/settings.ts';
import type { StoreLocation } from '../../src/store/open-store.ts';
import { testEntries } from '../commands/world.ts';
import { startBot, type Run } from '../console/console-process.ts';
import { postgresAdmin } from '../support/postgres.ts';
import { postgresBackend, schemaOf, sqliteBackend, type StoreBackend } from '../support/store-backends.ts';

/**
 * One `wotd-bot start` per SQLite store, and per PostgreSQL store outside cluster mode, with real processes: the
 * second is refused, a killed one leaves no lock.
 */

const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');

let dir = '';
let service: RunningService | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wotd-store-lock-'));
  await writeWordDb(join(dir, 'words.sqlite'), testEntries());
  service = await startWotdService({ dbPath: join(dir, 'words.sqlite'), variant: 'A', port: 0, rateLimitPerMinute: 0 });
});
afterAll(async () => {
  await service?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Resolves once the console has shown its first screen (the store is open and locked by then). */
async function started(run: Run, exited: Promise<Run>): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!run.stderr.includes('wotd-bot: console mode')) {
    const done = await Promise.race([exited, new Promise<null>((wait) => setTimeout(() => wait(null), 50))]);
    if (done) throw new Error(`exited (${String(done.code)}) before starting:\n${done.stderr}`);
    if (Date.now() > deadline) throw new Error(`no first screen within 30 s:\n${run.stderr}`);
  }
}

function lookup(storeUrl: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, STORE_URL: storeUrl, WOTD_API_VARIANT: 'A' };
  delete env.REDIS_URL;
  const child = spawn(process.execPath, [BIN, 'query', '2025-01-14', '--api-url', service?.url ?? ''], { cwd: dir, env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

/** How each store names itself in the refusal, and what a killed holder leaves behind. */
interface LockedStore {
  backend: StoreBackend;
  /** The store as the refusal names it. */
  shown(location: StoreLocation): string;
  kind: string;
  /** After the holder was killed and before anyone started again: what it left (SQLite: its pid file). */
  leftByKilled(): boolean;
  /** After a clean stop. */
  leftByStopped(): boolean;
}

const pidFile = () => join(dir, 'store.sqlite.lock.pid');
const LOCKED: LockedStore[] = [
  {
    backend: sqliteBackend,
    shown: () => join(dir, 'store.sqlite'),
    kind: 'SQLite',
    // The killed holder's pid file is left behind; the lock is not.
    leftByKilled: () => existsSync(pidFile()),
    leftByStopped: () => existsSync(pidFile()),
  },
  {
    backend: postgresBackend,
    shown: (location) => `STORE_URL=${withoutPassword(location.url)}`,
    kind: 'PostgreSQL',
    // PostgreSQL keeps nothing behind: the lock was the holder's session's.
    leftByKilled: () => false,
    leftByStopped: () => false,
  },
];

for (const locked of LOCKED) {
  locked.backend.describe(`wotd-bot start on a ${locked.kind} store another process holds`, () => {
    it('refuses in one line naming the store and the holder, exit 2; the lookup CLI still works; a killed holder leaves no lock', async () => {
      const location = locked.backend === sqliteBackend ? { url: `sqlite://${join(dir, 'store.sqlite')}` } : await locked.backend.fresh();
      const env = { STORE_URL: location.url };
      const first = startBot(dir, env);
      try {
        await started(first.run, first.exited);

        const refused = startBot(dir, env);
        // Were it to start after all, `exit` stops its console at once (exit 0) rather than hanging the test.
        refused.child.stdin.end('exit\n');
        const second = await refused.exited;
        expect(second.code).toBe(2);
        expect(second.stdout).toBe('');
        expect(second.stderr).toBe(
          `wotd-bot console: the store ${locked.shown(location)} is in use by another wotd-bot process (pid ${first.child.pid}); run one bot per ${locked.kind} store, or several in cluster mode (REDIS_URL)\n`,
        );

        // A read-only tool beside the running bot, on the same store.
        const looked = await lookup(location.url);
        expect(looked.code, looked.stderr).toBe(0);
        expect(looked.stdout).toContain('serendipity');
      } finally {
        first.child.kill('SIGKILL');
      }
      expect((await first.exited).code).toBe(null);
      expect(locked.leftByKilled()).toBe(locked.backend === sqliteBackend);

      const third = startBot(dir, env);
      try {
        await started(third.run, third.exited);
      } finally {
        third.child.stdin.end('exit\n');
      }
      const ended = await third.exited;
      expect(ended.code, ended.stderr).toBe(0);
      expect(locked.leftByStopped(), 'removed on a clean stop').toBe(false);
    }, 120_000);
  });
}

postgresBackend.describe('wotd-bot start on a PostgreSQL store it cannot use', () => {
  it('refuses an unreachable store in one line naming it without the password, exit 1', async () => {
    const run = startBot(dir, { STORE_URL: 'postgres://wotd:hunter2hunter2@127.0.0.1:1/wotd' });
    run.child.stdin.end('exit\n');
    const result = await run.exited;
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toBe('wotd-bot console: could not reach PostgreSQL at STORE_URL=postgres://***@127.0.0.1:1/wotd: connect ECONNREFUSED 127.0.0.1:1\n');
  });

  it('refuses a damaged store in one line, exit 1, and leaves it as it was', async () => {
    const location = await postgresBackend.fresh();
    const schema = schemaOf(location);
    await postgresAdmin().query(`CREATE TABLE ${schema}.keyv (key text PRIMARY KEY, stored jsonb)`);
    await postgresAdmin().query(`INSERT INTO ${schema}.keyv VALUES ('subscriptions:sub:c1', '{"kept": true}')`);
    const run = startBot(dir, { STORE_URL: location.url });
    run.child.stdin.end('exit\n');
    const result = await run.exited;
    expect(result).toMatchObject({ code: 1, stdout: '' });
    // Said in one line, cut at 300 characters if need be; its stack only in the log at debug level.
    const said = `wotd-bot console: the PostgreSQL store at STORE_URL=${withoutPassword(location.url)} is damaged: table ${schema}.keyv has (key text, stored jsonb), not (key text, value text); it was left untouched.`;
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([expect.stringContaining(said)]);
    expect((await postgresAdmin().query(`SELECT key, stored FROM ${schema}.keyv`)).rows).toEqual([{ key: 'subscriptions:sub:c1', stored: { kept: true } }]);
  });
});
