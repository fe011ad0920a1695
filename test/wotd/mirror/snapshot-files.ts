import sqlite3 from 'sqlite3';
import { writeWordDb } from '../../../src/service/word-db.ts';
import type { Entry } from '../../../src/wotd/entry.ts';

/** Snapshot files for the mirror's tests: real SQLite files written the way the site writes them, or not. */

/** A snapshot as the site writes one: the words table with these entries. */
export async function writeSnapshot(path: string, entries: Entry[]): Promise<void> {
  await writeWordDb(path, entries);
}

/** A SQLite file made by running `sql` (any schema, any rows); `params` rows go through `insert` when given. */
export async function writeSqlite(path: string, sql: string, insert?: { sql: string; rows: unknown[][] }): Promise<void> {
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened: sqlite3.Database = new sqlite3.Database(path, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE, (error) => (error ? reject(error) : resolve(opened)));
  });
  try {
    await new Promise<void>((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
    for (const row of insert?.rows ?? []) {
      await new Promise<void>((resolve, reject) => db.run(insert?.sql ?? '', row, (error: Error | null) => (error ? reject(error) : resolve())));
    }
  } finally {
    await new Promise<void>((resolve) => db.close(() => resolve()));
  }
}

export const WORDS_TABLE = 'CREATE TABLE words (date TEXT PRIMARY KEY, word TEXT NOT NULL, ipa TEXT, pos TEXT, definition TEXT);';
export const INSERT_WORD = 'INSERT INTO words (date, word, ipa, pos, definition) VALUES (?, ?, ?, ?, ?)';
