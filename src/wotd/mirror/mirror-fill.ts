/**
 * Filling the days after the mirror's last covered day up to yesterday from the service (mirror-refresh.ts step 3),
 * with `/query_previous` pages through the adapter. First the page before today: when it reaches back into the
 * mirror (the usual day, or a service with no newer words), it alone fills the gap. Otherwise pages of PAGE_DAYS go
 * forward from the mirror's last day, each ending on the day after its span, so each page (newest first, days without
 * a word skipped) accounts for every day it spans and the coverage grows without a gap until it meets the first page.
 */
import { addDays, type IsoDate } from '../dates.ts';
import type { Entry } from '../entry.ts';
import type { HistoryPage, Lookup, LookupOptions } from '../lookup.ts';

/** History pages one refresh asks for at most (8 days each); the rest wait for the next round, soon after. */
export const MAX_FILL_PAGES = 8;
const PAGE_DAYS = 8;

export type PageSource = (date: IsoDate, limit: number, options: LookupOptions) => Promise<Lookup<HistoryPage>>;

export interface Filled {
  /** Entries after the mirror's last day, in no order. */
  added: Entry[];
  /** The last day now accounted for (the mirror's own when nothing could be filled). */
  coveredThrough: IsoDate;
  /** Why it stopped short, if it did. */
  failure: string | null;
}

/** The days after `coveredThrough` up to the day before `today`, as far as MAX_FILL_PAGES pages reach. */
export async function fillDays(getPrevious: PageSource, coveredThrough: IsoDate, today: IsoDate, options: LookupOptions): Promise<Filled> {
  const yesterday = addDays(today, -1);
  let covered = coveredThrough;
  const added: Entry[] = [];
  let failure: string | null = null;
  const ask = async (before: IsoDate): Promise<HistoryPage | null> => {
    try {
      return (await getPrevious(before, PAGE_DAYS, options)).value;
    } catch (error) {
      failure = error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : String(error);
      return null;
    }
  };
  if (covered >= yesterday) return { added, coveredThrough: covered, failure };
  const recent = await ask(today);
  const start = covered;
  if (recent && recent.entries.some((entry) => entry.date <= start)) {
    added.push(...recent.entries.filter((entry) => entry.date > start));
    covered = yesterday;
  } else if (recent) {
    // The page spans its oldest entry to yesterday: fill forward from the mirror until it is met.
    const meet = recent.entries.at(-1)?.date ?? today;
    for (let pages = 1; covered < addDays(meet, -1) && pages < MAX_FILL_PAGES; pages++) {
      const end = addDays(covered, PAGE_DAYS + 1);
      const before = end < meet ? end : meet;
      const page = await ask(before);
      if (!page) break;
      if (!(page.entries.length >= PAGE_DAYS || page.entries.some((entry) => entry.date <= covered))) {
        failure = `the service's page before ${before} does not reach ${covered}, the mirror's last day`;
        break;
      }
      const after = covered;
      added.push(...page.entries.filter((entry) => entry.date > after && entry.date < before));
      covered = addDays(before, -1);
    }
    if (covered >= addDays(meet, -1)) {
      const after = covered;
      added.push(...recent.entries.filter((entry) => entry.date > after));
      covered = yesterday;
    }
  }
  return { added, coveredThrough: covered, failure };
}
