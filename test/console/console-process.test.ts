import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NO_INPUT_NOTE } from '../../src/console/console.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { testEntries } from '../commands/world.ts';
import { describeRedis, keysUnder, redisClient, redisTestUrl, useRedisPrefix } from '../support/redis.ts';
import { readSnapshot } from '../support/upstream/snapshot-file.ts';
import { expectCleanExit, expectInOrder, FIRST_SCREEN, runConsole, startBot } from './console-process.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wotd-console-'));
  await writeWordDb(join(dir, 'words.sqlite'), testEntries());
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const startBotIn = (extraEnv: Record<string, string> = {}) => startBot(dir, extraEnv);
const runConsoleIn = (lines: readonly string[], extraEnv: Record<string, string> = {}) => runConsole(dir, lines, extraEnv);

describe('wotd-bot start without DISCORD_TOKEN and without a terminal', () => {
  it('refuses, exit 2, in one line naming DISCORD_TOKEN and the console command, instead of a console nobody can use', async () => {
    // What systemd, pm2 and containers give a process: no terminal on any standard stream, an empty stdin.
    const { child, exited } = startBot(dir, { METRICS_PORT: '0' }, 'start');
    child.stdin.end();
    const run = await exited;
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    const lines = run.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^wotd-bot start: DISCORD_TOKEN is not set .*`wotd-bot console` \(npm run console\)$/);
  });

  it('a mistyped token name in .env gets a "did you mean" warning line before that refusal', async () => {
    await writeFile(join(dir, '.env'), 'DISCORD_TOKN=abc\nlog_levl=debug\n');
    const { child, exited } = startBot(dir, {}, 'start');
    child.stdin.end();
    const run = await exited;
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n').filter(Boolean)).toEqual([
      'wotd-bot start: warning: DISCORD_TOKN is not a wotd-bot setting, and is ignored; did you mean DISCORD_TOKEN?',
      'wotd-bot start: warning: log_levl is not a wotd-bot setting, and is ignored; did you mean LOG_LEVEL?',
      expect.stringMatching(/^wotd-bot start: DISCORD_TOKEN is not set /),
    ]);
  });
});

describe('a mistyped setting name in the environment', () => {
  it('gets its warning line once, and the bot runs on: the console answers and exits 0', async () => {
    const result = await runConsoleIn(['/wotd date:2025-01-14'], { LOG_LEVL: 'debug' });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('│ serendipity');
    const warning = 'wotd-bot console: warning: LOG_LEVL is not a wotd-bot setting, and is ignored; did you mean LOG_LEVEL?\n';
    // The warning first, then the first screen as always, and nothing else.
    expect(result.stderr.startsWith(warning)).toBe(true);
    const rest = result.stderr.slice(warning.length);
    expect(rest).toMatch(FIRST_SCREEN);
    expect(rest.replace(FIRST_SCREEN, '')).toBe('');
  });
});

