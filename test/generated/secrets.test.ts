import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, withoutPassword } from '../../src/config/settings.ts';
import { createLogger } from '../../src/config/logger.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { testEntries } from '../commands/world.ts';
import { startDiscordServer, type DiscordServer } from '../support/discord/index.ts';
import { settings } from './generated.ts';
import { childEnv } from '../support/child-env.ts';
import { deleteKeysUnder, redisTestUrl } from '../support/redis.ts';

/**
 * No part of a password in a URL setting (or of the token) reaches anything the process writes: its logs, its
 * error and exit lines, /healthz and /metrics. Passwords come from the whole printable ASCII range (@ : / % # ? and
 * spaces included) plus some Unicode, written raw or percent-encoded, in URLs that parse and in URLs that do not.
 * The redaction itself is checked in process with many values; the real process with a few.
 */

const SEED = 20_007;
const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');

const printable = fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code));
const unicode = fc.constantFrom('é', 'ß', 'Ω', 'ж', '中', '文', '😀', 'ي', '\u0301', '🔑');
const passwordChar = fc.oneof({ weight: 9, arbitrary: printable }, { weight: 1, arbitrary: unicode });
/** Passwords of at least 6 characters, so there are substrings to look for; some hold an @ for sure. */
const password = fc.oneof(
  fc.array(passwordChar, { minLength: 6, maxLength: 40 }).map((chars) => chars.join('')),
  fc.tuple(fc.array(passwordChar, { minLength: 3, maxLength: 12 }), fc.array(passwordChar, { minLength: 3, maxLength: 12 })).map(
    ([left, right]) => `${left.join('')}@${right.join('')}`,
  ),
);
const userName = fc.oneof(fc.constant(''), fc.constant('default'), fc.array(passwordChar, { minLength: 1, maxLength: 12 }).map((chars) => chars.join('')));
const scheme = fc.constantFrom('redis', 'rediss', 'sqlite', 'postgres', 'http', 'https', 'mongodb');
/** What follows the userinfo: never an @ in it, so the exact shown form is known. */
const hostPart = fc
  .tuple(fc.constantFrom('127.0.0.1', 'localhost', '[::1]', 'cache.internal'), fc.option(fc.integer({ min: 0, max: 99_999 })), fc.constantFrom('', '/', '/0', '/db?x=1', '#frag'))
  .map(([host, port, tail]) => `${host}${port === null ? '' : `:${port}`}${tail}`);

function encodedOrRaw(text: string, encode: boolean): string {
  return encode ? encodeURIComponent(text) : text;
}

