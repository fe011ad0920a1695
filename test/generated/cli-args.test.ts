import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { startCommandWorld, type CommandWorld } from '../commands/world.ts';
import { makeSubscription } from '../schedule/helpers.ts';
import { tempDir } from '../service/http.ts';
import {
  DATES,
  expectSpecific,
  nastyText,
  NUMBERS,
  PROPERTY_TIMEOUT_MS,
  QUOTES,
  RUNS,
  settings,
  TERMINAL_CONTROL,
  trackUnhandled,
  withinBound,
} from './generated.ts';

/**
 * Generated argument sets for `wotd-bot` (query, history, find, serve, migrate-store, deploy-commands, start, help,
 * unknown commands), run in-process through the CLI's real entry (main) with stdout and stderr captured, and a few
 * of them through the real binary: each ends with a documented exit code and, when it fails, a specific line on
 * stderr; never a stack trace, a control character from the input, or a hang. Lookups reach our service on loopback.
 */

const SEED = 3_661;
const ROOT = resolve(import.meta.dirname, '../..');

const SUBCOMMANDS = ['query', 'history', 'find', 'serve', 'migrate-store', 'deploy-commands', 'start', 'console', '--version'];
const FLAGS = [
  '--json', '--api-url', '--variant', '--limit', '--help', '-h', '--port', '--host', '--db', '--rate-limit', '--from', '--to',
  '--guild', '--shards', '--shard-ids', '--', '-', '--x', '-j', '--JSON', '--limit=', '--port=', '--from=', '--to=',
];

let world: CommandWorld;
let dir: Awaited<ReturnType<typeof tempDir>>;
/** A store holding one subscription, for migrate-store to copy from. */
let storeFile: string;

/** Values near what the flags take; paths are relative, so they land in the temporary working directory. */
function nearValues(): string[] {
  return [
    ...DATES, ...NUMBERS, 'A', 'B', 'auto', 'b ', 'C', '8080', '0', '65535', '65536', '127.0.0.1', '::1', '', ' ', 'localhost',
    world.proxy.url, `${world.proxy.url}/`, 'http://127.0.0.1:1', 'ftp://x', 'api.wotd.site', 'https://', 'serendipity', 'echo',
    'missing.sqlite', 'words.sqlite', '.', 'package.json', 'sqlite://copy.sqlite', `sqlite://${storeFile}`, 'sqlite://', 'sqlite://:memory:',
    'redis://127.0.0.1:1', 'rediss://user:secret@127.0.0.1:1/2', 'memory://', '123456789012345678', '1234', 'auto', '0-3', '4',
  ];
}

/**
 * Arguments that would reach beyond the machine are pointed back at it: a URL with another host goes to a closed
 * loopback port (a generated "https://example.com" must not be looked up), and an absolute store path moves into
 * the temporary directory.
 */
