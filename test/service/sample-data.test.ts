import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sqlite3 from 'sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { addDays, daysBetween } from '../../src/wotd/dates.ts';
import { entrySchema, type Entry } from '../../src/wotd/entry.ts';
import { readWordDb } from '../../src/service/word-db.ts';
import { arpabetToIpa, ArpabetError } from '../../scripts/sample-data/ipa.ts';
import { definitionOf, seededRandom } from '../../scripts/sample-data/select.ts';
import { tempDir } from './http.ts';

const DB = 'data/words.sqlite';
const run = promisify(execFile);

function rawRows(path: string): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(path, sqlite3.OPEN_READONLY, (openError) => {
      if (openError) return reject(openError);
      db.all('SELECT date, word, ipa, pos, definition FROM words ORDER BY date', (error: Error | null, rows: Record<string, unknown>[]) =>
        db.close(() => (error ? reject(error) : resolve(rows))),
      );
    });
  });
}

describe('the committed sample data', () => {
  let rows: Record<string, unknown>[];
  let entries: Entry[];
  beforeAll(async () => {
    rows = await rawRows(DB);
    entries = rows.map((row) => entrySchema.parse(row));
  });

  it('passes the entry schema row by row, with every column filled', () => {
    expect(rows.length).toBe(entries.length);
    for (const row of rows) {
      expect(entrySchema.safeParse(row).success, JSON.stringify(row)).toBe(true);
      for (const column of ['word', 'ipa', 'pos', 'definition']) expect(row[column], JSON.stringify(row)).toEqual(expect.any(String));
    }
  });

  it('covers every day from 2020-01-01 through 2035-12-31, once each', () => {
    expect(entries).toHaveLength(daysBetween('2020-01-01', '2035-12-31') + 1);
    entries.forEach((entry, i) => expect(entry.date).toBe(addDays('2020-01-01', i)));
  });

  it('holds single letters-only words of six or more letters, with IPA in slashes and a known part of speech', () => {
    for (const entry of entries) {
      expect(entry.word).toMatch(/^[a-z]{6,}$/);
      expect(entry.ipa).toMatch(/^\/[^/\s]+\/$/);
      expect(entry.ipa).toMatch(/[ˈˌ]/);
      expect(['noun', 'verb', 'adjective', 'adverb']).toContain(entry.pos);
      expect(entry.definition.length).toBeGreaterThan(3);
    }
  });

  it('lets words recur on later dates with another sense', () => {
    const byWord = new Map<string, Entry[]>();
    for (const entry of entries) byWord.set(entry.word, [...(byWord.get(entry.word) ?? []), entry]);
    const recurring = [...byWord.values()].filter((list) => list.length > 1);
    expect(recurring.length).toBeGreaterThan(100);
    for (const list of recurring) {
      const senses = new Set(list.map((entry) => `${entry.pos}|${entry.definition}`));
      expect(senses.size, list[0]?.word).toBe(list.length);
    }
    expect(recurring.some((list) => new Set(list.map((entry) => entry.pos)).size > 1)).toBe(true);
  });

  it('labels definitions with their domain and keeps quoted examples', () => {
    const labelled = entries.filter((entry) => /^\([^)]+\) /.test(entry.definition));
    expect(labelled.length).toBeGreaterThan(200);
    for (const label of ['(music)', '(historical)', '(law)', '(informal)']) {
      expect(entries.some((entry) => entry.definition.startsWith(`${label} `)), label).toBe(true);
    }
    expect(entries.filter((entry) => entry.definition.includes('"')).length).toBeGreaterThan(500);
  });

  it('is what the build script makes, byte for row', async () => {
    const { dir, cleanup } = await tempDir('sample');
    try {
      const out = join(dir, 'words.sqlite');
      await run(process.execPath, ['--import', 'tsx', 'scripts/build-sample-data.ts', '--out', out]);
      expect(await readWordDb(out)).toEqual(await readWordDb(DB));
    } finally {
      await cleanup();
    }
  });
});

describe('ARPAbet to IPA', () => {
  it('converts phones and places stress marks before the stressed syllable', () => {
    expect(arpabetToIpa('AE1 B AH0 K AH0 S')).toBe('/ˈæbəkəs/');
    expect(arpabetToIpa('S EH2 R AH0 N D IH1 P IH0 T IY0')).toBe('/ˌsɛrənˈdɪpɪti/');
    expect(arpabetToIpa('AH0 S T R AA1 N AH0 M IY0')).toBe('/əˈstrɑnəmi/');
    expect(arpabetToIpa('AH2 N D ER0 S T AE1 N D')).toBe('/ˌʌndɚˈstænd/');
    expect(arpabetToIpa('TH ER1 M AH0 M IY2 T ER0')).toBe('/ˈθɝməˌmitɚ/');
    expect(arpabetToIpa('K AE1 NG G AH0 R UW2')).toBe('/ˈkæŋɡəˌru/');
  });

  it('rejects what is not ARPAbet', () => {
    expect(() => arpabetToIpa('AE1 Q')).toThrow(ArpabetError);
    expect(() => arpabetToIpa('K1 AE1 T')).toThrow(ArpabetError);
  });
});

describe('definitions from glosses', () => {
  it('keeps the first example that uses the word and puts the label in front', () => {
    expect(definitionOf('a brilliant solo passage; "a dull example"; "the cadenza soared"', '(music)', 'cadenza')).toBe(
      '(music) a brilliant solo passage; "the cadenza soared"',
    );
    expect(definitionOf('calm; "a quiet sea"', '', 'halcyon')).toBe('calm');
    expect(definitionOf('(physics) a unit; "ten lumens"', '(physics)', 'lumen')).toBe('(physics) a unit; "ten lumens"');
  });

  it('draws the same numbers from the same seed', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const first = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(first);
    for (const value of first) expect(value).toBeGreaterThanOrEqual(0);
    for (const value of first) expect(value).toBeLessThan(1);
  });
});

