import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toWireDate, type IsoDate, type Variant } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { ManualClock, send, tempDir, type Reply } from './http.ts';

/** A fortnight of words with a gap on 2025-01-03, a word that recurs (once in the future), and a future-only word. */
const ENTRIES: Entry[] = [
  { date: '2024-12-28', word: 'abacus', pos: 'noun', ipa: '/ˈæbəkəs/', definition: 'a manual computing device' },
  { date: '2024-12-29', word: 'bellwether', pos: 'noun', ipa: '/ˈbɛlˌwɛðɚ/', definition: 'a leader or trendsetter' },
  { date: '2024-12-30', word: 'Lumen', pos: 'noun', ipa: '/ˈlumən/', definition: '(physics) a unit of luminous flux' },
  { date: '2024-12-31', word: 'quire', pos: 'noun', ipa: '/ˈkwaɪɚ/', definition: 'a quantity of paper' },
  { date: '2025-01-01', word: 'serif', pos: 'noun', ipa: '/ˈsɛrɪf/', definition: '(printing) a short line at the end of a stroke' },
  { date: '2025-01-02', word: 'tocsin', pos: 'noun', ipa: '/ˈtɑksɪn/', definition: 'an alarm sounded by a bell' },
  {
    date: '2025-01-04',
    word: 'zephyr',
    pos: 'noun',
    ipa: '/ˈzɛfɚ/',
    definition: 'a slight wind; "the zephyr stirred the leaves"',
  },
  { date: '2025-01-05', word: 'lumen', pos: 'noun', ipa: '/ˈlumən/', definition: '(anatomy) a cavity within a tube' },
  { date: '2025-01-06', word: 'cadenza', pos: 'noun', ipa: '/kəˈdɛnzə/', definition: '(music) a brilliant solo passage' },
  { date: '2025-01-07', word: 'galliard', pos: 'noun', ipa: '/ˈɡæljɚd/', definition: 'a spirited dance' },
  { date: '2025-01-08', word: 'halcyon', pos: 'adjective', ipa: '/ˈhælsiən/', definition: 'idyllically calm' },
  { date: '2025-01-09', word: 'jejune', pos: 'adjective', ipa: '/dʒɪˈdʒun/', definition: 'lacking interest' },
  { date: '2025-01-10', word: 'kerfuffle', pos: 'noun', ipa: '/kɚˈfʌfəl/', definition: '(informal) a disorderly fuss' },
  { date: '2025-01-11', word: 'LUMEN', pos: 'adjective', ipa: '/ˈlumən/', definition: 'bright, as of a lamp' },
  { date: '2025-01-12', word: 'quokka', pos: 'noun', ipa: '/ˈkwɑkə/', definition: 'a small wallaby' },
];
const BEFORE_MIDNIGHT = '2025-01-10T23:59:59.999Z';
const MIDNIGHT = '2025-01-11T00:00:00.000Z';

function entryOn(date: IsoDate): Entry {
  const entry = ENTRIES.find((candidate) => candidate.date === date);
  if (!entry) throw new Error(`no test entry on ${date}`);
  return entry;
}

function errorOf(reply: Reply): string {
  expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(reply.json).toEqual({ error: expect.any(String) });
  return (reply.json as { error: string }).error;
}

let dir: string;
let cleanup: () => Promise<void>;
let dbPath: string;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir('conformance'));
  dbPath = join(dir, 'words.sqlite');
  await writeWordDb(dbPath, ENTRIES);
});

afterAll(async () => {
  await cleanup();
});

