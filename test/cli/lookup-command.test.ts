import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { readWordDb } from '../../src/service/word-db.ts';
import { addDays, toWireDate, utcDateOf, type Variant } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { startScriptedUpstream } from '../support/upstream/scripted-upstream.ts';
import { tempDir } from '../wotd/harness.ts';

const DB_PATH = 'data/words.sqlite';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: { path: string; cleanup: () => Promise<void> };
let runs = 0;
let byDate: Map<string, Entry>;

/** Runs `wotd-bot …` as a user would, each run with its own cache file. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const store = `sqlite://${join(dir.path, `cli-${runs++}.sqlite`)}`;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/wotd-bot.js', ...args],
      { env: { ...process.env, STORE_URL: store, WOTD_API_URL: '', WOTD_API_VARIANT: '', REDIS_URL: '', ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

beforeAll(async () => {
  dir = await tempDir();
  byDate = new Map((await readWordDb(DB_PATH)).map((entry) => [entry.date, entry]));
});

afterAll(async () => {
  await dir.cleanup();
});

describe.each(['A', 'B'] as Variant[])('wotd-bot query/history/find against `serve`, variant %s', (variant) => {
  let service: RunningService;

  beforeAll(async () => {
    // Each CLI run is a process of its own with its own limiter, so the service's per-minute limit stays off here.
    service = await startWotdService({ dbPath: DB_PATH, variant, rateLimitPerMinute: 0 });
  });

  afterAll(async () => {
    await service.close();
  });

  it('answers all three lookups, as text and as JSON', async () => {
    const date = '2024-03-05';
    const entry = byDate.get(date) as Entry;
    const [text, json, history, historyText, find] = await Promise.all([
      cli(['query', toWireDate(date, 'B'), '--api-url', service.url]),
      cli(['query', date, '--json', '--api-url', service.url, '--variant', variant]),
      cli(['history', date, '--limit', '2', '--json', '--api-url', service.url]),
      cli(['history', date, '--limit', '2', '--api-url', service.url]),
      cli(['find', entry.word.toUpperCase(), '--json', '--api-url', service.url, '--variant', 'auto']),
    ]);
    expect(text).toMatchObject({ code: 0 });
    expect(text.stdout).toContain(`${date}  ${entry.word} (${entry.pos})  ${entry.ipa}`);
    expect(text.stdout).toContain(entry.definition);

    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(entry);

    expect(history.code).toBe(0);
    expect(JSON.parse(history.stdout)).toEqual({
      date,
      has_more: true,
      results: [byDate.get(addDays(date, -1)), byDate.get(addDays(date, -2))],
    });
    // The hint for the page before is a command that runs as given: how the bot was run here, the same service and limit.
    expect(historyText.code).toBe(0);
    expect(historyText.stdout).toContain(`(older words exist: try node bin/wotd-bot.js history ${addDays(date, -2)} --limit 2 --api-url ${service.url})`);

    expect(find.code).toBe(0);
    const { complete, results: found } = JSON.parse(find.stdout) as { complete: boolean; results: Entry[] };
    expect(complete).toBe(true);
    expect(found.map((candidate) => candidate.date)).toContain(date);
    expect(found.every((candidate) => candidate.word.toLowerCase() === entry.word.toLowerCase())).toBe(true);
    expect([...found].sort((a, b) => (a.date < b.date ? 1 : -1))).toEqual(found);
  });

  it("answers today's word when no date is given", async () => {
    const today = utcDateOf(new Date());
    const run = await cli(['query', '--json', '--api-url', service.url]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(byDate.get(today));
  });

  it('reads today and yesterday as the slash commands do', async () => {
    const today = utcDateOf(new Date());
    const [todays, yesterdays, history] = await Promise.all([
      cli(['query', 'today', '--json', '--api-url', service.url]),
      cli(['query', 'Yesterday', '--json', '--api-url', service.url]),
      cli(['history', 'yesterday', '--limit', '1', '--json', '--api-url', service.url]),
    ]);
    expect(todays.code, todays.stderr).toBe(0);
    expect(JSON.parse(todays.stdout)).toEqual(byDate.get(today));
    expect(yesterdays.code, yesterdays.stderr).toBe(0);
    expect(JSON.parse(yesterdays.stdout)).toEqual(byDate.get(addDays(today, -1)));
    expect(history.code, history.stderr).toBe(0);
    expect(JSON.parse(history.stdout)).toMatchObject({ date: addDays(today, -1), results: [byDate.get(addDays(today, -2))] });
  });

  it('says plainly that a day far ahead has no word yet, and when a near one is revealed', async () => {
    const today = utcDateOf(new Date());
    const [far, near] = await Promise.all([
      cli(['query', '2099-01-01', '--api-url', service.url]),
      cli(['query', addDays(today, 1), '--json', '--api-url', service.url]),
    ]);
    expect(far.code).toBe(2);
    expect(far.stderr).toBe(
      `wotd-bot: there is no word of the day for 2099-01-01 yet: the service reveals each day's word on that day (today is ${today}, UTC)\n`,
    );
    expect(near.code).toBe(2);
    expect(JSON.parse(near.stdout)).toMatchObject({ error: { code: 'future_date' } });
    expect(near.stderr).toMatch(
      new RegExp(`^wotd-bot: the word of the day for ${addDays(today, 1)} has not been revealed yet; it will be in \\d+ (min|h) \\(00:00 UTC, \\d\\d:\\d\\d:\\d\\d here\\)\\n$`),
    );
  });

  it('exits 1 for not found, 2 for invalid input, keeping stdout pure JSON', async () => {
    const [missingWord, missingDate, badDate, future, badLimit] = await Promise.all([
      cli(['find', 'qwertyuiop', '--json', '--api-url', service.url]),
      cli(['query', '2019-12-31', '--api-url', service.url]),
      cli(['query', '31-02-2024', '--json', '--api-url', service.url]),
      cli(['query', '2099-01-01', '--api-url', service.url]),
      cli(['history', '--limit', '9', '--api-url', service.url]),
    ]);
    expect(missingWord.code).toBe(1);
    expect(JSON.parse(missingWord.stdout)).toMatchObject({ error: { code: 'not_found' } });
    expect(missingWord.stderr).toMatch(/never been the word of the day/);
    expect(missingDate.code).toBe(1);
    expect(missingDate.stderr).toMatch(/no word of the day for 2019-12-31/);
    expect(badDate.code).toBe(2);
    expect(JSON.parse(badDate.stdout)).toMatchObject({ error: { code: 'invalid_input' } });
    expect(future.code).toBe(2);
    expect(future.stderr).toMatch(/there is no word of the day for 2099-01-01 yet/);
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toMatch(/--limit must be a whole number from 1 to 8/);
  });
});

describe('wotd-bot lookups when the service is down', () => {
  it('exits 3 with a clear message', async () => {
    // A port nobody listens on: start a service, note its address, close it.
    const closed = await startWotdService({ dbPath: DB_PATH, variant: 'A' });
    await closed.close();
    const run = await cli(['query', '2024-01-01', '--json', '--api-url', closed.url]);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'unavailable' } });
    expect(run.stderr).toMatch(/unavailable: connection failed/);
  });

  it('exits 2 for a bad --api-url or --variant without sending anything', async () => {
    const [url, variant] = await Promise.all([
      cli(['query', '--api-url', 'ftp://example.test']),
      cli(['find', 'word', '--variant', 'C', '--api-url', 'http://127.0.0.1:9']),
    ]);
    expect(url.code).toBe(2);
    expect(url.stderr).toMatch(/--api-url must be an http\(s\) URL/);
    expect(variant.code).toBe(2);
    expect(variant.stderr).toMatch(/--variant must be A, B or auto/);
  });
});

describe('wotd-bot lookups and the rate limit', () => {
  const entry = (): Entry => byDate.get('2024-03-05') as Entry;

  it('waits out a 429 saying so in one line, with the wait in seconds and the local time, then answers', async () => {
    const service = await startWotdService({ dbPath: DB_PATH, variant: 'A', rateLimitPerMinute: 0 });
    // In front of the real service: the first request is refused with a 429 (Retry-After: 2), the rest pass through.
    const seen: number[] = [];
    const front = createServer((request, response) => {
      if (seen.length === 0) {
        seen.push(429);
        response.writeHead(429, { 'retry-after': '2', 'content-type': 'application/json' }).end('{"error":"Too many requests"}');
        return;
      }
      void fetch(`${service.url}${request.url ?? '/'}`).then(async (answer) => {
        seen.push(answer.status);
        response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(await answer.text());
      });
    });
    await new Promise<void>((listening) => front.listen(0, '127.0.0.1', listening));
    try {
      const url = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
      const started = Date.now();
      const run = await cli(['query', '2024-03-05', '--variant', 'A', '--api-url', url], { TZ: 'Asia/Tokyo' });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(`2024-03-05  ${entry().word} (${entry().pos})`);
      // One line (not a line per request), no raw ISO time: the clock time in the machine's zone (here Tokyo's).
      const line = /^wotd-bot: the Word-of-the-Day service is busy \(rate limit\); waiting ([12]) s \(until (\d\d:\d\d:\d\d)\)\n$/.exec(run.stderr);
      expect(line, run.stderr).not.toBe(null);
      const tokyo = (instant: number) =>
        new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false, timeZone: 'Asia/Tokyo' }).format(instant);
      const possible = new Set(Array.from({ length: Date.now() - started + 4_000 }, (_, ms) => tokyo(started + ms)));
      expect(possible.has(line?.[2] ?? '')).toBe(true);
      expect(seen[0]).toBe(429);
      expect(seen.slice(1).every((status) => status === 200)).toBe(true);
    } finally {
      await new Promise<void>((closed) => front.close(() => closed()));
      await service.close();
    }
  });

  it('a wait longer than it takes on: at once, one line with when to try again, exit 3', async () => {
    const upstream = await startScriptedUpstream(() => ({ status: 429, headers: { 'retry-after': '300' }, body: 'slow down' }));
    try {
      const run = await cli(['query', '2024-03-05', '--variant', 'A', '--api-url', upstream.url]);
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(/^wotd-bot: the Word-of-the-Day service is busy \(rate limit\); try again in (299|300) s \(at \d\d:\d\d:\d\d\)\n$/);
      // The 429 is not asked again and again while the service has said when.
      expect(upstream.requests.length).toBeLessThanOrEqual(2);
    } finally {
      await upstream.close();
    }
  });
});

describe('wotd-bot with a mistyped command or option', () => {
  it('suggests the nearest one', async () => {
    const [command, option, far, serve, start, guild] = await Promise.all([
      cli(['hisotry']),
      cli(['history', '--limt', '3']),
      cli(['qwertyuiop']),
      cli(['serve', '--prot', '8080']),
      cli(['start', '--shard', '2']),
      cli(['deploy-commands', '--gild', '123456789012345678']),
    ]);
    expect(guild.code).toBe(2);
    expect(guild.stderr).toMatch(/^wotd-bot deploy-commands: unknown argument "--gild"; did you mean `--guild`\?\n/);
    expect(serve.code).toBe(2);
    expect(serve.stderr).toBe('wotd-bot serve: unknown option "--prot"; did you mean `--port`? (see wotd-bot serve --help)\n');
    expect(start.code).toBe(2);
    expect(start.stderr).toMatch(/^wotd-bot start: unknown option "--shard"; did you mean `--shards`\?\n/);
    expect(command.code).toBe(2);
    expect(command.stderr).toBe('wotd-bot: unknown command "hisotry"; did you mean `history`? (node bin/wotd-bot.js --help lists them all)\n');
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/\n\nwotd-bot: unknown option "--limt"; did you mean `--limit`\?\n$/);
    // Nothing near: the list of commands instead.
    expect(far.code).toBe(2);
    expect(far.stderr).toMatch(/^wotd-bot: unknown command "qwertyuiop"\n\nUsage: wotd-bot <command>/);
  });
});