describe('wotd-bot console: the console on purpose', () => {
  it('shows the first screen, prints embeds, presses buttons and exits on exit', async () => {
    const result = await runConsoleIn([
      '/wotd date:2025-01-14',
      '/wotd-history date:2025-01-14 limit:2',
      'press Older',
      '/wotd-find word:"serendipity"',
      '/wotd-find word:serendipty',
      '/wotd date:2999-01-01',
      '/wotd-history limit:12',
      '/wotd-nonsense',
      'exit',
      '/wotd date:2025-01-13',
    ]);
    expectCleanExit(result);
    // The first screen is on stderr: stdout carries the replies only.
    expect(result.stderr.startsWith('wotd-bot: console mode\n')).toBe(true);
    expect(result.stdout).not.toContain('console mode');
    expectInOrder(result.stderr, ['offline, answering from the embedded Word-of-the-Day service', 'DISCORD_TOKEN', 'npm run deploy-commands']);
    expectInOrder(result.stdout, [
      [
        '│ serendipity  <https://wotd.site>',
        '│',
        '│ noun · /ˌsɛɹ.ənˈdɪp.ɪ.ti/',
        '│',
        '│ (historical) The "happy" faculty of finding things by *chance*.',
        '│',
        '│ 2025-01-14 · Word of the Day from wotd.site',
      ].join('\n'),
      'message #1: [1: Save]',
      '│ Words of the day before 14 January 2025',
      '│ mark_down · 2025-01-13',
      'message #2: [1: Older]  [2: Save: mark_down]  [3: Save: abide3]',
      'Pressed Older on message #2 (/wotd-history date:2025-01-14 limit:2).\n(message #2 is updated)\n│ Words of the day before 12 January 2025',
      '│ serendipity: word of the day once',
      '│ 2025-01-14 · noun · /ˌsɛɹ.ənˈdɪp.ɪ.ti/ — (historical) The "happy" faculty',
      '(only you can see this)\n“serendipty” has not been a word of the day, as far as the service knows. Did you mean serendipity?',
      "(only you can see this)\nThere is no word of the day for 1 January 2999 yet: the service reveals each day's word on that day (UTC).",
      '/wotd-history limit must be a whole number from 1 to 8; 12 is not.',
      'There is no command /wotd-nonsense.',
    ]);
    // Nothing after `exit` is run.
    expect(result.stdout).not.toContain('2025-01-13 · Word of the Day');
  });

  it('press acts on the latest message with buttons unless a number names another, and says which it pressed', async () => {
    const result = await runConsoleIn([
      '/wotd-history date:2025-01-14 limit:2',
      '/wotd-data forget',
      // The latest message with buttons is #2 (Erase, Keep it): its Older is not there, and #1's is not pressed unasked.
      'press Older',
      'press #1 Older',
      'press #2 2',
      'press #7 1',
    ]);
    expectCleanExit(result);
    expectInOrder(result.stdout, [
      '│ Words of the day before 14 January 2025',
      'message #1: [1: Older]  [2: Save: mark_down]  [3: Save: abide3]',
      'message #2: [1: Erase]  [2: Keep it]',
      'Message #2 has no button “Older”. Its buttons: [1: Erase]  [2: Keep it]. Message #1 has one: press #1 Older\n',
      'Pressed Older on message #1 (/wotd-history date:2025-01-14 limit:2).\n(message #1 is updated)\n│ Words of the day before 12 January 2025',
      'Pressed Keep it on message #2 (/wotd-data forget).',
      'There is no message #7 with buttons to press; the latest is #',
    ]);
    // Only the one Older press went through.
    expect(result.stdout.split('│ Words of the day before 12 January 2025').length).toBe(2);
  });

  it('subscribing again says what changed, from what to what, or that nothing did', async () => {
    const result = await runConsoleIn([
      '/wotd-subscribe channel:#words time:07:30',
      '/wotd-subscribe channel:#words time:08:15 timezone:Europe/London role:@readers style:compact thread:true',
      '/wotd-subscribe channel:#words time:08:15 timezone:Europe/London role:@readers style:compact thread:true',
      '/wotd-subscribe channel:#words time:08:30',
      '/wotd-subscribe channel:#words reset:all',
      '/wotd-subscribe-me time:07:00',
      '/wotd-subscribe-me time:06:45 timezone:Asia/Tokyo',
    ]);
    expectCleanExit(result);
    expectInOrder(result.stdout, [
      'Subscribed #words: the word of the day every day at 07:30 (UTC).',
      'Updated #words: the word of the day every day at 08:15 (Europe/London), compact (word, IPA and a one-line definition), ' +
        'mentioning @readers, with a thread on each post. Changed: the time from 07:30 to 08:15, the time zone from UTC to ' +
        'Europe/London, the role from none to @readers, the style from full to compact, a thread on each post from off to on.',
      'Updated #words: the word of the day every day at 08:15 (Europe/London), compact (word, IPA and a one-line definition), ' +
        'mentioning @readers, with a thread on each post. Nothing changed: it had these settings already.',
      // Options left out keep what the subscription has.
      'Updated #words: the word of the day every day at 08:30 (Europe/London), compact (word, IPA and a one-line definition), ' +
        'mentioning @readers, with a thread on each post. Changed: the time from 08:15 to 08:30.',
      'Updated #words: the word of the day every day at 09:00 (UTC). Changed: the time from 08:30 to 09:00, the time zone from ' +
        'Europe/London to UTC, the role from @readers to none, the style from compact to full, a thread on each post from on to off.',
      "Subscribed: I'll DM you the word of the day every day at 07:00 (UTC).",
      "Updated: I'll DM you the word of the day every day at 06:45 (Asia/Tokyo). Changed: the time from 07:00 to 06:45, the time zone from UTC to Asia/Tokyo.",
    ]);
  });

  it('ends cleanly at the end of input (Ctrl-D) and on SIGTERM', async () => {
    const piped = startBotIn();
    piped.child.stdin.end('/wotd date:14-01-2025\n');
    const ended = await piped.exited;
    expect(ended.code).toBe(0);
    expect(ended.stdout).toContain('│ 2025-01-14 · Word of the Day from wotd.site');

    const waiting = startBotIn();
    await new Promise<void>((resolveBanner) => {
      waiting.child.stderr.on('data', () => {
        if (waiting.run.stderr.includes('npm start')) resolveBanner();
      });
    });
    waiting.child.kill('SIGTERM');
    const stopped = await waiting.exited;
    expectCleanExit(stopped);
  });

  it('its embedded service offers the monthly database snapshots a mirror downloads (issue 23)', async () => {
    const { child, run, exited } = startBotIn({ LOG_LEVEL: 'info' });
    const apiUrl = await new Promise<string>((found, fail) => {
      const look = (): void => {
        const line = run.stderr.split('\n').find((text) => text.startsWith('{') && text.includes('embedded Word-of-the-Day service'));
        if (line) found((JSON.parse(line) as { apiUrl: string }).apiUrl);
      };
      child.stderr.on('data', look);
      child.on('close', () => fail(new Error(`the console ended first: ${run.stderr}`)));
    });
    expect(apiUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const listing = await (await fetch(`${apiUrl}/databases`)).text();
    const months = [...listing.matchAll(/href="\/databases\/download\/wotd_(\d{4}-\d{2})\.db"/g)].map((match) => match[1] as string);
    // The words start in November 2024; every month that is over since then is offered, the current one never.
    expect(months).toContain('2024-12');
    expect(months).not.toContain(new Date().toISOString().slice(0, 7));
    const december = await fetch(`${apiUrl}/databases/download/wotd_2024-12.db`);
    expect(december.headers.get('content-type')).toBe('application/x-sqlite3');
    const rows = (await readSnapshot(Buffer.from(await december.arrayBuffer()))).rows;
    expect([rows[0]?.date, rows.at(-1)?.date]).toEqual(['2024-11-01', '2024-12-31']);
    child.stdin.end('exit\n');
    expect((await exited).code).toBe(0);
  });

  it('with no input at all (stdin closed) keeps serving METRICS_PORT until SIGTERM, then exits 0 and frees the port', async () => {
    // The README's metrics example: `METRICS_PORT=9464 npm run console </dev/null &`, scrape, `kill %1`.
    const { child, run, exited } = startBotIn({ METRICS_PORT: '0' });
    child.stdin.end();
    const url = await vi.waitFor(
      () => {
        const found = /Health and metrics: (http:\/\/127\.0\.0\.1:\d+)\/healthz/.exec(run.stderr)?.[1];
        if (!found) throw new Error(`no health URL on the first screen yet:\n${run.stdout}${run.stderr}`);
        return found;
      },
      { timeout: 20_000, interval: 50 },
    );
    await vi.waitFor(() => expect(run.stderr).toContain(NO_INPUT_NOTE), { timeout: 10_000, interval: 50 });
    // Still there after the end of its input.
    const health = await fetch(`${url}/healthz`);
    expect(await health.json()).toMatchObject({ status: 'ok', gateway: { status: 'not_applicable' } });
    await vi.waitFor(async () => expect(await (await fetch(`${url}/metrics`)).text()).toMatch(/^wotd_bot_scheduler_ticks_total\{outcome="ok"\} [1-9]/m), {
      timeout: 10_000,
      interval: 100,
    });
    expect(child.exitCode).toBe(null);

    child.kill('SIGTERM');
    const stopped = await exited;
    expect(stopped.code).toBe(0);
    expect(stopped.stderr.replace(FIRST_SCREEN, '')).toBe(`${NO_INPUT_NOTE}\n`);
    // The port is free again: something else can listen on it.
    const port = Number(new URL(url).port);
    const probe = createServer();
    await new Promise<void>((listening, failed) => probe.once('error', failed).listen(port, '127.0.0.1', listening));
    await new Promise<void>((closed) => probe.close(() => closed()));
  });

  it('a METRICS_PORT in use prints one line naming it, and exits 2, at the console and on Discord alike', async () => {
    const holder = createServer();
    await new Promise<void>((listening) => holder.listen(0, '127.0.0.1', listening));
    try {
      const { port } = holder.address() as AddressInfo;
      // On Discord the endpoint opens before the login, so no Discord server is needed to see it refused.
      for (const [command, env] of [['console', {}], ['start', { DISCORD_TOKEN: 'never-used' }]] as const) {
        const { child, exited } = startBot(dir, { METRICS_PORT: String(port), LOG_LEVEL: 'info', ...env }, command);
        child.stdin.end('exit\n');
        const result = await exited;
        expect(result.code).toBe(2);
        expect(result.stderr).toBe(
          `wotd-bot ${command}: METRICS_PORT ${port} is already in use on 127.0.0.1; choose another (each process of a cluster needs its own)\n`,
        );
        expect(result.stdout).toBe('');
      }
    } finally {
      await new Promise<void>((closed) => holder.close(() => closed()));
    }
  });

  it('with .env copied from .env.example, logs only warnings, as without one', async () => {
    await copyFile(resolve(import.meta.dirname, '../../.env.example'), join(dir, '.env'));
    const result = await runConsoleIn(['/wotd date:2025-01-14']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('│ 2025-01-14 · Word of the Day from wotd.site');
    expectCleanExit(result);
  });

  it('a bad setting prints one line and exits 2', async () => {
    const result = await runConsoleIn([], { WOTD_RATE_LIMIT: 'lots' });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('wotd-bot: Invalid WOTD_RATE_LIMIT="lots": expected a whole number of requests per minute, at least 1\n');
    expect(result.stdout).toBe('');
  });
});

describeRedis('wotd-bot start with REDIS_URL', () => {
  const redis = useRedisPrefix();

  it('keeps the cache and the subscriptions on Redis under REDIS_KEY_PREFIX, and nothing in STORE_URL; warns once if Redis keeps nothing on disk', async () => {
    const result = await runConsoleIn(['/wotd-subscribe channel:#words time:07:30', '/wotd date:2025-01-14'], {
      REDIS_URL: redisTestUrl ?? '',
      REDIS_KEY_PREFIX: redis.prefix,
    });
    const client = await redisClient();
    const durable = (await client.configGet('appendonly')).appendonly === 'yes' || ((await client.configGet('save')).save ?? '').trim() !== '';
    const logged = result.stderr.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string });
    // The console logs warnings only: this one is the whole of its log.
    expect(logged.map((line) => [line.level, line.msg.split(':')[0]])).toEqual(durable ? [] : [[40, 'Redis keeps nothing on disk (appendonly no, no save points)']]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Subscribed #words');
    expect(result.stdout).toContain('│ 2025-01-14 · Word of the Day from wotd.site');
    const keys = await keysUnder(redis.prefix);
    expect(keys).toContain(`${redis.prefix}subscriptions::sub:words`);
    expect(keys).toContain(`${redis.prefix}wotd-cache::e:2025-01-14`);
    expect(existsSync(join(dir, 'store.sqlite'))).toBe(false);
  });
});