/** Every form of the password that would count as showing it, and its substrings of 4 characters or more. */
function secretPieces(secret: string): string[] {
  const chars = [...secret];
  const pieces = new Set<string>([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
  for (let start = 0; start < chars.length; start += 1) {
    for (let end = start + 4; end <= chars.length; end += 1) pieces.add(chars.slice(start, end).join(''));
  }
  return [...pieces];
}

function piecesFoundIn(text: string, secret: string, publicText = ''): string[] {
  return secretPieces(secret).filter((piece) => text.includes(piece) && !publicText.includes(piece));
}

describe('withoutPassword, the one redaction of URLs', () => {
  it('hides the whole userinfo of any URL, parseable or not, and shows the rest as it was', () => {
    fc.assert(
      fc.property(scheme, userName, password, fc.boolean(), hostPart, (name, user, secret, encode, rest) => {
        const userinfo = user === '' && secret === '' ? '' : `${encodedOrRaw(user, encode)}:${encodedOrRaw(secret, encode)}`;
        const url = `${name}://${userinfo}@${rest}`;
        const shown = withoutPassword(url);
        expect(shown).toBe(`${name}://***@${rest}`);
        expect(piecesFoundIn(shown, secret, rest)).toEqual([]);
      }),
      settings(SEED, 20_000),
    );
  });

  it('hides the userinfo of a value without a scheme and leaves a value without userinfo as it is', () => {
    fc.assert(
      fc.property(userName, password, hostPart, (user, secret, rest) => {
        const shown = withoutPassword(`${user}:${secret}@${rest}`);
        expect(shown).toBe(`***@${rest}`);
        expect(withoutPassword(`redis://${rest}`)).toBe(`redis://${rest}`);
      }),
      settings(SEED + 1, 5_000),
    );
  });

  it('keeps every password of a REDIS_URL, STORE_URL or API URL out of the ConfigError, valid or not', () => {
    const variable = fc.constantFrom('REDIS_URL', 'STORE_URL', 'WOTD_API_URL', 'DISCORD_API_URL');
    // Port 99999 makes any URL invalid; the scheme-less form and a space-only scheme are never URLs at all.
    const shape = fc.constantFrom('valid', 'bad-port', 'no-scheme', 'bad-scheme');
    fc.assert(
      fc.property(variable, shape, userName, password, fc.boolean(), (name, form, user, secret, encode) => {
        const userinfo = `${encodedOrRaw(user, encode)}:${encodedOrRaw(secret, encode)}`;
        const scheme = name.endsWith('API_URL') ? 'http' : name === 'REDIS_URL' ? 'redis' : 'postgres';
        const value =
          form === 'valid'
            ? `${scheme}://${userinfo}@127.0.0.1:6379`
            : form === 'bad-port'
              ? `${scheme}://${userinfo}@127.0.0.1:99999`
              : form === 'no-scheme'
                ? `${userinfo}@127.0.0.1:6379`
                : `re dis://${userinfo}@127.0.0.1`;
        let message = '';
        try {
          loadConfig({ [name]: value });
        } catch (error) {
          expect(error).toBeInstanceOf(ConfigError);
          message = (error as Error).message;
        }
        expect(piecesFoundIn(message, secret, `Invalid ${name}="${scheme}://***@127.0.0.1:6379": expected`)).toEqual([]);
      }),
      settings(SEED + 2, 5_000),
    );
  });

  it('the logger scrubs a long password in any form it is given, JSON-escaped included', () => {
    fc.assert(
      fc.property(fc.array(passwordChar, { minLength: 8, maxLength: 30 }).map((chars) => chars.join('')), (secret) => {
        let written = '';
        const destination = { write: (line: string) => ((written += line), true) } as unknown as NodeJS.WritableStream;
        const logger = createLogger({ level: 'info', secrets: [secret], destination });
        logger.error({ err: new Error(`failed with ${secret}`), detail: { url: `redis://:${secret}@h` } }, `message ${secret}`);
        logger.flush();
        expect(written).not.toContain(secret);
        expect(written).not.toContain(JSON.stringify(secret).slice(1, -1));
      }),
      settings(SEED + 3, 1_000),
    );
  });
});

// ---------------------------------------------------------------------------------------------- the real process

interface Outcome {
  code: number | null;
  /** Every byte written to stdout and stderr, then the /healthz and /metrics bodies when they were served. */
  text: string;
}

let dir = '';
let refusingPort = 0;
let discord: DiscordServer | undefined;
beforeAll(async () => {
  discord = await startDiscordServer();
  dir = await mkdtemp(join(tmpdir(), 'wotd-secrets-'));
  await writeWordDb(join(dir, 'words.sqlite'), testEntries());
  // A port that was free a moment ago: nothing listens there, so a connection to it is refused.
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  refusingPort = (probe.address() as { port: number }).port;
  await new Promise<void>((done) => probe.close(() => done()));
});
afterAll(async () => {
  await discord?.close();
  await rm(dir, { recursive: true, force: true });
  // What the bots of the Redis scenario wrote under their prefixes (secrets-ctl<pid>…, secrets-r<pid>…).
  if (redisTestUrl !== null) for (const run of ['ctl', 'r']) await deleteKeysUnder(`secrets-${run}${process.pid}`);
});

/**
 * `wotd-bot console` (or `start` with a token) with these settings. With `serve`, it waits for the health endpoint, reads
 * /healthz and /metrics, then ends the console (`exit`); otherwise the process ends by itself.
 */
async function runProcess(env: Record<string, string>, serve: boolean, run: string): Promise<Outcome> {
  const base = childEnv({
    WOTD_SERVICE_DB: join(dir, 'words.sqlite'),
    STORE_URL: `sqlite://${join(dir, `store-${run}.sqlite`)}`,
    LOG_LEVEL: 'debug',
    ...(serve ? { METRICS_PORT: '0' } : {}),
    ...env,
  });
  // With a token, `start` runs Discord; without, `console` runs the console (with no terminal, `start` would refuse).
  const child = spawn(process.execPath, [BIN, env.DISCORD_TOKEN ? 'start' : 'console'], { cwd: dir, env: base, stdio: ['pipe', 'pipe', 'pipe'] });
  let text = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    text += chunk;
    stderr += chunk;
  });
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  try {
    if (serve) {
      const healthUrl = await new Promise<string>((done, fail) => {
        const look = setInterval(() => {
          const found = /health at (http:\/\/127\.0\.0\.1:\d+)\/healthz/.exec(stderr)?.[1];
          if (found) {
            clearInterval(look);
            done(found);
          }
        }, 50);
        void exited.then((code) => {
          clearInterval(look);
          fail(new Error(`exited (${String(code)}) before serving /healthz:\n${text}`));
        });
      });
      // Let the store's first statements run, so /healthz reports on it.
      await new Promise((done) => setTimeout(done, 500));
      for (const path of ['/healthz', '/metrics']) {
        const response = await fetch(`${healthUrl}${path}`);
        text += `\n${path} ${response.status}\n${await response.text()}`;
      }
      child.stdin.end('exit\n');
    }
    const code = await exited;
    return { code, text };
  } finally {
    clearTimeout(killer);
  }
}

