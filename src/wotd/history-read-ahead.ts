/**
 * History pages: one `query_previous` request fills a run of days in the cache (read-ahead), and a page is
 * answered from the cache when its days and the day before them are known.
 */
import { addDays, daysBefore, type IsoDate } from './dates.ts';
import type { Entry } from './entry.ts';
import type { Flight } from './flight.ts';
import type { HistoryPage } from './lookup.ts';
import type { LookupContext } from './lookup-context.ts';
import { parsePrevious } from './wire.ts';

/**
 * A history page strictly before `before`. An empty page is believed (and remembered for a while) only when the
 * variant is verified and no cached entry lies before `before`; `trusted` says whether an empty page was.
 */
export async function requestPrevious<T>(
  ctx: LookupContext,
  flight: Flight<T>,
  before: IsoDate,
  limit: number,
  today: IsoDate,
): Promise<HistoryPage & { trusted: boolean }> {
  const { cache, variants } = ctx;
  for (;;) {
    const sent = variants.current;
    const answer = await ctx.upstream.request(flight, '/query_previous', { date: before, limit: String(limit) }, true);
    const page = answer.kind === 'not_found' ? { entries: [], hasMore: false } : parsePrevious(answer.body, variants.variantOf(answer.body), before);
    if (page.entries.length === 0) {
      const trust = await variants.trustNegative(flight, sent);
      if (trust === 'retry') continue;
      const earliest = await cache.earliestKnown();
      const plausible = earliest === undefined || earliest >= before;
      const trusted = trust === 'trusted' && plausible;
      if (trusted) await cache.putBefore(before, false);
      return { entries: [], hasMore: false, trusted };
    }
    const entries = page.entries.slice(0, limit);
    const hasMore = page.hasMore || page.entries.length > limit;
    await cache.putEntries(entries, today);
    const oldest = entries.at(-1);
    if (oldest && hasMore) await cache.putBefore(oldest.date, true);
    if (oldest && !hasMore && variants.verified) await cache.putBefore(oldest.date, false);
    return { entries, hasMore, trusted: true };
  }
}

/** A history page from cached consecutive days, with `has_more` from the day before them or a remembered flag. */
export async function historyFromCache(ctx: LookupContext, before: IsoDate, limit: number): Promise<{ page: HistoryPage; fresh: boolean } | null> {
  const { cache } = ctx;
  // The page's days, newest first, and the day before them (whose entry means there are more).
  const days = daysBefore(before, limit + 1);
  const cached = await cache.getEntries(days);
  const entries: Entry[] = [];
  let fresh = true;
  for (let i = 0; i < limit; i++) {
    const found = cached[i];
    if (!found) {
      const anyBefore = await cache.getBefore(addDays(days[i] ?? before, 1));
      if (anyBefore === false) return { page: { entries, hasMore: false }, fresh };
      return null;
    }
    fresh &&= found.fresh;
    entries.push(found.value);
  }
  const oldest = entries.at(-1)?.date ?? before;
  const hasMore = cached[limit] ? true : await cache.getBefore(oldest);
  if (hasMore === undefined) return null;
  return { page: { entries, hasMore }, fresh };
}
