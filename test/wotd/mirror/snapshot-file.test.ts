import { existsSync } from 'node:fs';
import { open, readdir, readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkSqliteHeader,
  copyBounded,
  MAX_ROW_BYTES,
  readSnapshotFile,
  SnapshotRefused,
  withPrivateTempFile,
  type RefusalReason,
} from '../../../src/wotd/mirror/snapshot-file.ts';
import { sampleEntries } from '../../support/upstream/deployment-twin.ts';
import { tempDir } from '../harness.ts';
import { INSERT_WORD, WORDS_TABLE, writeSnapshot, writeSqlite } from './snapshot-files.ts';

/** The mirror's handling of a downloaded file: real SQLite files, good and bad, in a temp dir. */

let dir: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await dir.cleanup();
});

const LAST = '2024-06-30';

async function read(path: string, options: { lastDate?: string; maxRows?: number } = {}) {
  await checkSqliteHeader(path);
  return readSnapshotFile(path, { lastDate: options.lastDate ?? LAST, ...(options.maxRows ? { maxRows: options.maxRows } : {}) });
}

async function refusal(path: string, options: { maxRows?: number } = {}): Promise<SnapshotRefused> {
  try {
    await read(path, options);
  } catch (error) {
    if (error instanceof SnapshotRefused) return error;
    throw error;
  }
  throw new Error('expected the file to be refused');
}

describe('a good snapshot', () => {
  it('reads every row, oldest first, and leaves out days after its last', async () => {
    const path = join(dir.path, 'wotd_2024-06.db');
    const entries = sampleEntries('2024-06-01', 40);
    await writeSnapshot(path, [...entries].reverse());
    const contents = await read(path);
    expect(contents.entries).toEqual(entries.filter((entry) => entry.date <= LAST));
    expect(contents.rows).toBe(40);
    expect(contents.skipped).toEqual({ invalid: 0, too_large: 0, future: 10, duplicate: 0 });
    expect(contents.newest).toBe(LAST);
    expect(contents.holes).toEqual([]);
  });

  it('reads a file left in WAL mode without making any file beside it', async () => {
    const path = join(dir.path, 'wal.db');
    await writeSqlite(path, `PRAGMA journal_mode=WAL; ${WORDS_TABLE}`, {
      sql: INSERT_WORD,
      rows: sampleEntries('2024-06-01', 3).map((entry) => [entry.date, entry.word, entry.ipa, entry.pos, entry.definition]),
    });
    expect((await readFile(path))[18]).toBe(2);
    const contents = await read(path);
    expect(contents.entries.map((entry) => entry.date)).toEqual(['2024-06-01', '2024-06-02', '2024-06-03']);
    expect((await readdir(dir.path)).sort()).toEqual(['wal.db']);
  });
});

describe('files that are refused, each with one line saying why', () => {
  async function goodFile(name: string): Promise<string> {
    const path = join(dir.path, name);
    // Enough rows for several pages, so a cut falls inside the table.
    await writeSnapshot(path, sampleEntries('2020-01-01', 1200).map((entry) => ({ ...entry, definition: `${entry.definition} ${'x'.repeat(200)}` })));
    return path;
  }

  const cases: Array<[string, RefusalReason, (path: string) => Promise<void>]> = [
    ['cut to half its pages', 'truncated', async (path) => truncate(path, Math.floor((await stat(path)).size / 8192) * 4096)],
    ['cut mid-page', 'truncated', async (path) => truncate(path, (await stat(path)).size - 100)],
    ['cut inside its header', 'truncated', async (path) => truncate(path, 60)],
    ['an HTML error page', 'not_sqlite', async (path) => writeFile(path, '<!doctype html><title>404 Not Found</title>')],
    ['the plain 404 body', 'not_sqlite', async (path) => writeFile(path, 'Database file not found')],
    ['empty', 'not_sqlite', async (path) => writeFile(path, '')],
    [
      'damaged inside',
      'corrupt',
      async (path) => {
        const handle = await open(path, 'r+');
        await handle.write(Buffer.alloc(4096, 0xa5), 0, 4096, 4096 * 3);
        await handle.close();
      },
    ],
  ];
  it.each(cases)('%s: %s', async (_name, reason, damage) => {
    const path = await goodFile('wotd_2024-06.db');
    await damage(path);
    const refused = await refusal(path);
    expect(refused.reason).toBe(reason);
    expect(refused.message).not.toMatch(/\n/);
  });

  const schemas: Array<[string, string, RegExp]> = [
    ['no words table', 'CREATE TABLE entries (date TEXT, word TEXT);', /no words table/],
    ['a column missing', 'CREATE TABLE words (date TEXT PRIMARY KEY, word TEXT NOT NULL, ipa TEXT, pos TEXT);', /no definition column/],
    ['a column of another type', 'CREATE TABLE words (date INTEGER PRIMARY KEY, word TEXT, ipa TEXT, pos TEXT, definition TEXT);', /date is INTEGER/],
    ['words as a view', 'CREATE TABLE t (a TEXT); CREATE VIEW words AS SELECT a AS date, a AS word, a AS ipa, a AS pos, a AS definition FROM t;', /view, not a table/],
    [
      'a generated column',
      "CREATE TABLE words (date TEXT PRIMARY KEY, word TEXT, ipa TEXT, pos TEXT, definition TEXT GENERATED ALWAYS AS (word || '!') VIRTUAL);",
      /generated or hidden/,
    ],
    ['words as a virtual table', 'CREATE VIRTUAL TABLE words USING fts4(date, word, ipa, pos, definition);', /virtual table|not TEXT/],
  ];
  it.each(schemas)('wrong schema: %s', async (_name, sql, why) => {
    const path = join(dir.path, 'odd.db');
    await writeSqlite(path, sql);
    const refused = await refusal(path);
    expect(refused.reason).toBe('wrong_schema');
    expect(refused.message).toMatch(why);
  });

  it('more rows than accepted', async () => {
    const path = join(dir.path, 'many.db');
    await writeSnapshot(path, sampleEntries('2024-01-01', 6));
    expect((await refusal(path, { maxRows: 5 })).reason).toBe('too_many_rows');
  });

  it('an empty words table, or one with no usable row', async () => {
    const empty = join(dir.path, 'empty.db');
    await writeSqlite(empty, WORDS_TABLE);
    expect((await refusal(empty)).reason).toBe('empty');
    const useless = join(dir.path, 'useless.db');
    await writeSqlite(useless, WORDS_TABLE, { sql: INSERT_WORD, rows: [['2024-13-01', 'x', '', '', ''], ['yesterday', 'y', '', '', '']] });
    const refused = await refusal(useless);
    expect(refused.reason).toBe('empty');
    expect(refused.message).toMatch(/none of its 2 rows is usable/);
  });
});

