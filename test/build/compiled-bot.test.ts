import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { collectOutput } from '../support/child-output.ts';
import { childEnv } from '../support/child-env.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/wotd-bot.js');
const TRANSPILERS = /\/node_modules\/(tsx|esbuild|@esbuild|get-tsconfig)\//;

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The environment without the caller's bot settings or node options, so the bot runs as a fresh install would. */
function plainEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return childEnv(extra, ['NODE_OPTIONS']);
}

/** Every script V8 has compiled in the process's main thread, as paths (or node: names), through its inspector. */
async function loadedScripts(inspectorUrl: string): Promise<string[]> {
  const socket = new WebSocket(inspectorUrl);
  const urls: string[] = [];
  try {
    await new Promise<void>((done, fail) => {
      socket.once('error', fail);
      socket.once('open', () => socket.send(JSON.stringify({ id: 1, method: 'Debugger.enable' })));
      socket.on('message', (data: Buffer) => {
        const message = JSON.parse(data.toString('utf8')) as { id?: number; method?: string; params?: { url?: string } };
        if (message.method === 'Debugger.scriptParsed' && message.params?.url) urls.push(message.params.url);
        // Debugger.enable reports every script already compiled before it answers.
        if (message.id === 1) done();
      });
    });
  } finally {
    const closed = new Promise((done) => socket.once('close', done));
    socket.close();
    await closed;
  }
  return urls.map((url) => (url.startsWith('file://') ? fileURLToPath(url) : url));
}

describe('the installed entry point, bin/wotd-bot.js', () => {
  it('runs the compiled JavaScript in dist/ on plain node, with no transpiler loaded, and finds its word list from any folder', async () => {
    dir = await mkdtemp(join(tmpdir(), 'wotd-compiled-'));
    const args = ['--inspect=127.0.0.1:0', BIN, 'console'];
    // No WOTD_SERVICE_DB: the console's embedded service reads the data/words.sqlite that comes with the bot.
    const child = spawn(process.execPath, args, {
      cwd: dir,
      env: plainEnv({ STORE_URL: `sqlite://${join(dir, 'store.sqlite')}` }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const { output, exited } = collectOutput(child);
    try {
      const inspectorUrl = await vi.waitFor(
        () => {
          const found = /Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/\S+)/.exec(output.stderr)?.[1];
          if (!found) throw new Error(`no inspector URL yet:\n${output.stderr}`);
          return found;
        },
        { timeout: 10_000, interval: 20 },
      );
      child.stdin.write('/wotd date:2025-01-14\n');
      await vi.waitFor(
        () => {
          if (!output.stdout.includes('│ assailant')) throw new Error(`no answer yet:\n${output.stdout}\n${output.stderr}`);
        },
        { timeout: 15_000, interval: 20 },
      );

      // What `ps` shows: plain node on bin/wotd-bot.js, with no loader flag.
      const cmdline = (await readFile(`/proc/${child.pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
      expect(cmdline).toEqual([process.execPath, ...args]);

      const scripts = await loadedScripts(inspectorUrl);
      expect(scripts.filter((path) => TRANSPILERS.test(path) || /\.[cm]?ts$/.test(path))).toEqual([]);
      const ours = scripts.filter((path) => path.startsWith(`${ROOT}/`) && !path.includes('/node_modules/'));
      expect(ours.filter((path) => path !== BIN && !path.startsWith(join(ROOT, 'dist/')))).toEqual([]);
      expect(ours).toContain(join(ROOT, 'dist/src/run-mode.js'));
      expect(ours).toContain(join(ROOT, 'dist/commands/wotd.js'));
    } finally {
      child.stdin.end();
    }
    expect(await exited).toBe(0);
  });

  it('says how to build when dist/ is missing', async () => {
    dir = await mkdtemp(join(tmpdir(), 'wotd-unbuilt-'));
    await mkdir(join(dir, 'bin'));
    await copyFile(BIN, join(dir, 'bin/wotd-bot.js'));
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
      execFile(process.execPath, [join(dir ?? '', 'bin/wotd-bot.js'), '--help'], { cwd: dir, env: plainEnv({}), timeout: 10_000 }, (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
      );
    });
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'wotd-bot: the compiled bot (dist/) is missing: run npm run build in the wotd-bot folder\n',
    });
  });
});
