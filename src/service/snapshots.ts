import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { IsoDate } from '../wotd/dates.ts';
import type { Entry } from '../wotd/entry.ts';
import { readUserVersion, writeWordDb } from './word-db.ts';

/**
 * Monthly snapshots of the word list, as the public site publishes them on /databases: `wotd_YYYY-MM.db`, a SQLite
 * file with the one table words(date, word, ipa, pos, definition) holding every entry up to the last day of month
 * YYYY-MM. A month is published once it is over, so a snapshot never holds a word before its day.
 */

/** A calendar month written YYYY-MM. */
export type YearMonth = string;

/** The only names a snapshot file may have. */
export const SNAPSHOT_NAME_PATTERN = /^wotd_(\d{4}-(?:0[1-9]|1[0-2]))\.db$/;
/** Months kept when not told otherwise: two years. */
export const DEFAULT_SNAPSHOT_KEEP = 24;
export const MAX_SNAPSHOT_KEEP = 1_200;
/** A temporary file of ours this old was left by a writer that died; younger ones may still be in use. */
const ABANDONED_TEMP_MS = 60 * 60_000;
const TEMP_PATTERN = /^\.wotd_\d{4}-\d{2}\.db\.[0-9a-f]+\.tmp(-journal)?$/;

export function snapshotFileName(month: YearMonth): string {
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new RangeError(`a snapshot month is YYYY-MM, got ${JSON.stringify(month)}`);
  return `wotd_${month}.db`;
}

/** The month a snapshot file name stands for, or null when the name is not exactly wotd_YYYY-MM.db. */
export function snapshotMonthOf(name: string): YearMonth | null {
  return SNAPSHOT_NAME_PATTERN.exec(name)?.[1] ?? null;
}

function monthOf(date: IsoDate): YearMonth {
  return date.slice(0, 7);
}

function nextMonth(month: YearMonth): YearMonth {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return number === 12 ? `${String(year + 1).padStart(4, '0')}-01` : `${String(year).padStart(4, '0')}-${String(number + 1).padStart(2, '0')}`;
}

function previousMonth(month: YearMonth): YearMonth {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return number === 1 ? `${String(year - 1).padStart(4, '0')}-12` : `${String(year).padStart(4, '0')}-${String(number - 1).padStart(2, '0')}`;
}

/** The newest month that is over on `today` (UTC): the month before today's. */
export function lastCompleteMonth(today: IsoDate): YearMonth {
  return previousMonth(monthOf(today));
}

/** When the public site writes a month's snapshot: 00:00 UTC on the 1st of the month after. */
export function publishedAt(month: YearMonth): Date {
  return new Date(`${nextMonth(month)}-01T00:00:00.000Z`);
}

