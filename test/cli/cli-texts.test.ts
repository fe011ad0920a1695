import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli.ts';
import { invokedAs } from '../../src/cli/invoked-as.ts';
import { runMigrateStore } from '../../src/cli/migrate-store.ts';
import { atTerminal, startMode } from '../../src/cli/start-mode.ts';

const ROOT = resolve(import.meta.dirname, '../..');

afterEach(() => {
  vi.restoreAllMocks();
});

function captureStdout(): () => string {
  let text = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  });
  return () => text;
}

describe('wotd-bot --version', () => {
  it.each(['--version', '-v', 'version'])('%s prints the version from package.json, exit 0', async (flag) => {
    const printed = captureStdout();
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await main([flag])).toBe(0);
    expect(printed()).toBe(`wotd-bot ${version}\n`);
  });
});

describe('migrate-store --help', () => {
  it('says it runs beside a live bot, as the backups section of the docs does, and to stop the bot only for a move', async () => {
    const printed = captureStdout();
    expect(await runMigrateStore(['--help'])).toBe(0);
    expect(printed()).toMatch(/may run beside a live bot/);
    expect(printed()).not.toMatch(/Stop the bot first\./);
    expect(readFileSync(join(ROOT, 'docs/stores-and-cluster.md'), 'utf8')).toMatch(/reads a store beside the running bot/);
  });
});

describe('how to run the command again', () => {
  it('is node bin/wotd-bot.js in a clone, npx wotd-bot from a project that installed it, wotd-bot on the PATH', () => {
    expect(invokedAs('/home/me/wotd-bot/bin/wotd-bot.js', '/home/me/wotd-bot')).toBe('node bin/wotd-bot.js');
    expect(invokedAs('/home/me/wotd-bot/bin/wotd-bot.js', '/tmp')).toBe('node /home/me/wotd-bot/bin/wotd-bot.js');
    expect(invokedAs('/srv/app/node_modules/.bin/wotd-bot', '/srv/app')).toBe('npx wotd-bot');
    expect(invokedAs('/usr/local/bin/wotd-bot', '/tmp')).toBe('wotd-bot');
    expect(invokedAs(undefined, '/tmp')).toBe('wotd-bot');
  });
});

describe('start: which mode', () => {
  it('Discord with a token; without one, the console at a terminal and a refusal anywhere else; console always on purpose', () => {
    expect(startMode('start', 'token', false)).toEqual({ kind: 'discord', token: 'token' });
    expect(startMode('start', undefined, true)).toEqual({ kind: 'console' });
    expect(startMode('start', undefined, false)).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/^DISCORD_TOKEN is not set/) });
    expect(startMode('console', undefined, false)).toEqual({ kind: 'console' });
    expect(startMode('console', 'token', false)).toEqual({ kind: 'console' });
  });

  it('a terminal on any standard stream is a person who may type or read', () => {
    expect(atTerminal([{ isTTY: false }, {}, {}])).toBe(false);
    expect(atTerminal([{}, { isTTY: true }, {}])).toBe(true);
    expect(atTerminal([{}, {}, { isTTY: true }])).toBe(true);
  });
});
