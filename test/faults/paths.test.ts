import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect } from 'vitest';
import { writeWordDb } from '../../src/service/word-db.ts';
import { testEntries } from '../commands/world.ts';
import { runConsole } from '../console/console-process.ts';
import { faultCell } from './tally.ts';

/**
 * The blocking-path family of the fault matrix (issue 31). Settings that name a path, given something that is not a regular file (finding 3 of issue 31): opening a FIFO
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
  const fifo = (d: string) => join(d, 'fifo');
  const folder = (d: string) => join(d, 'folder');
  const cases: Array<[fault: string, setting: string, env: (dir: string) => Record<string, string>, line: RegExp]> = [
    ['a FIFO', 'WOTD_MIRROR', (d) => ({ WOTD_MIRROR: fifo(d) }), /^wotd-bot: Invalid WOTD_MIRROR=.*: expected the path of a SQLite snapshot file; this one is a FIFO \(named pipe\), not a regular file$/],
    ['a directory', 'WOTD_MIRROR', (d) => ({ WOTD_MIRROR: folder(d) }), /WOTD_MIRROR=.*folder.*this one is a directory, not a regular file$/],
    ['a device', 'WOTD_MIRROR', () => ({ WOTD_MIRROR: '/dev/zero' }), /WOTD_MIRROR=.*\/dev\/zero.*this one is a character device, not a regular file$/],
    ['a FIFO', 'WOTD_SERVICE_DB', (d) => ({ WOTD_SERVICE_DB: fifo(d) }), /WOTD_SERVICE_DB=.*fifo.*this one is a FIFO \(named pipe\), not a regular file$/],
    ['a directory', 'WOTD_SERVICE_DB', (d) => ({ WOTD_SERVICE_DB: folder(d) }), /WOTD_SERVICE_DB=.*folder.*this one is a directory, not a regular file$/],
    ['a device', 'WOTD_SERVICE_DB', () => ({ WOTD_SERVICE_DB: '/dev/zero' }), /WOTD_SERVICE_DB=.*this one is a character device, not a regular file$/],
    ['a FIFO', 'STORE_URL', (d) => ({ STORE_URL: `sqlite://${fifo(d)}` }), /STORE_URL: .*fifo is a FIFO \(named pipe\), not a regular file$/],
    ['a directory', 'STORE_URL', (d) => ({ STORE_URL: `sqlite://${folder(d)}` }), /Invalid STORE_URL=.*: expected the path of a SQLite file, not a folder \(.*\/folder\), such as sqlite:\/\/data\/store\.sqlite$/],
    ['a device', 'STORE_URL', () => ({ STORE_URL: 'sqlite:///dev/zero' }), /STORE_URL: \/dev\/zero is a character device, not a regular file$/],
    ['a FIFO', "the store's lock file", (d) => {
      execFileSync('mkfifo', [join(d, 'store.sqlite.lock')]);
      return {};
    }, /the store's lock file: .*store\.sqlite\.lock is a FIFO \(named pipe\), not a regular file$/],
  ];
  for (const [fault, setting, env, line] of cases) {
    faultCell('paths', fault, setting, async () => {
      const run = await runConsole(dir, ['exit'], { WOTD_MIRROR: 'off', ...env(dir) });
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr.trim()).toMatch(line);
      expect([1, 2]).toContain(run.code);
      return `refused in one line before opening, exit ${String(run.code)}`;
    }, 20_000);
  }
});

describe('whatever is stuck, the process ends', () => {
  faultCell('paths', 'an open stuck on a FIFO', 'stopping', async () => {
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
    expect(stderr.trim()).toMatch(/^wotd-bot: told to stop \(SIGTERM\), but something is still stuck after 1 s \(a file or a connection that does not answer; still open: [A-Za-z, ×0-9]+\); ending the process now$/);
    return 'ended within the deadline, one line (process.exit alone would hang)';
  }, 20_000);
});