/** The entries a month's snapshot holds: every one dated up to the month's last day, oldest first. */
export function snapshotEntries(entries: readonly Entry[], month: YearMonth): Entry[] {
  return entries.filter((entry) => monthOf(entry.date) <= month).sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

function clampKeep(keep: number | undefined): number {
  if (keep === undefined) return DEFAULT_SNAPSHOT_KEEP;
  if (!Number.isSafeInteger(keep) || keep < 1 || keep > MAX_SNAPSHOT_KEEP) {
    throw new RangeError(`snapshot keep must be a whole number from 1 to ${MAX_SNAPSHOT_KEEP}, got ${String(keep)}`);
  }
  return keep;
}

/**
 * The months published on `today`: from the month of the first entry through the last complete month, the newest
 * `keep` of them, oldest first. No entries, no months.
 */
export function dueMonths(entries: readonly Entry[], today: IsoDate, keep = DEFAULT_SNAPSHOT_KEEP): YearMonth[] {
  const limit = clampKeep(keep);
  let first: IsoDate | undefined;
  for (const entry of entries) if (first === undefined || entry.date < first) first = entry.date;
  if (first === undefined) return [];
  const months: YearMonth[] = [];
  const start = monthOf(first);
  for (let month = lastCompleteMonth(today); month >= start && months.length < limit; month = previousMonth(month)) {
    months.push(month);
  }
  return months.reverse();
}

/**
 * Writes a month's snapshot to `path` atomically: into a temporary file beside it, then renamed over it, so a reader
 * sees the old file or the new one, never half of one. `userVersion` is stored as PRAGMA user_version.
 */
export async function writeSnapshot(path: string, entries: readonly Entry[], month: YearMonth, userVersion?: number): Promise<void> {
  const dir = dirname(path);
  const temporary = join(dir, `.${snapshotFileName(month)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeWordDb(temporary, snapshotEntries(entries, month), userVersion === undefined ? {} : { userVersion });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    await rm(`${temporary}-journal`, { force: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * A mark of each month's content (every entry up to its end), 31 bits, so a snapshot left in the folder by an earlier
 * run is kept when it still matches the word list and written again when it does not.
 */
function contentMarks(entries: readonly Entry[], months: readonly YearMonth[]): Map<YearMonth, number> {
  const sorted = [...entries].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  const marks = new Map<YearMonth, number>();
  let chain = createHash('sha256').update('wotd snapshots v1').digest();
  let position = 0;
  for (const month of months) {
    const hash = createHash('sha256').update(chain);
    for (; position < sorted.length && monthOf((sorted[position] as Entry).date) <= month; position += 1) {
      const entry = sorted[position] as Entry;
      hash.update(JSON.stringify([entry.date, entry.word, entry.ipa, entry.pos, entry.definition]));
    }
    chain = hash.digest();
    marks.set(month, chain.readUInt32BE(0) & 0x7fffffff);
  }
  return marks;
}

/** A snapshot file being served. */
export interface SnapshotFile {
  name: string;
  month: YearMonth;
  path: string;
}

export interface SnapshotShelfOptions {
  /** The word list; snapshots are cut from it. */
  entries: readonly Entry[];
  /** The folder the files live in, created when missing. Other files in it are left alone. */
  dir: string;
  /** How many months are kept, newest first (default 24): older snapshot files in the folder are deleted. */
  keep?: number;
}

/**
 * The snapshot files of one word list in one folder. `update(today)` brings the folder up to date for a day (writes
 * each due month whose file is missing or no longer matches, deletes snapshot files of months not due, including
 * any of a month not yet over), once per published month: the next call with a day of the same month costs nothing.
 */
export class SnapshotShelf {
  readonly dir: string;
  private readonly entries: readonly Entry[];
  private readonly keep: number;
  private current: { last: YearMonth; due: Set<YearMonth>; done: Promise<void> } | undefined;

  constructor(options: SnapshotShelfOptions) {
    this.entries = [...options.entries];
    this.dir = options.dir;
    this.keep = clampKeep(options.keep);
  }

  /** Makes the folder hold exactly the months due on `today`; rejects when a file cannot be written or deleted. */
  async update(today: IsoDate): Promise<void> {
    await this.prepare(today).done;
  }

  /** The months due on `today` and the writing that puts them in the folder (started once per published month). */
  private prepare(today: IsoDate): { last: YearMonth; due: Set<YearMonth>; done: Promise<void> } {
    const last = lastCompleteMonth(today);
    if (this.current?.last === last) return this.current;
    const months = dueMonths(this.entries, today, this.keep);
    // After any writing still under way for another month, so two never work on the folder at once.
    const before = this.current?.done.catch(() => undefined) ?? Promise.resolve();
    const current = { last, due: new Set(months), done: before.then(() => this.write(months)) };
    this.current = current;
    // A failure is the caller's to report; the next call tries again.
    current.done.catch(() => {
      if (this.current === current) this.current = undefined;
    });
    return current;
  }

  /** Resolves once no writing is under way (whether it succeeded or not): before the folder is removed, say. */
  async settled(): Promise<void> {
    await this.current?.done.catch(() => undefined);
  }

  /** The published file names in the folder's own order (not sorted), once `update(today)` is done. */
  async list(today: IsoDate): Promise<string[]> {
    const { due, done } = this.prepare(today);
    await done;
    const names = await readdir(this.dir);
    return names.filter((name) => {
      const month = snapshotMonthOf(name);
      return month !== null && due.has(month);
    });
  }

  /** The file behind a name, when the name is a published month's and its file is there; otherwise undefined. */
  async find(name: string, today: IsoDate): Promise<SnapshotFile | undefined> {
    const month = snapshotMonthOf(name);
    if (month === null || month > lastCompleteMonth(today)) return undefined;
    const { due, done } = this.prepare(today);
    await done;
    if (!due.has(month)) return undefined;
    const path = join(this.dir, snapshotFileName(month));
    try {
      if (!(await stat(path)).isFile()) return undefined;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return { name: snapshotFileName(month), month, path };
  }

  private async write(months: readonly YearMonth[]): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const due = new Set(months);
    const now = Date.now();
    for (const name of await readdir(this.dir)) {
      const month = snapshotMonthOf(name);
      if (month !== null && !due.has(month)) await rm(join(this.dir, name), { force: true });
      else if (TEMP_PATTERN.test(name)) {
        const info = await stat(join(this.dir, name)).catch(() => undefined);
        if (info && now - info.mtimeMs > ABANDONED_TEMP_MS) await rm(join(this.dir, name), { force: true });
      }
    }
    const marks = contentMarks(this.entries, months);
    for (const month of months) {
      const path = join(this.dir, snapshotFileName(month));
      const mark = marks.get(month) as number;
      if ((await readUserVersion(path).catch(() => undefined)) === mark) continue;
      await writeSnapshot(path, this.entries, month, mark);
    }
  }
}