describe('hostile rows', () => {
  it('skips and counts each bad row, keeps the good ones verbatim, and marks the days it could not check', async () => {
    const path = join(dir.path, 'hostile.db');
    const huge = 'h'.repeat(2 * 1024 * 1024);
    await writeSqlite(path, 'CREATE TABLE words (date TEXT, word TEXT, ipa TEXT, pos TEXT, definition TEXT);', {
      sql: INSERT_WORD,
      rows: [
        ['2024-06-01', 'aplomb', '/əˈplɒm/', 'noun', 'Self-confidence.'],
        ["2024-06-02", "x'); DROP TABLE words; --", '"; SELECT 1; --', 'noun', "Robert'); DELETE FROM words WHERE ('1'='1"],
        ['2024-13-01', 'badmonth', '', 'noun', 'A month that is not.'],
        ['2024-02-30', 'badday', '', 'noun', 'A day that is not.'],
        ['24-6-3', 'short', '', 'noun', 'Not YYYY-MM-DD.'],
        [null, 'nodate', '', 'noun', 'No date.'],
        [20240604, 'numericdate', '', 'noun', 'A number for a date.'],
        ['2024-06-05', Buffer.from('blobword'), '', 'noun', 'A blob for a word.'],
        ['2024-06-06', 'blob', Buffer.from([0, 1, 2]), 'noun', 'A blob for the IPA.'],
        ['2024-06-07', 'nullpos', '', null, 'No part of speech.'],
        ['2024-06-08', '   ', '', 'noun', 'A blank word.'],
        ['2024-06-09', 'huge', '', 'noun', huge],
        ['2024-06-10', 'fine', '/faɪn/', 'adjective', 'Good.'],
        ['2024-06-10', 'again', '', 'noun', 'A second row for a day.'],
        ['2030-01-01', 'future', '', 'noun', 'After the last day.'],
      ],
    });
    const before = await readFile(path);
    const contents = await read(path);
    expect(contents.entries).toEqual([
      { date: '2024-06-01', word: 'aplomb', ipa: '/əˈplɒm/', pos: 'noun', definition: 'Self-confidence.' },
      { date: '2024-06-02', word: "x'); DROP TABLE words; --", ipa: '"; SELECT 1; --', pos: 'noun', definition: "Robert'); DELETE FROM words WHERE ('1'='1" },
      { date: '2024-06-10', word: 'fine', ipa: '/faɪn/', pos: 'adjective', definition: 'Good.' },
    ]);
    expect(contents.skipped).toEqual({ invalid: 9, too_large: 1, future: 1, duplicate: 1 });
    expect(contents.rows).toBe(15);
    // Days with a row that could not be checked: the mirror must not say they had no word.
    expect(contents.holes).toEqual(['2024-06-05', '2024-06-06', '2024-06-07', '2024-06-08', '2024-06-09']);
    expect(contents.firstProblem).toMatch(/^row \d+: /);
    expect(contents.firstProblem?.length).toBeLessThanOrEqual(160);
    expect(MAX_ROW_BYTES).toBeLessThan(huge.length);
    // Read-only: the file is byte for byte as it was, and nothing was made beside it.
    expect((await readFile(path)).equals(before)).toBe(true);
    expect(await readdir(dir.path)).toEqual(['hostile.db']);
  });
});

describe('temporary files', () => {
  it('are made in a directory only this user can enter, and removed afterwards even when the work fails', async () => {
    let seen = '';
    await expect(
      withPrivateTempFile(async (path) => {
        seen = path;
        await writeFile(path, 'x', { flag: 'wx', mode: 0o600 });
        const mode = (await stat(join(path, '..'))).mode & 0o777;
        expect(mode).toBe(0o700);
        throw new Error('work failed');
      }, dir.path),
    ).rejects.toThrow('work failed');
    expect(seen).not.toBe('');
    expect(existsSync(join(seen, '..'))).toBe(false);
  });

  it('copyBounded refuses a local file larger than the cap, and copies one within it', async () => {
    const big = join(dir.path, 'big.db');
    await writeFile(big, Buffer.alloc(10_000));
    await expect(withPrivateTempFile((path) => copyBounded(big, path, 9_999), dir.path)).rejects.toMatchObject({ reason: 'too_large' });
    expect(await withPrivateTempFile((path) => copyBounded(big, path, 10_000), dir.path)).toBe(10_000);
  });
});