describe.each<Variant>(['A', 'B'])('variant %s', (variant) => {
  const w = (date: IsoDate): string => toWireDate(date, variant);
  const wire = (date: IsoDate): Record<string, string> => {
    const entry = entryOn(date);
    return { date: w(date), word: entry.word, pos: entry.pos, ipa: entry.ipa, definition: entry.definition };
  };
  const clock = new ManualClock(Date.parse(BEFORE_MIDNIGHT));
  let service: RunningService;
  const get = (path: string, method = 'GET'): Promise<Reply> => send(`${service.url}${path}`, { method });

  beforeAll(async () => {
    service = await startWotdService({ dbPath, variant, now: clock.now, rateLimitPerMinute: 0 });
  });
  afterAll(async () => {
    await service.close();
  });
  beforeEach(() => {
    clock.set(BEFORE_MIDNIGHT);
  });

  it('listens on loopback on an ephemeral port', () => {
    expect(service.url).toBe(`http://127.0.0.1:${service.port}`);
    expect(service.port).toBeGreaterThan(0);
  });

  describe('/query', () => {
    it("answers one date's entry with the date in the variant's format and the fields in order", async () => {
      const reply = await get(`/query?date=${w('2025-01-04')}`);
      expect(reply.status).toBe(200);
      expect(reply.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(reply.json).toEqual(wire('2025-01-04'));
      expect(Object.keys(reply.json as object)).toEqual(['date', 'word', 'pos', 'ipa', 'definition']);
      expect((reply.json as Entry).definition).toContain('"the zephyr stirred the leaves"');
    });

    it("defaults to today's UTC date", async () => {
      const reply = await get('/query');
      expect(reply.status).toBe(200);
      expect(reply.json).toEqual(wire('2025-01-10'));
    });

    it("shows the next day's entry exactly at 00:00 UTC, and refuses it as future a millisecond before", async () => {
      const before = await get(`/query?date=${w('2025-01-11')}`);
      expect(before.status).toBe(400);
      expect(errorOf(before)).toMatch(/future/);
      clock.set(MIDNIGHT);
      const at = await get(`/query?date=${w('2025-01-11')}`);
      expect(at.status).toBe(200);
      expect(at.json).toEqual(wire('2025-01-11'));
      expect((await get('/query')).json).toEqual(wire('2025-01-11'));
      expect((await get(`/query?date=${w('2025-01-12')}`)).status).toBe(400);
    });

    it('answers 404 for a date without an entry', async () => {
      for (const date of ['2025-01-03', '2024-12-27', '2024-02-29'] as const) {
        const reply = await get(`/query?date=${w(date)}`);
        expect(reply.status).toBe(404);
        expect(errorOf(reply)).toBe(`no word of the day for ${w(date)}`);
      }
    });

    it('answers 400 for a malformed date, including the other variant\'s format', async () => {
      const other = variant === 'A' ? '04-01-2025' : '2025-01-04';
      const shapes = [other, '2025-1-4', '4-1-2025', 'yesterday', '2025-01-04T00:00:00Z', '20250104', '%20' + w('2025-01-04')];
      for (const text of shapes) {
        const reply = await get(`/query?date=${text}`);
        expect(reply.status, text).toBe(400);
        expect(errorOf(reply)).toMatch(variant === 'A' ? /YYYY-MM-DD/ : /DD-MM-YYYY/);
      }
    });

    it('answers 400 for an impossible calendar date', async () => {
      for (const date of variant === 'A' ? ['2025-02-30', '2023-02-29', '2025-13-01', '2025-00-10'] : ['30-02-2025', '29-02-2023', '01-13-2025', '00-01-2025']) {
        const reply = await get(`/query?date=${date}`);
        expect(reply.status, date).toBe(400);
        expect(errorOf(reply)).toMatch(/not a real calendar date/);
      }
    });

    it('answers 400 for an empty or repeated date', async () => {
      expect(errorOf(await get('/query?date='))).toMatch(/must not be empty/);
      const repeated = await get(`/query?date=${w('2025-01-04')}&date=${w('2025-01-05')}`);
      expect(repeated.status).toBe(400);
      expect(errorOf(repeated)).toMatch(/at most once/);
    });

    it('answers 400 for any future date, naming the latest allowed date', async () => {
      for (const date of ['2025-01-11', '2025-01-12', '2099-12-31'] as const) {
        const reply = await get(`/query?date=${w(date)}`);
        expect(reply.status, date).toBe(400);
        expect(errorOf(reply)).toBe(`date ${w(date)} is in the future; the latest date is ${w('2025-01-10')} (UTC)`);
      }
    });

    it('ignores parameters it does not know', async () => {
      const reply = await get(`/query?date=${w('2025-01-04')}&format=xml`);
      expect(reply.json).toEqual(wire('2025-01-04'));
    });
  });

  describe('/query_previous', () => {
    type Previous = { has_more: boolean; results: Record<string, string>[] };
    const previous = async (query: string): Promise<Previous> => {
      const reply = await get(`/query_previous${query}`);
      expect(reply.status, query).toBe(200);
      expect(Object.keys(reply.json as object)).toEqual(['has_more', 'results']);
      return reply.json as Previous;
    };

    it('defaults to the three entries before today, newest first', async () => {
      expect(await previous('')).toEqual({
        has_more: true,
        results: [wire('2025-01-09'), wire('2025-01-08'), wire('2025-01-07')],
      });
    });

    it('moves with the clock across midnight UTC', async () => {
      clock.set(MIDNIGHT);
      const { results } = await previous('');
      expect(results.map((entry) => entry.date)).toEqual([w('2025-01-10'), w('2025-01-09'), w('2025-01-08')]);
    });

    it('returns entries strictly before the date, skipping days without one', async () => {
      const { results } = await previous(`?date=${w('2025-01-05')}`);
      expect(results).toEqual([wire('2025-01-04'), wire('2025-01-02'), wire('2025-01-01')]);
    });

    it('accepts today and never returns today or a future entry', async () => {
      const { results } = await previous(`?date=${w('2025-01-10')}&limit=8`);
      expect(results).toHaveLength(8);
      expect(results[0]).toEqual(wire('2025-01-09'));
      for (const entry of results) expect(entry.date).not.toBe(w('2025-01-10'));
    });

    it('honours limit from 1 to 8', async () => {
      expect((await previous(`?date=${w('2025-01-10')}&limit=1`)).results).toEqual([wire('2025-01-09')]);
      const eight = await previous(`?date=${w('2025-01-10')}&limit=8`);
      expect(eight.results.map((entry) => entry.date)).toEqual(
        ['2025-01-09', '2025-01-08', '2025-01-07', '2025-01-06', '2025-01-05', '2025-01-04', '2025-01-02', '2025-01-01'].map(w),
      );
      expect(eight.has_more).toBe(true);
      expect((await previous('?limit=08')).results).toHaveLength(8);
    });

    it('sets has_more exactly when an older entry exists', async () => {
      expect(await previous(`?date=${w('2024-12-31')}&limit=3`)).toEqual({
        has_more: false,
        results: [wire('2024-12-30'), wire('2024-12-29'), wire('2024-12-28')],
      });
      expect((await previous(`?date=${w('2024-12-31')}&limit=2`)).has_more).toBe(true);
      expect(await previous(`?date=${w('2024-12-29')}&limit=1`)).toEqual({ has_more: false, results: [wire('2024-12-28')] });
      expect(await previous(`?date=${w('2024-12-28')}`)).toEqual({ has_more: false, results: [] });
      expect(await previous(`?date=${w('2000-01-01')}&limit=8`)).toEqual({ has_more: false, results: [] });
    });

    it('answers 400 for a limit that is not a whole number from 1 to 8', async () => {
      for (const limit of ['0', '9', '100', '-1', '1.5', '3a', 'abc', '', '%203', '1e1', '99999999999999999999']) {
        const reply = await get(`/query_previous?limit=${limit}`);
        expect(reply.status, `limit=${limit}`).toBe(400);
        expect(errorOf(reply)).toMatch(/^limit must be a whole number from 1 to 8/);
      }
      expect((await get('/query_previous?limit=2&limit=3')).status).toBe(400);
    });

    it('answers 400 for a malformed, impossible, empty or future date', async () => {
      const other = variant === 'A' ? '05-01-2025' : '2025-01-05';
      const impossible = variant === 'A' ? '2025-02-30' : '30-02-2025';
      for (const date of [other, impossible, '', w('2025-01-11')]) {
        const reply = await get(`/query_previous?date=${date}`);
        expect(reply.status, date).toBe(400);
        errorOf(reply);
      }
      clock.set(MIDNIGHT);
      expect((await previous(`?date=${w('2025-01-11')}&limit=1`)).results).toEqual([wire('2025-01-10')]);
    });
  });

  describe('/find_wotd', () => {
    const find = (word: string): Promise<Reply> => get(`/find_wotd?word=${encodeURIComponent(word)}`);

    it('answers every past entry of the word as an array, newest first, matched case-insensitively after trimming', async () => {
      const reply = await find('  LuMeN\t');
      expect(reply.status).toBe(200);
      expect(reply.json).toEqual([wire('2025-01-05'), wire('2024-12-30')]);
    });

    it("includes a future entry from its day on, exactly at 00:00 UTC", async () => {
      clock.set(MIDNIGHT);
      expect((await find('lumen')).json).toEqual([wire('2025-01-11'), wire('2025-01-05'), wire('2024-12-30')]);
    });

    it('answers an array for a single match too', async () => {
      expect((await find('abacus')).json).toEqual([wire('2024-12-28')]);
    });

    it('answers 404 for a word that never was the word of the day, or is only scheduled', async () => {
      for (const word of ['lume', 'lumens', 'lumen x', 'nonexistent', 'quokka']) {
        const reply = await find(word);
        expect(reply.status, word).toBe(404);
        expect(errorOf(reply)).toBe(`${JSON.stringify(word)} has never been the word of the day`);
      }
      clock.set('2025-01-12T00:00:00Z');
      expect((await find('quokka')).json).toEqual([wire('2025-01-12')]);
    });

    it('answers 400 for a missing, empty or blank word', async () => {
      expect(errorOf(await get('/find_wotd'))).toMatch(/word is required/);
      expect(errorOf(await get('/find_wotd?word='))).toBe('word must not be empty');
      expect(errorOf(await get('/find_wotd?word=%20%20'))).toBe('word must not be empty');
      expect((await get('/find_wotd?word=lumen&word=abacus')).status).toBe(400);
    });
  });

  describe('HTTP surface', () => {
    it('answers HEAD with the headers of GET and no body', async () => {
      const got = await get(`/query?date=${w('2025-01-04')}`);
      const head = await get(`/query?date=${w('2025-01-04')}`, 'HEAD');
      expect(head.status).toBe(200);
      expect(head.body).toHaveLength(0);
      expect(head.headers['content-length']).toBe(String(got.body.length));
      expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
      const missing = await get('/nope', 'HEAD');
      expect(missing.status).toBe(404);
      expect(missing.body).toHaveLength(0);
    });

    it('answers 405 with Allow for methods other than GET and HEAD', async () => {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
        const reply = await send(`${service.url}/query`, { method, body: method === 'OPTIONS' ? undefined : '{}' });
        expect(reply.status, method).toBe(405);
        expect(reply.headers.allow).toBe('GET, HEAD');
        expect(errorOf(reply)).toBe(`method ${method} is not allowed; use GET or HEAD`);
      }
    });

    it('answers JSON 404 for unknown paths', async () => {
      for (const path of ['/', '/nope', '/query/', '/QUERY', '/query_previous/extra', '/%00']) {
        const reply = await get(path);
        expect(reply.status, path).toBe(404);
        expect(errorOf(reply)).toMatch(/^no such endpoint .*; try \/query, \/query_previous, \/find_wotd, \/download$/);
      }
    });

    it('sends no rate-limit headers when limiting is off', async () => {
      const reply = await get('/query');
      expect(reply.headers['ratelimit-limit']).toBeUndefined();
    });

    if (variant === 'A') {
      it('offers the whole database file at /download', async () => {
        const reply = await get('/download');
        expect(reply.status).toBe(200);
        expect(reply.headers['content-type']).toBe('application/vnd.sqlite3');
        expect(reply.headers['content-disposition']).toBe('attachment; filename="words.sqlite"');
        expect(reply.body.equals(await readFile(dbPath))).toBe(true);
        const head = await get('/download', 'HEAD');
        expect(head.body).toHaveLength(0);
        expect(head.headers['content-length']).toBe(String(reply.body.length));
      });
    } else {
      it('has no /download', async () => {
        const reply = await get('/download');
        expect(reply.status).toBe(404);
        expect(errorOf(reply)).toMatch(/variant A/);
      });
    }
  });

  describe('rate limit', () => {
    const limitedClock = new ManualClock(Date.parse('2025-01-10T12:00:00Z'));
    let limited: RunningService;
    beforeAll(async () => {
      limited = await startWotdService({ dbPath, variant, now: limitedClock.now });
    });
    afterAll(async () => {
      await limited.close();
    });

    it('allows ten requests per client in a 60 s window, then answers 429 with Retry-After until it ends', async () => {
      const replies: Reply[] = [];
      for (let i = 0; i < 11; i += 1) replies.push(await send(`${limited.url}/query?date=${w('2025-01-04')}`));
      expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429]);
      expect(replies.map((reply) => reply.headers['ratelimit-remaining'])).toEqual(
        ['9', '8', '7', '6', '5', '4', '3', '2', '1', '0', '0'],
      );
      for (const reply of replies) {
        expect(reply.headers['ratelimit-limit']).toBe('10');
        expect(reply.headers['ratelimit-reset']).toBe('60');
      }
      const refused = replies[10] as Reply;
      expect(refused.headers['retry-after']).toBe('60');
      expect(errorOf(refused)).toMatch(/rate limit of 10 requests per minute exceeded/);
      expect(replies[0]?.json).toEqual(wire('2025-01-04'));

      // Another client address has its own window.
      const other = await send(`${limited.url}/query?date=${w('2025-01-04')}`, { localAddress: '127.0.0.2' });
      expect(other.status).toBe(200);
      expect(other.headers['ratelimit-remaining']).toBe('9');

      limitedClock.advance(59_500);
      const late = await send(`${limited.url}/query`);
      expect(late.status).toBe(429);
      expect(late.headers['retry-after']).toBe('1');
      expect(late.headers['ratelimit-reset']).toBe('1');

      limitedClock.advance(500);
      const fresh = await send(`${limited.url}/query`);
      expect(fresh.status).toBe(200);
      expect(fresh.headers['ratelimit-remaining']).toBe('9');
    });

    it('counts every request, errors included, and limits HEAD and unknown paths too', async () => {
      limitedClock.advance(120_000);
      const paths = ['/nope', '/query?date=bad', '/find_wotd', '/query_previous?limit=0', '/query', '/query', '/query', '/query', '/query', '/query'];
      for (const path of paths) expect((await send(`${limited.url}${path}`)).status).not.toBe(429);
      const head = await send(`${limited.url}/query`, { method: 'HEAD' });
      expect(head.status).toBe(429);
      expect(head.headers['retry-after']).toBe('60');
      expect((await send(`${limited.url}/nope`)).status).toBe(429);
    });
  });
});

