import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join, resolve } from 'node:path';
import { expect } from 'vitest';

const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');
const SETTINGS = ['DISCORD_TOKEN', 'DISCORD_APPLICATION_ID', 'DISCORD_API_URL', 'LOG_LEVEL', 'STORE_URL', 'REDIS_URL', 'REDIS_KEY_PREFIX', 'NO_COLOR'];

export interface Run {
  stdout: string;
  stderr: string;
  code: number | null;
}

/**
 * `wotd-bot console` as `npm run console` runs it, in `dir` (no .env there), with stdin a pipe, the word list and store in
 * `dir`, and none of the caller's own WOTD_ or Discord settings.
 */
export function startBot(
  dir: string,
  extraEnv: Record<string, string> = {},
  command: 'console' | 'start' = 'console',
  options: { under?: string[] } = {},
): { child: ChildProcessWithoutNullStreams; run: Run; exited: Promise<Run> } {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('WOTD_') && !SETTINGS.includes(key)) env[key] = value;
  }
  Object.assign(env, { WOTD_SERVICE_DB: join(dir, 'words.sqlite'), STORE_URL: `sqlite://${join(dir, 'store.sqlite')}` }, extraEnv);
  // `under`: a command that runs it with fewer rights (runuser, setpriv), for tests run as root, whom no permission bites.
  const [file = process.execPath, ...args] = [...(options.under ?? []), process.execPath, BIN, command];
  const child = spawn(file, args, { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const run: Run = { stdout: '', stderr: '', code: null };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (run.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (run.stderr += chunk));
  const exited = new Promise<Run>((done) => child.on('close', (code) => done({ ...run, code })));
  return { child, run, exited };
}

/** Runs the console in `dir` on these input lines (then the end of input) and answers what it printed once it has exited. */
export async function runConsole(dir: string, lines: readonly string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  const { child, exited } = startBot(dir, extraEnv);
  child.stdin.end(lines.map((line) => `${line}\n`).join(''));
  return exited;
}

/** The console's first screen, which it writes to stderr: three paragraphs, then a blank line. */
export const FIRST_SCREEN = /^wotd-bot: console mode\n(?:.+\n)+\n(?:.+\n)+\n(?:.+\n)+\n/;

/** Asserts the console exited 0 with nothing on stderr but its first screen. */
export function expectCleanExit(run: Run): void {
  expect(run.stderr).toMatch(FIRST_SCREEN);
  expect(run.stderr.replace(FIRST_SCREEN, '')).toBe('');
  expect(run.code).toBe(0);
}

/** Asserts each piece appears in `text`, in this order. */
export function expectInOrder(text: string, pieces: string[]): void {
  let from = 0;
  for (const piece of pieces) {
    const at = text.indexOf(piece, from);
    expect(at, `“${piece}” after position ${from} in:\n${text}`).toBeGreaterThanOrEqual(0);
    from = at + piece.length;
  }
}
