import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { testEntries } from '../commands/world.ts';
import { startBot, type Run } from '../console/console-process.ts';

/** One `wotd-bot start` per SQLite store, with real processes: the second is refused, a killed one leaves no lock. */

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
  while (!run.stdout.includes('wotd-bot: console mode')) {
    const done = await Promise.race([exited, new Promise<null>((wait) => setTimeout(() => wait(null), 50))]);
    if (done) throw new Error(`exited (${String(done.code)}) before starting:\n${done.stderr}`);
    if (Date.now() > deadline) throw new Error(`no first screen within 30 s:\n${run.stderr}`);
  }
}

function lookup(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, STORE_URL: `sqlite://${join(dir, 'store.sqlite')}`, WOTD_API_VARIANT: 'A' };
  delete env.REDIS_URL;
  const child = spawn(process.execPath, [BIN, 'query', '2025-01-14', '--api-url', service?.url ?? ''], { cwd: dir, env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

describe('wotd-bot start on a SQLite store another process holds', () => {
  it('refuses in one line naming the store and the holder, exit 2; the lookup CLI still works; a killed holder leaves no lock', async () => {
    const first = startBot(dir);
    try {
      await started(first.run, first.exited);

      const refused = startBot(dir);
      // Were it to start after all, `exit` stops its console at once (exit 0) rather than hanging the test.
      refused.child.stdin.end('exit\n');
      const second = await refused.exited;
      expect(second.code).toBe(2);
      expect(second.stdout).toBe('');
      const store = join(dir, 'store.sqlite');
      expect(second.stderr).toBe(
        `wotd-bot start: the store ${store} is in use by another wotd-bot process (pid ${first.child.pid}); run one bot per SQLite store, or several in cluster mode (REDIS_URL)\n`,
      );

      // A read-only tool beside the running bot, on the same store.
      const looked = await lookup();
      expect(looked.code, looked.stderr).toBe(0);
      expect(looked.stdout).toContain('serendipity');
    } finally {
      first.child.kill('SIGKILL');
    }
    expect((await first.exited).code).toBe(null);
    // The killed holder's pid file is left behind; the lock is not.
    expect(existsSync(join(dir, 'store.sqlite.lock.pid'))).toBe(true);

    const third = startBot(dir);
    try {
      await started(third.run, third.exited);
    } finally {
      third.child.stdin.end('exit\n');
    }
    const ended = await third.exited;
    expect(ended.code, ended.stderr).toBe(0);
    expect(existsSync(join(dir, 'store.sqlite.lock.pid')), 'removed on a clean stop').toBe(false);
  }, 120_000);
});
