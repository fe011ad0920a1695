import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';

/** What a downloaded snapshot holds, read with SQLite itself from a copy in a temporary folder. */
export interface SnapshotContents {
  /** Every table's name and CREATE statement, from sqlite_master. */
  tables: Array<{ name: string; sql: string }>;
  /** PRAGMA table_info(words): name, declared type, NOT NULL, primary key position. */
  columns: Array<{ name: string; type: string; notnull: number; pk: number }>;
  /** The words rows, oldest first. */
  rows: Array<{ date: string; word: string; ipa: string | null; pos: string | null; definition: string | null }>;
}

function query<T>(db: sqlite3.Database, sql: string): Promise<T[]> {
  return new Promise((resolve, reject) => db.all(sql, (error: Error | null, rows: T[]) => (error ? reject(error) : resolve(rows))));
}

/** Opens the bytes as a SQLite database (read-only, from a temporary file); rejects when they are not one. */
export async function readSnapshot(bytes: Uint8Array): Promise<SnapshotContents> {
  const dir = await mkdtemp(join(tmpdir(), 'wotd-snapshot-read-'));
  try {
    const path = join(dir, 'snapshot.db');
    await writeFile(path, bytes);
    const db = await new Promise<sqlite3.Database>((resolve, reject) => {
      const opened: sqlite3.Database = new sqlite3.Database(path, sqlite3.OPEN_READONLY, (error) => (error ? reject(error) : resolve(opened)));
    });
    try {
      return {
        tables: await query<{ name: string; sql: string }>(db, "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name"),
        columns: await query<{ name: string; type: string; notnull: number; pk: number }>(db, 'SELECT name, type, "notnull", pk FROM pragma_table_info(\'words\')'),
        rows: await query(db, 'SELECT date, word, ipa, pos, definition FROM words ORDER BY date'),
      };
    } finally {
      await new Promise<void>((resolve) => db.close(() => resolve()));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The published schema, as SQLite reports it. */
export const SNAPSHOT_TABLE_SQL = 'CREATE TABLE words (date TEXT PRIMARY KEY, word TEXT NOT NULL, ipa TEXT, pos TEXT, definition TEXT)';
export const SNAPSHOT_COLUMNS = [
  { name: 'date', type: 'TEXT', notnull: 0, pk: 1 },
  { name: 'word', type: 'TEXT', notnull: 1, pk: 0 },
  { name: 'ipa', type: 'TEXT', notnull: 0, pk: 0 },
  { name: 'pos', type: 'TEXT', notnull: 0, pk: 0 },
  { name: 'definition', type: 'TEXT', notnull: 0, pk: 0 },
];