function keepLocal(argument: string): string {
  return argument
    .replace(/\b(https?|rediss?):\/\/(?:[^/@\s]*@)?(?!127\.0\.0\.1[:/]|127\.0\.0\.1$)[^/\s?#]*/gi, (_match, scheme: string) => `${scheme}://127.0.0.1:1`)
    .replace(/\bsqlite:\/\/\/+/gi, `sqlite://${dir.dir}/`);
}

/** Near values for the flags of each command (or anything at all), and a command's own positional arguments. */
function commandSpecs(): Record<string, { flags: Record<string, string[] | null>; positionals: string[]; most: number }> {
  const urls = [world.proxy.url, `${world.proxy.url}/`, 'http://127.0.0.1:1', 'ftp://x', 'api.wotd.site', 'https://', ' ', ''];
  const variants = ['A', 'B', 'auto', 'b ', 'AUTO', 'C', ''];
  const common = { '--json': null, '--api-url': urls, '--variant': variants, '--help': null };
  return {
    query: { flags: common, positionals: [...DATES, 'NaN', ''], most: 2 },
    history: { flags: { ...common, '--limit': [...NUMBERS, '3', '8', '1', ' 2 '] }, positionals: DATES, most: 2 },
    find: { flags: common, positionals: ['serendipity', 'Serendipity', 'echo', 'ECHO', 'mark_down', 'zzz', ' ', 'a'.repeat(101), '--x'], most: 3 },
    serve: {
      flags: {
        '--port': ['0', '8080', '65535', '65536', '-1', 'http', ''],
        '--host': ['127.0.0.1', '::1', '0.0.0.0', '', ' ', 'no.such.host.invalid'],
        '--variant': variants,
        '--db': ['missing.sqlite', 'words.sqlite', 'a-directory', '.', 'package.json', '', ' '],
        '--rate-limit': [...NUMBERS, '1000000', '1000001'],
        '-h': null,
      },
      positionals: ['extra'],
      most: 1,
    },
    'migrate-store': {
      flags: {
        '--from': [`sqlite://${storeFile}`, 'sqlite://copy.sqlite', 'sqlite://missing.sqlite', 'sqlite://', 'redis://127.0.0.1:1', 'memory://', 'words.sqlite', ''],
        '--to': ['sqlite://copy.sqlite', `sqlite://${storeFile}`, 'sqlite://a-directory', 'rediss://user:secret@127.0.0.1:1/2', 'sqlite://:memory:', 'x://y', ''],
      },
      positionals: ['extra'],
      most: 1,
    },
    'deploy-commands': { flags: { '--guild': ['123456789012345678', '1234', '', '-1'] }, positionals: ['extra'], most: 1 },
    start: { flags: { '--shards': ['auto', '8', '0', '4097', 'many', ''], '--shard-ids': ['0-3', '3-0', '0,2,4', '9', 'x', ''] }, positionals: ['NaN'], most: 1 },
  };
}

/** A command with some of its own flags, written as `--flag value`, `--flag=value` or without the value. */
function structuredArgv(): fc.Arbitrary<string[]> {
  const specs = commandSpecs();
  const anything = nastyText({ extra: [...QUOTES, ...FLAGS], maxPieces: 4, huge: 5_000 });
  return fc.constantFrom(...Object.keys(specs)).chain((name): fc.Arbitrary<string[]> => {
    const spec = specs[name] as (typeof specs)[string];
    const flagNames = Object.keys(spec.flags);
    const flag = fc.constantFrom(...flagNames).chain((flagName): fc.Arbitrary<string[]> => {
      const values = spec.flags[flagName];
      if (!values) return fc.constant([flagName]);
      const value = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: anything });
      return fc
        .tuple(value, fc.constantFrom('space', 'equals', 'missing'))
        .map(([text, how]) => (how === 'space' ? [flagName, text] : how === 'equals' ? [`${flagName}=${text}`] : [flagName]));
    });
    const positional = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...spec.positionals) }, { weight: 1, arbitrary: anything });
    return fc
      .tuple(fc.array(flag, { maxLength: flagNames.length }), fc.array(positional, { maxLength: spec.most }), fc.boolean())
      .map(([flags, positionals, flagsFirst]) => {
        const given = flags.flat();
        return [name, ...(flagsFirst ? [...given, ...positionals] : [...positionals, ...given])];
      });
  });
}

/** Any tokens at all after any command name. */
function tokenSoup(): fc.Arbitrary<string[]> {
  const value = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...nearValues()) },
    { weight: 2, arbitrary: nastyText({ extra: [...QUOTES, ...FLAGS], maxPieces: 5, huge: 5_000 }) },
  );
  const token = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...FLAGS) },
    { weight: 3, arbitrary: value },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...FLAGS.filter((flag) => flag.startsWith('--'))), value).map(([flag, text]) => `${flag}=${text}`) },
  );
  const head = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...SUBCOMMANDS) },
    { weight: 1, arbitrary: fc.constantFrom('help', '--help', '-h', 'QUERY', 'serve ', 'wotd', '') },
    { weight: 1, arbitrary: nastyText({ maxPieces: 3 }) },
  );
  return fc.tuple(head, fc.array(token, { maxLength: 6 })).map(([name, rest]) => [name, ...rest]);
}

function argvArbitrary(): fc.Arbitrary<string[]> {
  return fc
    .oneof({ weight: 7, arbitrary: structuredArgv() }, { weight: 3, arbitrary: tokenSoup() }, { weight: 1, arbitrary: fc.constant([]) })
    .map((argv) => argv.map(keepLocal));
}

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs main() with process.stdout and process.stderr captured (and restored afterwards). */
async function runInProcess(argv: string[]): Promise<Outcome> {
  const captured = { stdout: '', stderr: '' };
  const capture = (stream: 'stdout' | 'stderr') =>
    ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
      captured[stream] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') done();
      return true;
    }) as typeof process.stdout.write;
  const original = { stdout: process.stdout.write, stderr: process.stderr.write };
  // `start` without a token is the console; with the embedded service missing, it stops before reading stdin.
  const startsConsole = ['start', 'console'].includes(argv[0] ?? 'start');
  const apiUrl = process.env.WOTD_API_URL;
  if (startsConsole) delete process.env.WOTD_API_URL;
  process.stdout.write = capture('stdout');
  process.stderr.write = capture('stderr');
  try {
    const code = await main(argv);
    return { code, ...captured };
  } finally {
    process.stdout.write = original.stdout;
    process.stderr.write = original.stderr;
    if (startsConsole) process.env.WOTD_API_URL = apiUrl;
  }
}

/** Exit codes the README documents for each command: lookups add 3 (the service failed). */
function documentedCodes(argv: string[]): number[] {
  return ['query', 'history', 'find'].includes(argv[0] ?? '') ? [0, 1, 2, 3] : [0, 1, 2];
}

