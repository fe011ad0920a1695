import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dueMonths, lastCompleteMonth, snapshotFileName, snapshotMonthOf, SnapshotShelf } from '../../src/service/snapshots.ts';
import { sampleEntries } from '../support/upstream/deployment-twin.ts';
import { readSnapshot, SNAPSHOT_COLUMNS, SNAPSHOT_TABLE_SQL } from '../support/upstream/snapshot-file.ts';
import { tempDir } from './http.ts';

// 2024-01-10 … 2024-07-27: some words are still to come on 2024-06-15.
const ENTRIES = sampleEntries('2024-01-10', 200);
const TODAY = '2024-06-15';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('snapshots'));
});
afterEach(async () => {
  await cleanup();
});

const snapshotNames = async (folder: string): Promise<string[]> => (await readdir(folder)).filter((name) => name.endsWith('.db')).sort();

describe('which months are published', () => {
  it('every month from the first entry through the last one that is over, newest kept', () => {
    expect(dueMonths(ENTRIES, TODAY)).toEqual(['2024-01', '2024-02', '2024-03', '2024-04', '2024-05']);
    // On the 1st the month before is over.
    expect(dueMonths(ENTRIES, '2024-06-01')).toEqual(['2024-01', '2024-02', '2024-03', '2024-04', '2024-05']);
    expect(dueMonths(ENTRIES, '2024-05-31')).toEqual(['2024-01', '2024-02', '2024-03', '2024-04']);
    expect(dueMonths(ENTRIES, TODAY, 2)).toEqual(['2024-04', '2024-05']);
    expect(dueMonths(ENTRIES, '2024-01-20')).toEqual([]);
    expect(dueMonths([], TODAY)).toEqual([]);
    // Across a year's end.
    expect(dueMonths(sampleEntries('2023-11-30', 5), '2024-02-01')).toEqual(['2023-11', '2023-12', '2024-01']);
    expect(lastCompleteMonth('2024-01-01')).toBe('2023-12');
    expect(() => dueMonths(ENTRIES, TODAY, 0)).toThrow(RangeError);
  });

  it('names only wotd_YYYY-MM.db', () => {
    expect(snapshotFileName('2024-05')).toBe('wotd_2024-05.db');
    expect(snapshotMonthOf('wotd_2024-05.db')).toBe('2024-05');
    for (const name of ['wotd_2024-13.db', 'wotd_2024-5.db', 'wotd_2024-05.db.tmp', '../wotd_2024-05.db', 'wotd_2024-05.sqlite', 'WOTD_2024-05.db']) {
      expect(snapshotMonthOf(name), name).toBeNull();
    }
    expect(() => snapshotFileName('../../etc')).toThrow(RangeError);
  });
});