describe('rate limit setting', () => {
  it('follows rateLimitPerMinute', async () => {
    const clock = new ManualClock(Date.parse('2025-01-10T12:00:00Z'));
    const service = await startWotdService({ dbPath, variant: 'A', now: clock.now, rateLimitPerMinute: 2 });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await send(`${service.url}/query`)).status);
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await service.close();
    }
  });

  it('is off at 0', async () => {
    const service = await startWotdService({ dbPath, variant: 'A', rateLimitPerMinute: 0, now: () => new Date('2025-01-10T12:00:00Z') });
    try {
      for (let i = 0; i < 25; i += 1) expect((await send(`${service.url}/query`)).status).toBe(200);
    } finally {
      await service.close();
    }
  });

  it('rejects a negative or fractional setting', async () => {
    await expect(startWotdService({ dbPath, variant: 'A', rateLimitPerMinute: -1 })).rejects.toThrow(/rateLimitPerMinute/);
    await expect(startWotdService({ dbPath, variant: 'A', rateLimitPerMinute: 1.5 })).rejects.toThrow(/rateLimitPerMinute/);
  });
});

describe('robustness', () => {
  it('keeps error answers short whatever the client sends', async () => {
    const service = await startWotdService({ dbPath, variant: 'A', rateLimitPerMinute: 0 });
    try {
      const long = 'x'.repeat(5_000);
      for (const path of [`/find_wotd?word=${long}`, `/query?date=${long}`, `/query_previous?limit=${long}`, `/${long}`]) {
        const reply = await send(`${service.url}${path}`);
        expect(reply.status).toBeGreaterThanOrEqual(400);
        expect(reply.body.length).toBeLessThan(300);
        expect((reply.json as { error: string }).error).toContain('x…"');
      }
    } finally {
      await service.close();
    }
  });

  it('answers 500 and keeps serving when its clock fails', async () => {
    let broken = true;
    const now = (): Date => {
      if (broken) throw new Error('clock broke');
      return new Date('2025-01-10T12:00:00Z');
    };
    const service = await startWotdService({ dbPath, variant: 'A', now });
    const warnings: unknown[] = [];
    const onWarning = (warning: unknown): number => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const failed = await send(`${service.url}/query`);
      expect(failed.status).toBe(500);
      expect(failed.json).toEqual({ error: 'internal error' });
      broken = false;
      expect((await send(`${service.url}/query`)).json).toMatchObject({ date: '2025-01-10' });
    } finally {
      process.off('warning', onWarning);
      await service.close();
    }
    expect(warnings).toHaveLength(1);
  });
});
