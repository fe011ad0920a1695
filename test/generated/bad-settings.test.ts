import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.ts';
import { SETTING_NAMES } from '../../src/config/settings.ts';
import { seedOf } from './generated.ts';
import { childEnv } from '../support/child-env.ts';

/**
 * Every setting, with bad values of every kind that applies to it (a wrong scheme, an unreachable host, a folder
 * where a file belongs, a number out of range, a word that is not one of its choices, text of the wrong shape),
 * generated: each must stop the bot with one line on standard error that names the setting, exit 2 (1 for a server
 * that cannot be reached), and nothing else printed. Those refused as the settings load run through the CLI's entry
 * (main) in this process; those that get further (a server to reach, an address to listen on) and a sample of the
 * others run in the real process, in console mode and in Discord mode.
 */

const SEED = 3_207;
const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');

type Kind = 'scheme' | 'unreachable' | 'folder' | 'range' | 'choice' | 'shape';

let dir: string;
let folder: string;
let closedPort: number;

/** A loopback port nothing listens on: held, then let go. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

const otherScheme = (allowed: string[]) =>
  fc.stringMatching(/^[a-z][a-z0-9+.-]{1,9}$/).filter((scheme) => !allowed.includes(scheme)).map((scheme) => `${scheme}://somewhere.example/x`);
const outside = (min: number, max: number) =>
  fc.oneof(fc.integer({ min: -1_000_000, max: min - 1 }), fc.bigInt({ min: BigInt(max) + 1n, max: 10n ** 30n })).map(String);
const notOneOf = (choices: string[]) => fc.stringMatching(/^[a-zA-Z]{1,12}$/).filter((word) => !choices.includes(word.toLowerCase()) && !choices.includes(word));

/**
 * The bad values of each kind that apply to each setting: an arbitrary is sampled, a list is run in full (each
 * server a setting can name, out of reach). Those with no entry take any text (DISCORD_TOKEN: Discord says).
 */
function badValues(): Record<string, Partial<Record<Kind, fc.Arbitrary<string> | readonly string[]>>> {
  const http = ['http', 'https'];
  // Text that is not a whole number, for the number settings; text that is not a URL, for the URL settings.
  const notWhole = fc.oneof(fc.constantFrom('1.5', '12x', '0x10', '1e3', '-'), fc.stringMatching(/^[a-z]{1,8}$/));
  const notUrl = fc.constantFrom('not a url', 'http//x.example', 'https://', '//x.example/api', 'x.example');
  const number = (min: number, max: number) => ({ range: outside(min, max), shape: notWhole });
  return {
    WOTD_API_URL: { scheme: otherScheme(http), shape: notUrl },
    WOTD_SITE_URL: { scheme: otherScheme(http), shape: notUrl },
    DISCORD_API_URL: { scheme: otherScheme(http), shape: notUrl },
    WOTD_MIRROR: { scheme: otherScheme(http), folder: fc.constant(folder) },
    STORE_URL: {
      scheme: otherScheme(['sqlite', 'postgres', 'postgresql', 'redis', 'rediss', 'memory']),
      unreachable: [`postgres://wotd:secret@127.0.0.1:${closedPort}/wotd`, `redis://:secret@127.0.0.1:${closedPort}/0`],
      folder: fc.constant(`sqlite://${folder}`),
    },
    REDIS_URL: {
      scheme: otherScheme(['redis', 'rediss']),
      unreachable: [`redis://:secret@127.0.0.1:${closedPort}`, `rediss://:secret@127.0.0.1:${closedPort}`],
    },
    WOTD_SERVICE_DB: { folder: fc.constant(folder) },
    WOTD_RATE_LIMIT: number(1, Number.MAX_SAFE_INTEGER),
    WOTD_TIMEOUT_MS: number(1, 2 ** 31 - 1),
    SUBSCRIPTION_LIMIT: number(1, Number.MAX_SAFE_INTEGER),
    DELIVERY_CONCURRENCY: number(1, Number.MAX_SAFE_INTEGER),
    DELIVERY_RETENTION_DAYS: number(3, Number.MAX_SAFE_INTEGER),
    DELIVERY_CLAIM_LEASE_MS: number(2000, 600_000),
    DISCORD_GLOBAL_RATE_LIMIT: number(1, Number.MAX_SAFE_INTEGER),
    METRICS_PORT: number(0, 65_535),
    DISCORD_SHARD_COUNT: { range: fc.constantFrom('0', '4097', '99999999999'), shape: notOneOf(['auto']) },
    DISCORD_SHARD_IDS: { range: fc.constantFrom('5-2', '9999'), shape: fc.constantFrom('x', '1-', ',', '0..3') },
    WOTD_API_VARIANT: { choice: notOneOf(['a', 'b', 'auto']) },
    WOTD_RATE_LIMIT_SCOPE: { choice: notOneOf(['service', 'endpoint']) },
    LOG_LEVEL: { choice: notOneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) },
    LOG_FORMAT: { choice: notOneOf(['auto', 'pretty', 'json']) },
    CONSOLE_LANGUAGE: { shape: fc.constantFrom('x', 'english!', '12', 'de DE') },
    REDIS_KEY_PREFIX: { shape: fc.constantFrom('a b', 'x/y', 'é:', '{tag}') },
    DISCORD_APPLICATION_ID: { shape: fc.oneof(fc.stringMatching(/^\d{1,16}$/), fc.stringMatching(/^\d{21,25}$/), fc.constant('my-app')) },
    // An address that is not this machine's: binding it fails (nothing is sent anywhere).
    METRICS_HOST: { unreachable: ['192.0.2.1'], shape: fc.constantFrom('local host', 'a/b', 'host_name') },
  };
}