describe('SnapshotShelf', () => {
  it('writes one SQLite file per published month, each with the one table and every entry up to its month end', async () => {
    const shelf = new SnapshotShelf({ entries: ENTRIES, dir });
    await shelf.update(TODAY);
    expect(await snapshotNames(dir)).toEqual(['wotd_2024-01.db', 'wotd_2024-02.db', 'wotd_2024-03.db', 'wotd_2024-04.db', 'wotd_2024-05.db']);
    // Nothing else is left in the folder: no temporary file, no journal.
    expect((await readdir(dir)).length).toBe(5);
    const may = await readSnapshot(await readFile(join(dir, 'wotd_2024-05.db')));
    expect(may.tables).toEqual([{ name: 'words', sql: SNAPSHOT_TABLE_SQL }]);
    expect(may.columns).toEqual(SNAPSHOT_COLUMNS);
    const expected = ENTRIES.filter((entry) => entry.date <= '2024-05-31');
    expect(may.rows).toEqual(expected.map(({ date, word, ipa, pos, definition }) => ({ date, word, ipa, pos, definition })));
    expect(may.rows.at(-1)?.date).toBe('2024-05-31');
    const january = await readSnapshot(await readFile(join(dir, 'wotd_2024-01.db')));
    expect(january.rows.map((row) => row.date)).toEqual(ENTRIES.filter((entry) => entry.date < '2024-02-01').map((entry) => entry.date));
  });

  it('lists the folder in its own order and finds only published months that are there', async () => {
    const shelf = new SnapshotShelf({ entries: ENTRIES, dir });
    const listed = await shelf.list(TODAY);
    expect(listed).toEqual((await readdir(dir)).filter((name) => name.startsWith('wotd_')));
    expect(await shelf.find('wotd_2024-05.db', TODAY)).toEqual({ name: 'wotd_2024-05.db', month: '2024-05', path: join(dir, 'wotd_2024-05.db') });
    // The current month, a month before the first entry, a name that is not a snapshot's.
    for (const name of ['wotd_2024-06.db', 'wotd_2023-12.db', 'words.sqlite', '../wotd_2024-05.db']) {
      expect(await shelf.find(name, TODAY), name).toBeUndefined();
    }
  });

  it('keeps the newest months only, and moves on when a month ends', async () => {
    const clock = { today: TODAY };
    const shelf = new SnapshotShelf({ entries: ENTRIES, dir, keep: 3 });
    await shelf.update(clock.today);
    expect(await snapshotNames(dir)).toEqual(['wotd_2024-03.db', 'wotd_2024-04.db', 'wotd_2024-05.db']);
    clock.today = '2024-07-01';
    expect(await shelf.list(clock.today)).toHaveLength(3);
    expect(await snapshotNames(dir)).toEqual(['wotd_2024-04.db', 'wotd_2024-05.db', 'wotd_2024-06.db']);
    const june = await readSnapshot(await readFile(join(dir, 'wotd_2024-06.db')));
    expect(june.rows.at(-1)?.date).toBe('2024-06-30');
  });

  it('deletes a snapshot of a month that is not over (a clock set back), and leaves other files alone', async () => {
    await writeFile(join(dir, 'wotd_2024-06.db'), 'June is not over');
    await writeFile(join(dir, 'notes.txt'), 'mine');
    const shelf = new SnapshotShelf({ entries: ENTRIES, dir });
    expect(await shelf.list(TODAY)).not.toContain('wotd_2024-06.db');
    expect(await snapshotNames(dir)).not.toContain('wotd_2024-06.db');
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('keeps a file an earlier run wrote when it still matches, and writes it again when the words or the file changed', async () => {
    await new SnapshotShelf({ entries: ENTRIES, dir }).update(TODAY);
    const before = await stat(join(dir, 'wotd_2024-04.db'));
    await writeFile(join(dir, 'wotd_2024-03.db'), 'not a database');

    const edited = ENTRIES.map((entry) => (entry.date === '2024-05-02' ? { ...entry, word: 'edited' } : entry));
    await new SnapshotShelf({ entries: edited, dir }).update(TODAY);
    const after = await stat(join(dir, 'wotd_2024-04.db'));
    // Same inode and time: not written again.
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    expect((await readSnapshot(await readFile(join(dir, 'wotd_2024-03.db')))).rows.at(-1)?.date).toBe('2024-03-31');
    const may = await readSnapshot(await readFile(join(dir, 'wotd_2024-05.db')));
    expect(may.rows.find((row) => row.date === '2024-05-02')?.word).toBe('edited');
  });

  it('rejects when the folder cannot be written, and tries again at the next call', async () => {
    const blocked = join(dir, 'blocked');
    await writeFile(blocked, 'a file where the folder should be');
    const shelf = new SnapshotShelf({ entries: ENTRIES, dir: blocked });
    await expect(shelf.update(TODAY)).rejects.toThrow();
    await expect(shelf.list(TODAY)).rejects.toThrow();
    await rm(blocked);
    await mkdir(blocked);
    expect(await shelf.list(TODAY)).toHaveLength(5);
  });
});
