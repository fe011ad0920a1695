/** A page of past entries (`/query_previous`), from the mirror or the cache when its days are known. */
import type { IsoDate } from './dates.ts';
import { WotdError } from './errors.ts';
import type { Flight } from './flight.ts';
import { historyFromCache, requestPrevious } from './history-read-ahead.ts';
import type { HistoryPage, Lookup, LookupOptions } from './lookup.ts';
import { checkDate, hit, mirrorHit, shared, withStale, type LookupContext, type Outcome } from './lookup-context.ts';
import { mirrorHistory } from './mirror/mirror-answers.ts';

export const MAX_HISTORY_LIMIT = 8;

/** Not an async function: it only counts the lookup, and another async frame per command costs. */
export function getPrevious(ctx: LookupContext, date: IsoDate | undefined, limit: number, options: LookupOptions): Promise<Lookup<HistoryPage>> {
  ctx.counters.lookups++;
  return lookUpPrevious(ctx, date, limit, options);
}

/** getPrevious, not counted as a lookup of its own (a search asks it for the days after the mirror). */
export async function lookUpPrevious(ctx: LookupContext, date: IsoDate | undefined, limit: number, options: LookupOptions): Promise<Lookup<HistoryPage>> {
  const today = ctx.today();
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_LIMIT) {
    throw new WotdError('invalid_input', `The history limit must be a whole number from 1 to ${MAX_HISTORY_LIMIT}`);
  }
  const before = date === undefined ? today : checkDate(date, today);
  // Without a mirror in use, not even a wait for its answer.
  const mirrored = ctx.mirror?.current() ? await mirrorHistory(ctx, before, limit) : null;
  if (mirrored) return mirrorHit(ctx, mirrored);
  const fromCache = await historyFromCache(ctx, before, limit);
  if (fromCache?.fresh) return hit(ctx, fromCache.page);
  const fetchLimit = Math.max(limit, ctx.readAhead);
  const outcome = await withStale(ctx, fromCache?.page, () =>
    shared(ctx, `prev:${before}:${fetchLimit}`, '/query_previous', options, (flight) => fetchPrevious(ctx, flight, before, fetchLimit, today)),
  );
  if (outcome.kind === 'not_found') return { value: { entries: [], hasMore: false }, stale: false, fromCache: false };
  const page = outcome.value.value;
  return { ...outcome.value, value: { entries: page.entries.slice(0, limit), hasMore: page.entries.length > limit || page.hasMore } };
}

async function fetchPrevious(
  ctx: LookupContext,
  flight: Flight<Outcome<HistoryPage>>,
  before: IsoDate,
  limit: number,
  today: IsoDate,
): Promise<Outcome<HistoryPage>> {
  const { entries, hasMore } = await requestPrevious(ctx, flight, before, limit, today);
  return { kind: 'ok', value: { entries, hasMore } };
}