/** Settings that take any text: nothing to refuse before Discord answers (test/bot/login-backoff.test.ts covers that). */
const ANY_TEXT = ['DISCORD_TOKEN'];

interface Case {
  setting: string;
  kind: Kind;
  value: string;
  mode: 'console' | 'discord';
}

function cases(): Case[] {
  const all: Case[] = [];
  const values = badValues();
  for (const setting of SETTING_NAMES) {
    for (const [kind, given] of Object.entries(values[setting] ?? {}) as Array<[Kind, fc.Arbitrary<string> | readonly string[]]>) {
      const chosen = Array.isArray(given) ? given : fc.sample(given as fc.Arbitrary<string>, { numRuns: 2, seed: seedOf(SEED + all.length) });
      for (const value of chosen) {
        for (const mode of ['console', 'discord'] as const) all.push({ setting, kind, value, mode });
      }
    }
  }
  return all;
}

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function caseEnv(test: Case): NodeJS.ProcessEnv {
  const env = childEnv({
    STORE_URL: `sqlite://${join(dir, `${test.mode}-${test.setting}.sqlite`)}`,
    WOTD_MIRROR: 'off',
    ...(test.setting === 'METRICS_HOST' ? { METRICS_PORT: '0' } : {}),
    // Discord mode reaches nothing: a closed loopback port, were it ever to try.
    ...(test.mode === 'discord' ? { DISCORD_TOKEN: 'a.token.never.sent', DISCORD_API_URL: `http://127.0.0.1:${closedPort}/api` } : {}),
    [test.setting]: test.value,
  });
  return env;
}

function runProcess(test: Case): Promise<Outcome> {
  const env = caseEnv(test);
  const child = spawn(process.execPath, [BIN, test.mode === "console" ? "console" : "start"], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // A case that starts the bot after all is a failure of this test: stopped after 15 s, it exits 0 and is reported.
  const timer = setTimeout(() => child.kill('SIGTERM'), 15_000);
  return new Promise((done) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    }),
  );
}

/** The same through main() in this process, stdout and stderr captured: for the cases refused before anything opens. */
async function runInProcess(test: Case): Promise<Outcome> {
  const captured = { stdout: '', stderr: '' };
  const capture = (stream: 'stdout' | 'stderr') =>
    ((chunk: string | Uint8Array) => {
      captured[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return true;
    }) as typeof process.stdout.write;
  const saved = { env: process.env, cwd: process.cwd(), stdout: process.stdout.write, stderr: process.stderr.write };
  process.env = caseEnv(test);
  process.chdir(dir);
  process.stdout.write = capture('stdout');
  process.stderr.write = capture('stderr');
  try {
    const code = await main([test.mode === 'console' ? 'console' : 'start']);
    return { code, ...captured };
  } finally {
    process.stdout.write = saved.stdout;
    process.stderr.write = saved.stderr;
    process.env = saved.env;
    process.chdir(saved.cwd);
  }
}

/** What the promise says of one case's outcome: null when kept. */
function broken(test: Case, outcome: Outcome): string | null {
  const where = `${test.mode} ${test.setting}=${JSON.stringify(test.value)} (${test.kind}) → exit ${outcome.code}: ${JSON.stringify(outcome.stderr.slice(0, 500))}`;
  const lines = outcome.stderr.split('\n').filter(Boolean);
  const line = lines[0] ?? '';
  const expectedCode = test.kind === 'unreachable' && test.setting !== 'METRICS_HOST' ? 1 : 2;
  if (outcome.code !== expectedCode) return `${where}: expected exit ${expectedCode}`;
  if (lines.length !== 1) return `${where}: expected one line`;
  if (!/^wotd-bot( [a-z-]+)?: /.test(line) || !line.includes(test.setting)) return `${where}: the line must name ${test.setting}`;
  if (line.length > 400) return `${where}: a line of ${line.length} characters`;
  if (outcome.stdout !== '') return `${where}: printed ${JSON.stringify(outcome.stdout.slice(0, 200))}`;
  if (line.includes('secret')) return `${where}: the password is shown`;
  return null;
}

/** Reaching a server or listening happens after the settings load: those kinds need the real process. */
const needsProcess = (test: Case) => test.kind === 'unreachable';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wotd-bad-settings-'));
  folder = join(dir, 'a-folder');
  await mkdir(folder);
  closedPort = await freePort();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('bad values of every kind for every setting, in the real process', () => {
  it('every setting has its kinds of bad values here, or takes any text', () => {
    const covered = Object.keys(badValues());
    expect(SETTING_NAMES.filter((name) => !covered.includes(name) && !ANY_TEXT.includes(name))).toEqual([]);
  });

  it('each stops with one line naming the setting, exit 2 (1 for a server out of reach), nothing else printed', async () => {
    const all = cases();
    expect(all.length).toBeGreaterThan(100);
    const failures: string[] = [];
    for (const test of all.filter((one) => !needsProcess(one))) {
      const problem = broken(test, await runInProcess(test));
      if (problem) failures.push(`in-process ${problem}`);
    }
    // The real process for the kinds that need it, and for a sample of the others (each process costs about half a
    // second of CPU to load the bot): the same promise from bin/wotd-bot.js.
    const sample = fc.sample(fc.constantFrom(...all.filter((one) => !needsProcess(one))), { numRuns: 4, seed: seedOf(SEED) });
    const inProcesses = [...all.filter(needsProcess), ...sample];
    for (let start = 0; start < inProcesses.length; start += 4) {
      const outcomes = await Promise.all(inProcesses.slice(start, start + 4).map(async (test) => broken(test, await runProcess(test))));
      failures.push(...outcomes.filter((problem): problem is string => problem !== null));
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
