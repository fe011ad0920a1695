import { assertRegularFile } from '../config/path-kind.ts';
import sqlite3 from 'sqlite3';
import { entrySchema, type Entry } from '../wotd/entry.ts';

/**
 * The word list as SQLite: the same single table the public database download uses.
 * Dates are stored YYYY-MM-DD whatever variant the service speaks.
 */
export const WORDS_TABLE_SQL =
  'CREATE TABLE IF NOT EXISTS words (date TEXT PRIMARY KEY, word TEXT NOT NULL, ipa TEXT, pos TEXT, definition TEXT)';

/** A word database that cannot be used; the message is one line naming the file and the problem. */
export class WordDbError extends Error {
  override readonly name = 'WordDbError';
}

function openDatabase(path: string, mode: number): Promise<sqlite3.Database> {
  // A FIFO or a device would block the open on a thread of the pool for good: refused before it is opened.
  try {
    assertRegularFile(path, 'the word list');
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  return new Promise((resolve, reject) => {
    const db: sqlite3.Database = new sqlite3.Database(path, mode, (error) => (error ? reject(error) : resolve(db)));
  });
}

function closeDatabase(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve, reject) => db.close((error) => (error ? reject(error) : resolve())));
}

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
}

function all(db: sqlite3.Database, sql: string): Promise<unknown[]> {
  return new Promise((resolve, reject) =>
    db.all(sql, (error: Error | null, rows: unknown[]) => (error ? reject(error) : resolve(rows))),
  );
}

/** Rows per INSERT statement: 5 parameters each, well under SQLite's oldest limit of 999. */
const ROWS_PER_INSERT = 100;

export interface WriteWordDbOptions {
  /** Stored as PRAGMA user_version (a whole number 0..2^31-1): a mark that leaves the one-table schema as it is. */
  userVersion?: number;
}

/**
 * Writes entries into the `words` table of a SQLite file, creating the file and the table when missing.
 * An entry whose date is already stored replaces it. Everything is written in one transaction.
 */
export async function writeWordDb(path: string, entries: readonly Entry[], options: WriteWordDbOptions = {}): Promise<void> {
  const { userVersion } = options;
  if (userVersion !== undefined && !(Number.isSafeInteger(userVersion) && userVersion >= 0 && userVersion <= 0x7fffffff)) {
    throw new RangeError(`userVersion must be a whole number from 0 to 2147483647, got ${String(userVersion)}`);
  }
  const db = await openDatabase(path, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE);
  try {
    await exec(db, WORDS_TABLE_SQL);
    await exec(db, 'BEGIN');
    try {
      for (let start = 0; start < entries.length; start += ROWS_PER_INSERT) {
        const chunk = entries.slice(start, start + ROWS_PER_INSERT);
        const sql = `INSERT OR REPLACE INTO words (date, word, ipa, pos, definition) VALUES ${chunk.map(() => '(?, ?, ?, ?, ?)').join(', ')}`;
        const values = chunk.flatMap((entry) => [entry.date, entry.word, entry.ipa, entry.pos, entry.definition]);
        await new Promise<void>((resolve, reject) =>
          db.run(sql, values, (error: Error | null) => (error ? reject(error) : resolve())),
        );
      }
      if (userVersion !== undefined) await exec(db, `PRAGMA user_version = ${userVersion}`);
      await exec(db, 'COMMIT');
    } catch (error) {
      await exec(db, 'ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    await closeDatabase(db);
  }
}

/** PRAGMA user_version of a SQLite file, opened read-only; rejects when it cannot be opened or read. */
export async function readUserVersion(path: string): Promise<number> {
  const db = await openDatabase(path, sqlite3.OPEN_READONLY);
  try {
    const rows = await all(db, 'PRAGMA user_version');
    const value = (rows[0] as { user_version?: unknown } | undefined)?.user_version;
    if (typeof value !== 'number') throw new WordDbError(`cannot read the user_version of ${path}`);
    return value;
  } finally {
    await closeDatabase(db).catch(() => undefined);
  }
}

function describeSqliteError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_CANTOPEN') return 'the file does not exist or cannot be opened';
  if (code === 'SQLITE_NOTADB') return 'the file is not a SQLite database';
  if (code === 'SQLITE_CORRUPT') return 'the database file is corrupt';
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^SQLITE_\w+:\s*/, '').replace(/\s+/g, ' ');
}

function nullToEmpty(value: unknown): unknown {
  return value === null ? '' : value;
}

/**
 * Reads every row of the `words` table, oldest first, each checked against the entry schema.
 * Missing ipa, pos or definition (NULL) read as empty strings. Any unusable row, a missing table or
 * an unreadable file rejects with a WordDbError, so a service never starts on half a word list.
 */
export async function readWordDb(path: string): Promise<Entry[]> {
  let db: sqlite3.Database;
  try {
    db = await openDatabase(path, sqlite3.OPEN_READONLY);
  } catch (error) {
    throw new WordDbError(`cannot open word database ${path}: ${describeSqliteError(error)}`);
  }
  try {
    let rows: unknown[];
    try {
      rows = await all(db, 'SELECT rowid, date, word, ipa, pos, definition FROM words ORDER BY date');
    } catch (error) {
      const reason = describeSqliteError(error);
      throw new WordDbError(
        /no such (table|column)/.test(reason)
          ? `cannot read word database ${path}: ${reason} (expected table words(date, word, ipa, pos, definition))`
          : `cannot read word database ${path}: ${reason}`,
      );
    }
    const entries: Entry[] = [];
    for (const raw of rows) {
      const row = raw as Record<string, unknown>;
      const parsed = entrySchema.safeParse({
        date: row.date,
        word: row.word,
        ipa: nullToEmpty(row.ipa),
        pos: nullToEmpty(row.pos),
        definition: nullToEmpty(row.definition),
      });
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = String(issue?.path[0] ?? 'row');
        throw new WordDbError(
          `bad row in word database ${path}: rowid ${String(row.rowid)} (date ${JSON.stringify(row.date)}), ` +
            `${field}: ${issue?.message ?? 'invalid value'}`,
        );
      }
      entries.push(parsed.data);
    }
    return entries;
  } finally {
    await closeDatabase(db).catch(() => undefined);
  }
}
