/**
 * The site's `/databases` page lists monthly snapshots as links `/databases/download/wotd_YYYY-MM.db`, in the
 * server's directory order (not sorted). Only the file name is taken from the page: the link is rebuilt on the
 * site's own origin, so a page cannot send the download elsewhere.
 */
import { addDays, type IsoDate } from '../dates.ts';

export interface SnapshotLink {
  /** wotd_YYYY-MM.db */
  name: string;
  /** YYYY-MM */
  month: string;
  url: string;
}

/** Links read from one page at most: a real listing has one a month. */
const MAX_LINKS = 10_000;
const LINK = /\/databases\/download\/(wotd_(\d{4})-(\d{2})\.db)(?![\w.-])/g;
const FILE_NAME = /^wotd_(\d{4})-(\d{2})\.db$/;

/** The distinct snapshots a listing page links to, newest month first. */
export function newestSnapshots(html: string, origin: string): SnapshotLink[] {
  const byName = new Map<string, SnapshotLink>();
  let count = 0;
  for (const match of html.matchAll(LINK)) {
    if (++count > MAX_LINKS) break;
    const [, name = '', year = '', month = ''] = match;
    if (Number(month) < 1 || Number(month) > 12 || byName.has(name)) continue;
    byName.set(name, { name, month: `${year}-${month}`, url: new URL(`/databases/download/${name}`, origin).href });
  }
  return [...byName.values()].sort((a, b) => (a.month < b.month ? 1 : a.month > b.month ? -1 : 0));
}

/** The YYYY-MM of a file named wotd_YYYY-MM.db, or null. */
export function snapshotMonth(name: string): string | null {
  const match = FILE_NAME.exec(name);
  if (!match || Number(match[2]) < 1 || Number(match[2]) > 12) return null;
  return `${match[1]}-${match[2]}`;
}

/** The last day of month YYYY-MM. */
export function lastDayOfMonth(month: string): IsoDate {
  const [year, monthNumber] = month.split('-').map(Number) as [number, number];
  const next = monthNumber === 12 ? `${String(year + 1).padStart(4, '0')}-01-01` : `${String(year).padStart(4, '0')}-${String(monthNumber + 1).padStart(2, '0')}-01`;
  return addDays(next, -1);
}
