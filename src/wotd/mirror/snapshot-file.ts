/**
 * A downloaded snapshot is untrusted input. It is written to a private temporary directory (withPrivateTempFile),
 * its header is checked before SQLite sees it, it is opened read-only and immutable (no journal, no WAL, no lock
 * files, ATTACH limited to none, schema functions untrusted), its `words` table's shape is checked, and each row goes
 * through the same zod schema as the service's answers (wire.ts): a bad row is skipped and counted, never kept.
 * A file that cannot be used at all is refused with a SnapshotRefused naming why, in one line.
 */
import { constants } from 'node:fs';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import sqlite3 from 'sqlite3';
import { parseIsoDate, type IsoDate } from '../dates.ts';
import type { Entry } from '../entry.ts';
import { checkEntry } from '../wire.ts';

export type RefusalReason = 'too_large' | 'truncated' | 'not_sqlite' | 'corrupt' | 'wrong_schema' | 'too_many_rows' | 'empty' | 'too_slow';

/** A snapshot that cannot be used; the previous mirror is kept. */
export class SnapshotRefused extends Error {
  override readonly name = 'SnapshotRefused';
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}

/** More rows than this is not a word-a-day list (it would be 270 years of one). */
export const DEFAULT_MAX_ROWS = 100_000;
/** A row whose five values together are larger than this is skipped unread (a real one is well under 2 KB). */
export const MAX_ROW_BYTES = 16 * 1024;
/** Reading a file may take this long (SQLite is interrupted past it). */
export const DEFAULT_READ_DEADLINE_MS = 60_000;

const SQLITE_HEADER = Buffer.from('SQLite format 3\u0000', 'latin1');
const COLUMNS = ['date', 'word', 'ipa', 'pos', 'definition'] as const;

export type SkipReason = 'invalid' | 'too_large' | 'future' | 'duplicate';

export interface SnapshotContents {
  /** The rows that passed, oldest first. */
  entries: Entry[];
  /** Rows in the table. */
  rows: number;
  skipped: Record<SkipReason, number>;
  /** Dates (up to `lastDate`) of rows skipped as invalid or too large: days the mirror cannot answer. */
  holes: IsoDate[];
  /** The newest date the file accounts for (an entry or a skipped row), or null when it holds none. */
  newest: IsoDate | null;
  /** The first skipped row's problem, shortened, for the log. */
  firstProblem: string | null;
}

export interface SnapshotReadOptions {
  /** Rows dated after this are skipped as 'future' (a snapshot holds none, and none is shown before its day). */
  lastDate: IsoDate;
  maxRows?: number;
  deadlineMs?: number;
}

/**
 * Runs `work` with the path of a file that does not exist yet inside a new directory only this user can enter;
 * the directory and whatever is in it are deleted afterwards, whatever happens.
 */