function expectWellEnded(argv: string[], outcome: Outcome): void {
  const where = `wotd-bot ${JSON.stringify(argv).slice(0, 300)} → ${outcome.code}\nstderr: ${outcome.stderr.slice(-600)}`;
  expect(documentedCodes(argv), where).toContain(outcome.code);
  for (const [name, text] of [['stdout', outcome.stdout], ['stderr', outcome.stderr]] as const) {
    expect(TERMINAL_CONTROL.test(text), `${where}\n${name} has a control character: ${JSON.stringify(text.slice(0, 300))}`).toBe(false);
    expect(text, `${where}\n${name} has a stack trace`).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  }
  if (outcome.code === 0) {
    expect(outcome.stdout.trim(), `${where}: exit 0 printed nothing`).not.toBe('');
    return;
  }
  // The reason is one line of its own, "wotd-bot[ command]: …", wherever the usage text is around it.
  const reasons = outcome.stderr.split('\n').filter((line) => /^wotd-bot( [a-z-]+)?: /.test(line));
  expect(reasons.length, `${where}: no line on stderr says what was wrong`).toBeGreaterThanOrEqual(1);
  for (const reason of reasons) {
    expectSpecific(reason.replace(/^wotd-bot( [a-z-]+)?: /, ''), where, argv.join(' '));
    expect(reason.length, `${where}: a reason of ${reason.length} characters`).toBeLessThanOrEqual(400);
  }
}

const unhandled = trackUnhandled();
const saved = { env: { ...process.env }, cwd: process.cwd() };

beforeAll(async () => {
  world = await startCommandWorld();
  dir = await tempDir('generated-cli');
  storeFile = join(dir.dir, 'source.sqlite');
  const store = await SubscriptionStore.open(`sqlite://${storeFile}`);
  await store.upsert('g1', 'c1', 5, () => makeSubscription({ guildId: 'g1', channelId: 'c1' }));
  await store.close();
  writeFileSync(join(dir.dir, 'words.sqlite'), 'not a database');
  mkdirSync(join(dir.dir, 'a-directory'));
  // The CLI reads .env from, and writes relative store paths to, its working directory: a temporary one.
  process.chdir(dir.dir);
  for (const name of ['REDIS_URL', 'DISCORD_TOKEN', 'DISCORD_APPLICATION_ID', 'DISCORD_SHARD_COUNT', 'DISCORD_SHARD_IDS', 'WOTD_API_VARIANT', 'LOG_LEVEL']) {
    delete process.env[name];
  }
  Object.assign(process.env, {
    WOTD_API_URL: world.proxy.url,
    STORE_URL: 'memory://',
    WOTD_SERVICE_DB: join(dir.dir, 'missing.sqlite'),
    WOTD_RATE_LIMIT: '5000',
    LOG_LEVEL: 'silent',
  });
});

afterAll(async () => {
  unhandled.stop();
  process.chdir(saved.cwd);
  process.env = saved.env;
  await world?.close();
  await dir?.cleanup();
  expect(unhandled.problems).toEqual([]);
});

describe('generated wotd-bot argument sets', () => {
  it('end in-process with a documented exit code and, on failure, a specific line on stderr', async () => {
    await fc.assert(
      fc.asyncProperty(argvArbitrary(), async (argv) => {
        let outcome: Outcome;
        try {
          outcome = await withinBound(`wotd-bot ${JSON.stringify(argv).slice(0, 300)}`, runInProcess(argv));
        } catch (error) {
          throw new Error(`wotd-bot ${JSON.stringify(argv).slice(0, 300)} threw out of main(): ${String(error)}`, { cause: error });
        }
        expectWellEnded(argv, outcome);
      }),
      settings(SEED, RUNS),
    );
  }, PROPERTY_TIMEOUT_MS);

  it('the real binary ends the same way as the in-process run for a sample of them', async () => {
    const sample = fc.sample(argvArbitrary(), { numRuns: 6, seed: SEED });
    for (const argv of sample) {
      const inProcess = await runInProcess(argv);
      const child = await new Promise<Outcome>((done) => {
        const env = { ...process.env };
        if (['start', 'console'].includes(argv[0] ?? 'start')) delete env.WOTD_API_URL;
        execFile(process.execPath, [join(ROOT, 'bin/wotd-bot.js'), ...argv], { cwd: dir.dir, env, timeout: 30_000 }, (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          done({ code, stdout, stderr });
        });
      });
      expectWellEnded(argv, child);
      expect(child.code, `wotd-bot ${JSON.stringify(argv)}`).toBe(inProcess.code);
      const reason = (text: string) => text.split('\n').filter((line) => line.startsWith('wotd-bot'));
      expect(reason(child.stderr), `wotd-bot ${JSON.stringify(argv)}`).toEqual(reason(inProcess.stderr));
    }
  }, PROPERTY_TIMEOUT_MS);
});
