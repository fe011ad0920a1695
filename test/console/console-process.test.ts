import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeWordDb } from '../../src/service/word-db.ts';
import { testEntries } from '../commands/world.ts';
import { describeRedis, keysUnder, redisTestUrl, useRedisPrefix } from '../support/redis.ts';
import { readSnapshot } from '../support/upstream/snapshot-file.ts';
import { expectInOrder, startBot } from './console-process.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wotd-console-'));
  await writeWordDb(join(dir, 'words.sqlite'), testEntries());
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const startBotIn = (extraEnv: Record<string, string> = {}) => startBot(dir, extraEnv);

describe('wotd-bot start without DISCORD_TOKEN: the console', () => {
  it('shows the first screen, prints embeds, presses buttons and exits on exit', async () => {
    const { child, exited } = startBotIn();
    child.stdin.end(
      [
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
        '',
      ].join('\n'),
    );
    const result = await exited;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.startsWith('wotd-bot: console mode\n')).toBe(true);
    expectInOrder(result.stdout, [
      'offline, answering from the embedded Word-of-the-Day service',
      'DISCORD_TOKEN',
      'npm run deploy-commands',
      [
        '│ serendipity  <https://wotd.site>',
        '│',
        '│ noun · /ˌsɛɹ.ənˈdɪp.ɪ.ti/',
        '│',
        '│ (historical) The "happy" faculty of finding things by *chance*.',
        '│',
        '│ 2025-01-14 · Word of the Day from wotd.site',
      ].join('\n'),
      '│ Words of the day before 14 January 2025',
      '│ mark_down · 2025-01-13',
      '[1: Older]',
      '(the message above is updated)',
      '│ Words of the day before 12 January 2025',
      '│ serendipity: word of the day once',
      '│ 2025-01-14 · noun · /ˌsɛɹ.ənˈdɪp.ɪ.ti/ — (historical) The "happy" faculty',
      '(only you can see this)\n“serendipty” has not been a word of the day, as far as the service knows. Did you mean serendipity?',
      '(only you can see this)\nThe word of the day for 1 January 2999 has not been revealed yet.',
      '/wotd-history limit must be a whole number from 1 to 8; 12 is not.',
      'There is no command /wotd-nonsense.',
    ]);
    // Nothing after `exit` is run.
    expect(result.stdout).not.toContain('2025-01-13 · Word of the Day');
  });

  it('ends cleanly at the end of input (Ctrl-D) and on SIGTERM', async () => {
    const piped = startBotIn();
    piped.child.stdin.end('/wotd date:14-01-2025\n');
    const ended = await piped.exited;
    expect(ended.code).toBe(0);
    expect(ended.stdout).toContain('│ 2025-01-14 · Word of the Day from wotd.site');

    const waiting = startBotIn();
    await new Promise<void>((resolveBanner) => {
      waiting.child.stdout.on('data', () => {
        if (waiting.run.stdout.includes('npm start')) resolveBanner();
      });
    });
    waiting.child.kill('SIGTERM');
    const stopped = await waiting.exited;
    expect(stopped.code).toBe(0);
    expect(stopped.stderr).toBe('');
  });

  it('its embedded service offers the monthly database snapshots a mirror downloads (issue 23)', async () => {
    const { child, run, exited } = startBotIn({ LOG_LEVEL: 'info' });
    const apiUrl = await new Promise<string>((found, fail) => {
      const look = (): void => {
        const line = run.stderr.split('\n').find((text) => text.includes('embedded Word-of-the-Day service'));
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

  it('a bad setting prints one line and exits 2', async () => {
    const { child, exited } = startBotIn({ WOTD_RATE_LIMIT: 'lots' });
    child.stdin.end();
    const result = await exited;
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('wotd-bot: Invalid WOTD_RATE_LIMIT="lots": expected a whole number of requests per minute, at least 1\n');
    expect(result.stdout).toBe('');
  });
});

describeRedis('wotd-bot start with REDIS_URL', () => {
  const redis = useRedisPrefix();

  it('keeps the cache and the subscriptions on Redis under REDIS_KEY_PREFIX, and nothing in STORE_URL', async () => {
    const { child, exited } = startBotIn({ REDIS_URL: redisTestUrl ?? '', REDIS_KEY_PREFIX: redis.prefix });
    child.stdin.end('/wotd-subscribe channel:#words time:07:30\n/wotd date:2025-01-14\n');
    const result = await exited;
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Subscribed #words');
    expect(result.stdout).toContain('│ 2025-01-14 · Word of the Day from wotd.site');
    const keys = await keysUnder(redis.prefix);
    expect(keys).toContain(`${redis.prefix}subscriptions::sub:words`);
    expect(keys).toContain(`${redis.prefix}wotd-cache::e:2025-01-14`);
    expect(existsSync(join(dir, 'store.sqlite'))).toBe(false);
  });
});
