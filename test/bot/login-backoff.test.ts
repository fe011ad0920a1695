import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  LOGIN_BACKOFF_CAP_MS,
  LOGIN_BACKOFF_SETTING,
  LoginSettingError,
  loginBackoffBaseMs,
  loginBackoffMs,
} from '../../src/discord/login-backoff.ts';
import { isRetryableLoginError } from '../../src/discord/login-retry.ts';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { testEntries } from '../commands/world.ts';
import { startDiscordServer, type DiscordServer } from '../support/discord/index.ts';
import { childEnv } from '../support/child-env.ts';

/**
 * Logging in to Discord before the network (or Discord) is up: the real process, against a loopback port that
 * refuses and then the local Discord server behind it, or a Discord server that answers 503 first.
 */

const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');

let dir = '';
let service: RunningService | undefined;
let discord: DiscordServer | undefined;
let proxy: Server | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wotd-login-'));
  await writeWordDb(join(dir, 'words.sqlite'), testEntries());
  service = await startWotdService({ dbPath: join(dir, 'words.sqlite'), variant: 'A', port: 0, rateLimitPerMinute: 0 });
});
afterEach(async () => {
  await new Promise<void>((done) => (proxy ? proxy.close(() => done()) : done()));
  await discord?.close();
  proxy = discord = undefined;
});
afterAll(async () => {
  await service?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A port nothing listens on: it was free a moment ago, so a connection to it is refused. */
async function refusingPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((done) => probe.close(() => done()));
  return port;
}

/** Forwards every connection on `port` to `target`: Discord "coming up" on the port the bot was told. */
async function forward(port: number, target: number): Promise<Server> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    const upstream = connect(target, '127.0.0.1');
    sockets.add(socket).add(upstream);
    socket.pipe(upstream).pipe(socket);
    const end = (): void => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  const close = server.close.bind(server);
  server.close = ((callback?: (error?: Error) => void) => {
    for (const socket of sockets) socket.destroy();
    return close(callback);
  }) as Server['close'];
  await new Promise<void>((done) => server.listen(port, '127.0.0.1', done));
  return server;
}