/** The parts of the output that differ between two runs whatever the password: times, ports, paths. */
function normalised(text: string, run: string): string {
  return text
    .replaceAll(dir, '<dir>')
    .replaceAll(run, '<run>')
    .replace(/"time":\d+/g, '"time":0')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
    // Measurements (times, memory, durations) in /metrics differ from run to run; its names and labels are kept.
    .replace(/\n\/metrics [\s\S]*$/, (metrics) => metrics.replace(/\d+(\.\d+)?(e[+-]?\d+)?/g, '<n>'));
}

interface Scenario {
  name: string;
  serve: boolean;
  expectedCodes: number[];
  env(secret: string, user: string, run: string): Record<string, string>;
}

const SCENARIOS: Scenario[] = [
  {
    // Redis accepts any password for its passwordless default user: the process runs on it, health and all.
    name: 'REDIS_URL with a password, Redis up',
    serve: true,
    expectedCodes: [0],
    env: (secret, _user, run) => ({ REDIS_URL: `redis://default:${encodeURIComponent(secret)}@127.0.0.1:6379`, REDIS_KEY_PREFIX: `secrets-${run}:` }),
  },
  {
    name: 'REDIS_URL with a password written raw, nothing listening',
    serve: false,
    // A raw / ? or # in the password can make the URL unparseable: refused as a setting (2) rather than unreachable (1).
    expectedCodes: [1, 2],
    env: (secret, user) => ({ REDIS_URL: `redis://${user}:${secret}@127.0.0.1:${refusingPort}/0` }),
  },
  {
    name: 'REDIS_URL that does not parse',
    serve: false,
    expectedCodes: [2],
    env: (secret, user) => ({ REDIS_URL: `redis://${user}:${secret}@127.0.0.1:99999` }),
  },
  {
    name: 'STORE_URL of a PostgreSQL that does not answer, and an API URL with userinfo',
    serve: false,
    expectedCodes: [1],
    env: (secret, user) => ({
      STORE_URL: `postgres://${user}:${encodeURIComponent(secret)}@127.0.0.1:${refusingPort}/wotd`,
      WOTD_API_URL: `http://${encodeURIComponent(user)}:${encodeURIComponent(secret)}@127.0.0.1:${refusingPort}`,
      WOTD_API_VARIANT: 'A',
    }),
  },
  {
    // The local Discord server refuses any other token with 401; one that is not a valid header fails before that.
    name: 'DISCORD_TOKEN refused by Discord',
    serve: false,
    expectedCodes: [1],
    env: (secret) => ({
      DISCORD_TOKEN: secret,
      DISCORD_API_URL: discord?.apiUrl ?? '',
      WOTD_API_URL: `http://127.0.0.1:${refusingPort}`,
      WOTD_API_VARIANT: 'A',
    }),
  },
];

/** Passwords with no space at either end: settings are trimmed, so an end space is not part of what is used. */
const processPasswords = fc.sample(
  password.filter((secret) => secret.trim() === secret && secret.length >= 8),
  { seed: SEED + 4, numRuns: 3 },
);
const processUsers = fc.sample(
  fc.array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'), { minLength: 3, maxLength: 8 }).map((chars) => `u${chars.join('')}`),
  { seed: SEED + 5, numRuns: 3 },
);

describe.each(SCENARIOS)('the real process: $name', (scenario) => {
  it('writes no piece of the password anywhere, nor in /healthz or /metrics', async () => {
    const control = `ctl${process.pid}${SCENARIOS.indexOf(scenario)}`;
    const controlRun = await runProcess(scenario.env('controlsecretvalue', 'controluser', control), scenario.serve, control);
    expect(scenario.expectedCodes, controlRun.text).toContain(controlRun.code);
    const publicText = normalised(controlRun.text, control);
    const runs = await Promise.all(
      processPasswords.map(async (secret, index) => {
        const run = `r${process.pid}${SCENARIOS.indexOf(scenario)}${index}`;
        const user = processUsers[index] ?? 'user';
        return { secret, run, outcome: await runProcess(scenario.env(secret, user, run), scenario.serve, run) };
      }),
    );
    for (const { secret, run, outcome } of runs) {
      expect(scenario.expectedCodes, outcome.text).toContain(outcome.code);
      // Only what this run wrote beyond the control run's public text can be a leak; the raw text is searched too.
      const text = normalised(outcome.text, run);
      expect(piecesFoundIn(text, secret, publicText), `password ${JSON.stringify(secret)} in:\n${outcome.text}`).toEqual([]);
      expect(outcome.text.includes(secret), outcome.text).toBe(false);
    }
    if (scenario.serve) expect(controlRun.text).toMatch(/\/healthz 200/);
  }, 120_000);
});
