import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { readWordDb } from '../../src/service/word-db.ts';
import { addDays, toWireDate, utcDateOf, type Variant } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';
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
function cli(args: string[]): Promise<Run> {
  const store = `sqlite://${join(dir.path, `cli-${runs++}.sqlite`)}`;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/wotd-bot.js', ...args],
      { env: { ...process.env, STORE_URL: store, WOTD_API_URL: '', WOTD_API_VARIANT: '', REDIS_URL: '' }, timeout: 30_000 },
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
    const [text, json, history, find] = await Promise.all([
      cli(['query', toWireDate(date, 'B'), '--api-url', service.url]),
      cli(['query', date, '--json', '--api-url', service.url, '--variant', variant]),
      cli(['history', date, '--limit', '2', '--json', '--api-url', service.url]),
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
    expect(future.stderr).toMatch(/future/);
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