interface Bot {
  child: ChildProcessWithoutNullStreams;
  output: { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

function startBot(settings: Record<string, string>): Bot {
  const env = childEnv({
    WOTD_API_URL: service?.url ?? '',
    WOTD_API_VARIANT: 'A',
    STORE_URL: `sqlite://${join(dir, `store-${Math.random().toString(36).slice(2)}.sqlite`)}`,
    LOG_LEVEL: 'info',
    ...settings,
  });
  const child = spawn(process.execPath, [BIN, 'start'], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return { child, output, exited };
}

interface RetryLine {
  attempt: number;
  nextDelayMs: number;
  msg: string;
}

function retryLines(stderr: string): RetryLine[] {
  return stderr
    .split('\n')
    .filter((line) => line.includes('could not reach Discord'))
    .map((line) => JSON.parse(line) as RetryLine);
}

async function until(what: string, check: () => boolean, bot: Bot, limitMs = 60_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  let ended = false;
  void bot.exited.then(() => (ended = true));
  while (!check()) {
    if (ended) throw new Error(`exited before ${what}:\n${bot.output.stderr}`);
    if (Date.now() > deadline) throw new Error(`not ${what} within ${limitMs} ms:\n${bot.output.stderr}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

describe('the login back-off', () => {
  it('stays under min(cap, base * 2^attempt), reaching the whole range (full jitter), and takes its setting validated and clamped', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: 1, max: LOGIN_BACKOFF_CAP_MS }), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, base, random) => {
        const delay = loginBackoffMs(attempt, base, () => random);
        expect(Number.isSafeInteger(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(Math.min(LOGIN_BACKOFF_CAP_MS, base * 2 ** Math.min(attempt, 30)));
      }),
      { seed: 11_011, numRuns: 2_000 },
    );
    expect(loginBackoffMs(3, 1_000, () => 0)).toBe(0);
    expect(loginBackoffMs(3, 1_000, () => 0.999_999)).toBe(7_999);
    expect(loginBackoffMs(50, 1_000, () => 0.999_999)).toBe(LOGIN_BACKOFF_CAP_MS - 1);
    expect(loginBackoffBaseMs({})).toBe(1_000);
    expect(loginBackoffBaseMs({ [LOGIN_BACKOFF_SETTING]: '25' })).toBe(25);
    expect(loginBackoffBaseMs({ [LOGIN_BACKOFF_SETTING]: '0' })).toBe(1);
    expect(loginBackoffBaseMs({ [LOGIN_BACKOFF_SETTING]: '99999999999' })).toBe(LOGIN_BACKOFF_CAP_MS);
    for (const bad of ['-5', '1.5', 'soon', '1e3', '9'.repeat(40)]) {
      expect(() => loginBackoffBaseMs({ [LOGIN_BACKOFF_SETTING]: bad })).toThrow(LoginSettingError);
    }
  });

  it('retries network failures and timeouts, anywhere in the causes, and nothing else', async () => {
    const refused = await fetch(`http://127.0.0.1:${await refusingPort()}/`).catch((error: unknown) => error);
    expect(isRetryableLoginError(refused)).toBe(true);
    expect(isRetryableLoginError(Object.assign(new Error('getaddrinfo ENOTFOUND discord.invalid'), { code: 'ENOTFOUND' }))).toBe(true);
    expect(isRetryableLoginError(new DOMException('This operation was aborted', 'AbortError'))).toBe(true);
    expect(isRetryableLoginError(new AggregateError([Object.assign(new Error('reset'), { code: 'ECONNRESET' })]))).toBe(true);
    expect(isRetryableLoginError(new Error('Used disallowed intents'))).toBe(false);
    expect(isRetryableLoginError(Object.assign(new Error('denied'), { code: 'EACCES' }))).toBe(false);
  });

  it('the real process: retries a refused port with growing, logged delays, then connects once Discord is there; SIGTERM exits 0', async () => {
    discord = await startDiscordServer();
    const port = await refusingPort();
    const bot = startBot({ DISCORD_TOKEN: discord.token, DISCORD_API_URL: `http://127.0.0.1:${port}/api`, [LOGIN_BACKOFF_SETTING]: '50' });
    try {
      await until('three retries logged', () => retryLines(bot.output.stderr).length >= 3, bot);
      proxy = await forward(port, Number(new URL(discord.apiUrl).port));
      await discord.waitForReady(1, 60_000);
      await until('connected', () => bot.output.stderr.includes('connected to Discord'), bot);
    } finally {
      bot.child.kill('SIGTERM');
    }
    expect(await bot.exited, bot.output.stderr).toBe(0);
    const lines = retryLines(bot.output.stderr);
    expect(lines.slice(0, 3).map((line) => line.attempt)).toEqual([1, 2, 3]);
    for (const line of lines) {
      expect(line.nextDelayMs).toBeGreaterThanOrEqual(0);
      expect(line.nextDelayMs).toBeLessThan(50 * 2 ** (line.attempt - 1));
      expect(line.msg).toBe(`could not reach Discord (attempt ${line.attempt}); trying again in ${line.nextDelayMs} ms`);
    }
  }, 120_000);

  it('the real process: retries 503s from /gateway/bot, then connects', async () => {
    discord = await startDiscordServer();
    // discord.js's REST client tries each request a few times itself; eight answers outlast that at least once.
    const fault = discord.injectFault({ route: 'GET /gateway/bot', status: 503, times: 8 });
    const bot = startBot({ DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl, [LOGIN_BACKOFF_SETTING]: '50' });
    try {
      await discord.waitForReady(1, 60_000);
    } finally {
      bot.child.kill('SIGTERM');
    }
    expect(await bot.exited, bot.output.stderr).toBe(0);
    expect(fault.hits).toBe(8);
    expect(retryLines(bot.output.stderr).length).toBeGreaterThanOrEqual(1);
    expect(bot.output.stderr).toContain('connected to Discord');
  }, 120_000);

  it('the real process: SIGTERM during a back-off exits cleanly, exit 0', async () => {
    const port = await refusingPort();
    // The longest base: after the first failure the bot waits up to a minute.
    const bot = startBot({ DISCORD_TOKEN: 'an.unused.token', DISCORD_API_URL: `http://127.0.0.1:${port}/api`, [LOGIN_BACKOFF_SETTING]: '60000' });
    await until('a retry logged', () => retryLines(bot.output.stderr).length >= 1, bot);
    bot.child.kill('SIGTERM');
    expect(await bot.exited, bot.output.stderr).toBe(0);
    expect(bot.output.stderr).toContain('stopped before connecting to Discord');
    expect(bot.output.stderr).not.toContain('the Discord bot stopped');
  }, 120_000);

  it('the real process: an invalid token stops at once, with what to do, exit 1, no retry', async () => {
    discord = await startDiscordServer();
    const bot = startBot({ DISCORD_TOKEN: 'not.the.token', DISCORD_API_URL: discord.apiUrl, [LOGIN_BACKOFF_SETTING]: '50' });
    expect(await bot.exited, bot.output.stderr).toBe(1);
    expect(retryLines(bot.output.stderr)).toEqual([]);
    expect(bot.output.stderr).toContain(
      'wotd-bot start: could not run the Discord bot: Discord rejected DISCORD_TOKEN as an invalid token (401 Unauthorized): copy a fresh token from the Bot page of the developer portal\n',
    );
  }, 120_000);

  it.each([
    [4004, 'Authentication failed', 'Discord rejected DISCORD_TOKEN (gateway close 4004 Authentication failed): copy a fresh token from the Bot page of the developer portal'],
    [4011, 'Sharding required', 'Discord requires sharding for this bot (gateway close 4011 Sharding required): start with --shards auto'],
    [4013, 'Invalid intent(s)', 'Discord refused the gateway intents (gateway close 4013 Invalid intents): the intents sent are not valid'],
    [
      4014,
      'Disallowed intent(s)',
      'Discord refused the gateway intents (gateway close 4014 Disallowed intents): enable them for the bot on the Bot page of the developer portal',
    ],
  ] as const)('the real process: gateway close %i at IDENTIFY stops at once, with what to do, exit 1, no retry', async (code, reason, message) => {
    discord = await startDiscordServer();
    discord.refuseIdentify(code, reason);
    const bot = startBot({ DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl, [LOGIN_BACKOFF_SETTING]: '50' });
    expect(await bot.exited, bot.output.stderr).toBe(1);
    expect(retryLines(bot.output.stderr)).toEqual([]);
    expect(bot.output.stderr).toContain(`wotd-bot start: could not run the Discord bot: ${message}\n`);
    expect(discord.gatewayEvents.filter((event) => event.kind === 'identify')).toHaveLength(1);
  }, 120_000);

  it('the real process: a login back-off setting that is not a number stops start in one line, exit 2', async () => {
    const bot = startBot({ DISCORD_TOKEN: 'an.unused.token', [LOGIN_BACKOFF_SETTING]: 'soon' });
    expect(await bot.exited).toBe(2);
    expect(bot.output.stderr).toBe(
      `wotd-bot start: Invalid ${LOGIN_BACKOFF_SETTING}: expected a whole number of milliseconds from 1 to ${LOGIN_BACKOFF_CAP_MS}\n`,
    );
  }, 60_000);
});
