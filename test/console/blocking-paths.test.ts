import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeWordDb } from '../../src/service/word-db.ts';
import { testEntries } from '../commands/world.ts';
import { runConsole } from './console-process.ts';

/**
 * Settings that name a path, given something that is not a regular file (finding 3 of issue 31): opening a FIFO
 * blocks a thread of the pool until someone writes to it, so the console never ended and SIGTERM did not help.
 * Each is refused with one line before anything opens it; and whatever is stuck, the process ends within seconds.
 */

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wotd-blocking-paths-'));
  await writeWordDb(join(dir, 'words.sqlite'), testEntries());
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  await mkdir(join(dir, 'folder'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a path setting naming something that is not a regular file', () => {
  const cases: Array<[string, (dir: string) => Record<string, string>, RegExp]> = [
    ['WOTD_MIRROR, a FIFO', (d) => ({ WOTD_MIRROR: join(d, 'fifo') }), /^wotd-bot: Invalid WOTD_MIRROR=.*: expected the path of a SQLite snapshot file; this one is a FIFO \(named pipe\), not a regular file$/],
    ['WOTD_MIRROR, a directory', (d) => ({ WOTD_MIRROR: join(d, 'folder') }), /WOTD_MIRROR=.*folder.*this one is a directory, not a regular file$/],
    ['WOTD_MIRROR, a device', () => ({ WOTD_MIRROR: '/dev/zero' }), /WOTD_MIRROR=.*\/dev\/zero.*this one is a character device, not a regular file$/],
    ['WOTD_SERVICE_DB, a FIFO', (d) => ({ WOTD_SERVICE_DB: join(d, 'fifo') }), /WOTD_SERVICE_DB=.*fifo.*this one is a FIFO \(named pipe\), not a regular file$/],
    ['WOTD_SERVICE_DB, a device', () => ({ WOTD_SERVICE_DB: '/dev/zero' }), /WOTD_SERVICE_DB=.*is a character device, not a regular file$/],
    ['STORE_URL, a FIFO', (d) => ({ STORE_URL: `sqlite://${join(d, 'fifo')}` }), /STORE_URL: .*fifo is a FIFO \(named pipe\), not a regular file$/],
    ['STORE_URL, a directory', (d) => ({ STORE_URL: `sqlite://${join(d, 'folder')}` }), /STORE_URL: .*folder is a directory, not a regular file$/],
    ["the store's lock file, a FIFO", (d) => {
      execFileSync('mkfifo', [join(d, 'store.sqlite.lock')]);
      return {};
    }, /the store's lock file: .*store\.sqlite\.lock is a FIFO \(named pipe\), not a regular file$/],
  ];
  it.each(cases)('%s: refused in one line before it is opened, exit code 2 or 1, at once', async (_name, env, line) => {
    const run = await runConsole(dir, ['exit'], { WOTD_MIRROR: 'off', ...env(dir) });
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr.trim()).toMatch(line);
    expect([1, 2]).toContain(run.code);
  }, 20_000);
});

describe('whatever is stuck, the process ends', () => {
  it('within the deadline, with one line, even when an open holds a thread of the pool (process.exit would not return)', async () => {
    const deadline = pathToFileURL(resolve(import.meta.dirname, '../../dist/src/cli/exit-deadline.js')).href;
    const script = `
      import { open } from 'node:fs/promises';
      import { armExitDeadline } from ${JSON.stringify(deadline)};
      void open(${JSON.stringify(join(dir, 'fifo'))}, 'r');
      setTimeout(() => { armExitDeadline('told to stop (SIGTERM)', 500); process.exitCode = 0; }, 100);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const started = Date.now();
    const signal = await new Promise<NodeJS.Signals | null>((done) => child.on('close', (_code, sig) => done(sig)));
    expect(signal).toBe('SIGKILL');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(stderr.trim()).toMatch(/^wotd-bot: told to stop \(SIGTERM\), but something is still stuck after 1 s \(a file or a connection that does not answer\); ending the process now$/);
  }, 20_000);
});