export async function withPrivateTempFile<T>(work: (path: string) => Promise<T>, parent: string = tmpdir()): Promise<T> {
  const dir = await mkdtemp(join(parent, 'wotd-mirror-'));
  try {
    return await work(join(dir, 'snapshot.db'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Copies a local snapshot to `dest` (which must not exist), refusing it when larger than `maxBytes`. Anything but a
 * regular file (a FIFO, a device, a directory) is refused before it is opened: opening a FIFO waits for a writer on
 * a thread of the pool, for good. The open is non-blocking as well, for a FIFO put there between the look and the
 * open, and the copy reads from that one handle, never opening the path again.
 */
export async function copyBounded(source: string, dest: string, maxBytes: number): Promise<number> {
  const seen = await stat(source);
  if (!seen.isFile()) throw new SnapshotRefused('not_sqlite', `${source} is not a regular file`);
  const input = await open(source, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const info = await input.stat();
    if (!info.isFile()) throw new SnapshotRefused('not_sqlite', `${source} is not a regular file`);
    if (info.size > maxBytes) throw new SnapshotRefused('too_large', `${source} is ${info.size} bytes, over the ${maxBytes}-byte limit`);
    const output = await open(dest, 'wx');
    let copied = 0;
    try {
      const chunk = Buffer.alloc(1 << 16);
      for (;;) {
        const { bytesRead } = await input.read(chunk, 0, chunk.length, copied);
        if (bytesRead === 0) break;
        copied += bytesRead;
        // It may have grown between the look and the copy.
        if (copied > maxBytes) throw new SnapshotRefused('too_large', `${source} grew past the ${maxBytes}-byte limit while being copied`);
        await output.write(chunk, 0, bytesRead);
      }
    } finally {
      await output.close();
    }
    return copied;
  } finally {
    await input.close();
  }
}

/**
 * Checks the 100-byte SQLite header of the file at `path` (our own temporary copy) against its size: the magic
 * string, a valid page size, a known file format, whole pages, and as many pages as the header says. A file in WAL
 * mode is marked rollback-mode in place, so SQLite looks for no -wal or -shm file beside it (its log was never part
 * of the download).
 */
export async function checkSqliteHeader(path: string): Promise<void> {
  const handle = await open(path, 'r+');
  try {
    const { size } = await handle.stat();
    const header = Buffer.alloc(100);
    const { bytesRead } = await handle.read(header, 0, 100, 0);
    const start = header.subarray(0, Math.min(bytesRead, 16));
    if (!start.equals(SQLITE_HEADER.subarray(0, start.length)) || bytesRead === 0) {
      throw new SnapshotRefused('not_sqlite', `it is not a SQLite database (it starts with ${describeStart(header.subarray(0, Math.min(bytesRead, 16)))})`);
    }
    if (bytesRead < 100) throw new SnapshotRefused('truncated', `it is cut short: ${size} bytes, less than SQLite's 100-byte header`);
    const rawPageSize = header.readUInt16BE(16);
    const pageSize = rawPageSize === 1 ? 65_536 : rawPageSize;
    if (pageSize < 512 || pageSize > 65_536 || (pageSize & (pageSize - 1)) !== 0) {
      throw new SnapshotRefused('corrupt', `its header gives an impossible page size (${rawPageSize})`);
    }
    const [writeVersion, readVersion] = [header[18], header[19]];
    if ((writeVersion !== 1 && writeVersion !== 2) || (readVersion !== 1 && readVersion !== 2)) {
      throw new SnapshotRefused('corrupt', `its header gives an unknown file format (${writeVersion}/${readVersion})`);
    }
    if (size % pageSize !== 0) throw new SnapshotRefused('truncated', `it is cut short: ${size} bytes is not a whole number of ${pageSize}-byte pages`);
    const pages = header.readUInt32BE(28);
    // The page count is valid only when the change counter matches "version-valid-for" (SQLite ≥ 3.7.0 keeps both).
    if (pages > 0 && header.readUInt32BE(24) === header.readUInt32BE(92) && size < pages * pageSize) {
      throw new SnapshotRefused('truncated', `it is cut short: ${size} bytes where its header says ${pages} pages of ${pageSize}`);
    }
    if (writeVersion === 2 || readVersion === 2) await handle.write(Buffer.from([1, 1]), 0, 2, 18);
  } finally {
    await handle.close();
  }
}

/** Reads a snapshot file already checked by checkSqliteHeader. Throws SnapshotRefused when it cannot be used. */
export async function readSnapshotFile(path: string, options: SnapshotReadOptions): Promise<SnapshotContents> {
  const maxRows = options.maxRows ?? DEFAULT_MAX_ROWS;
  const db = await openReadOnly(path);
  const deadlineMs = options.deadlineMs ?? DEFAULT_READ_DEADLINE_MS;
  let slow = false;
  const deadline = setTimeout(() => {
    slow = true;
    db.interrupt();
  }, deadlineMs);
  try {
    await exec(db, 'PRAGMA trusted_schema = OFF; PRAGMA query_only = ON;');
    await checkWordsIsTable(db);
    const check = await all(db, 'PRAGMA quick_check(1)');
    const verdict = String(Object.values(check[0] ?? {})[0] ?? 'no answer');
    if (verdict !== 'ok') throw new SnapshotRefused('corrupt', `it is damaged (SQLite's check: ${shorten(verdict)})`);
    await checkColumns(db);
    const counted = await all(db, 'SELECT count(*) AS n FROM words');
    const rows = Number((counted[0] as { n?: unknown } | undefined)?.n ?? 0);
    if (rows > maxRows) throw new SnapshotRefused('too_many_rows', `its words table has ${rows} rows, more than the ${maxRows} accepted`);
    const contents = await readRows(db, options.lastDate, maxRows);
    if (contents.entries.length === 0) {
      const why = rows === 0 ? 'its words table is empty' : `none of its ${rows} rows is usable (${contents.firstProblem ?? 'all skipped'})`;
      throw new SnapshotRefused('empty', why);
    }
    return { ...contents, rows };
  } catch (error) {
    if (error instanceof SnapshotRefused) throw error;
    throw refusalFor(error, slow, deadlineMs);
  } finally {
    clearTimeout(deadline);
    await close(db).catch(() => undefined);
  }
}

/** `words` must be an ordinary table (read from the schema's text alone: a virtual table is never instantiated). */
async function checkWordsIsTable(db: sqlite3.Database): Promise<void> {
  const objects = (await all(db, "SELECT type, sql FROM sqlite_master WHERE lower(name) = 'words'")) as Array<{ type?: unknown; sql?: unknown }>;
  const table = objects[0];
  if (!table) throw new SnapshotRefused('wrong_schema', 'it has no words table');
  if (objects.length > 1 || table.type !== 'table') throw new SnapshotRefused('wrong_schema', `its words is a ${String(table.type)}, not a table`);
  if (typeof table.sql === 'string' && /^\s*create\s+virtual\b/i.test(table.sql)) throw new SnapshotRefused('wrong_schema', 'its words is a virtual table');
}

/** The five TEXT columns, none of them generated or hidden (others may follow; they are never read). */
async function checkColumns(db: sqlite3.Database): Promise<void> {
  const columns = (await all(db, 'PRAGMA table_xinfo(words)')) as Array<{ name?: unknown; type?: unknown; hidden?: unknown }>;
  const byName = new Map(columns.map((column) => [String(column.name).toLowerCase(), column]));
  const problems: string[] = [];
  for (const name of COLUMNS) {
    const column = byName.get(name);
    if (!column) problems.push(`no ${name} column`);
    else if (Number(column.hidden) !== 0) problems.push(`${name} is a generated or hidden column`);
    else if (String(column.type).toUpperCase() !== 'TEXT') problems.push(`${name} is ${shorten(String(column.type)) || 'untyped'}, not TEXT`);
  }
  if (problems.length > 0) throw new SnapshotRefused('wrong_schema', `its words table is not words(date, word, ipa, pos, definition) of TEXT: ${problems.join(', ')}`);
}

/**
 * Rows one at a time; a row past MAX_ROW_BYTES stays inside SQLite (it reads as its size only). Only the five
 * columns are selected, so no other column of the file (a "size" of its own, say) can stand in for them.
 */
function readRows(db: sqlite3.Database, lastDate: IsoDate, maxRows: number): Promise<Omit<SnapshotContents, 'rows'>> {
  const sized = COLUMNS.map((name) => `coalesce(octet_length("${name}"), 0)`).join(' + ');
  const picked = COLUMNS.map((name) => `CASE WHEN size <= ${MAX_ROW_BYTES} THEN "${name}" END AS "${name}"`).join(', ');
  const sql = `SELECT ${picked}, size, CASE WHEN typeof(date) = 'text' AND octet_length(date) = 10 THEN date END AS rawDate FROM (SELECT ${COLUMNS.map((name) => `"${name}"`).join(', ')}, ${sized} AS size FROM words LIMIT ${maxRows})`;
  const byDate = new Map<IsoDate, Entry>();
  const holes = new Set<IsoDate>();
  const skipped: Record<SkipReason, number> = { invalid: 0, too_large: 0, future: 0, duplicate: 0 };
  let firstProblem: string | null = null;
  let newest: IsoDate | null = null;
  let index = 0;
  const skip = (reason: SkipReason, problem: string, date: IsoDate | null): void => {
    skipped[reason]++;
    firstProblem ??= shorten(`row ${index}: ${problem}`);
    if (date !== null && date <= lastDate && (reason === 'invalid' || reason === 'too_large')) {
      holes.add(date);
      if (newest === null || date > newest) newest = date;
    }
  };
  return new Promise((resolve, reject) => {
    db.each(
      sql,
      (error: Error | null, row: Record<string, unknown>) => {
        if (error) return;
        index++;
        const rawDate = typeof row.rawDate === 'string' ? parseIsoDate(row.rawDate) : null;
        if (Number(row.size) > MAX_ROW_BYTES) return skip('too_large', `${Number(row.size)} bytes, over ${MAX_ROW_BYTES}`, rawDate);
        const checked = checkEntry({ date: row.date, word: row.word, ipa: row.ipa, pos: row.pos, definition: row.definition }, 'A');
        if (!checked.ok) return skip('invalid', checked.problem, rawDate);
        const { entry } = checked;
        if (entry.date > lastDate) return skip('future', `${entry.date} is after ${lastDate}`, null);
        if (byDate.has(entry.date)) return skip('duplicate', `a second row for ${entry.date}`, null);
        byDate.set(entry.date, entry);
        if (newest === null || entry.date > newest) newest = entry.date;
      },
      (error: Error | null) => {
        if (error) return reject(error);
        for (const date of byDate.keys()) holes.delete(date);
        const entries = [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : 1));
        resolve({ entries, skipped, holes: [...holes].sort(), newest, firstProblem });
      },
    );
  });
}

function openReadOnly(path: string): Promise<sqlite3.Database> {
  // immutable=1: SQLite takes no lock and creates no journal, WAL or shared-memory file; mode=ro: nothing is written.
  const uri = `${pathToFileURL(path).href}?mode=ro&immutable=1`;
  return new Promise((resolve, reject) => {
    const db: sqlite3.Database = new sqlite3.Database(uri, sqlite3.OPEN_READONLY | sqlite3.OPEN_URI, (error) => {
      if (error) return reject(new SnapshotRefused('not_sqlite', `SQLite could not open it (${shorten(error.message)})`));
      // No ATTACH can reach another file, and no statement here asks for one.
      db.configure('limit', sqlite3.LIMIT_ATTACHED, 0);
      resolve(db);
    });
  });
}

function refusalFor(error: unknown, slow: boolean, deadlineMs: number): SnapshotRefused {
  const message = error instanceof Error ? error.message : String(error);
  if (slow || /SQLITE_INTERRUPT/.test(message)) return new SnapshotRefused('too_slow', `reading it took longer than ${deadlineMs} ms`);
  if (/SQLITE_NOTADB/.test(message)) return new SnapshotRefused('not_sqlite', `it is not a SQLite database (${shorten(message)})`);
  return new SnapshotRefused('corrupt', `SQLite could not read it (${shorten(message)})`);
}

function describeStart(bytes: Buffer): string {
  if (bytes.length === 0) return 'nothing: it is empty';
  const text = bytes.toString('latin1').replace(/[^\x20-\x7e]/g, '.');
  return JSON.stringify(text);
}

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}

function exec(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.exec(sql, (error) => (error ? reject(error) : resolve())));
}

function all(db: sqlite3.Database, sql: string): Promise<unknown[]> {
  return new Promise((resolve, reject) => db.all(sql, (error: Error | null, rows: unknown[]) => (error ? reject(error) : resolve(rows))));
}

function close(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve, reject) => db.close((error) => (error ? reject(error) : resolve())));
}
