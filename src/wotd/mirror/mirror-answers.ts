/**
 * The lookups' answers from the database mirror. Each takes the mirror in use once; null means "not the mirror's
 * to answer" and the lookup goes on as without one (cache, then service).
 *
 * - An entry: a past day the mirror covers (an entry, or none that day).
 * - A history page: its days up to the mirror's last covered day from the mirror, and the few days after it (at most
 *   MAX_TAIL_DAYS, the ones since the last refresh) from the cache when it knows every one of them.
 * - A search: every date the mirror has for the word, any case, with the days after its coverage from the cache;
 *   complete when every one of those days is known (today's entry and a page of recent days are fetched if not).
 */
import { addDays, daysBetween, type IsoDate } from '../dates.ts';
import type { Entry } from '../entry.ts';
import type { HistoryPage } from '../lookup.ts';
import type { LookupContext } from '../lookup-context.ts';
import type { MirrorModel } from './mirror-model.ts';

/** Days after the mirror's coverage a history page or search may fill from the cache (a daily refresh leaves one or two). */
export const MAX_TAIL_DAYS = 8;

export type MirrorEntry = { kind: 'entry'; entry: Entry } | { kind: 'none' };

/** The mirror's answer for a past `day`, or null when it does not cover it. */
export function mirrorEntry(ctx: LookupContext, day: IsoDate, today: IsoDate): MirrorEntry | null {
  const model = ctx.mirror?.current();
  if (!model || day >= today || !model.covers(day)) return null;
  const entry = model.entry(day);
  return entry ? { kind: 'entry', entry } : { kind: 'none' };
}

/** A history page strictly before `before` from the mirror (and the cache for the days after it), or null. */
export async function mirrorHistory(ctx: LookupContext, before: IsoDate, limit: number): Promise<HistoryPage | null> {
  const model = ctx.mirror?.current();
  if (!model) return null;
  const newestDay = addDays(before, -1);
  const tail = await knownDaysAfter(ctx, model, newestDay);
  if (tail === null) return null;
  const rest = model.history(newestDay > model.coveredThrough ? addDays(model.coveredThrough, 1) : before, Math.max(0, limit - tail.length));
  if (rest === null) return null;
  const entries = [...tail, ...rest.entries];
  // With the tail filling the page, `rest` is asked for no entry and says only whether the mirror has older ones.
  const hasMore = entries.length > limit || rest.hasMore;
  return { entries: entries.slice(0, limit), hasMore };
}

export interface MirrorMatches {
  /** Newest first. */
  entries: Entry[];
  /** Every day the word could have been chosen is known. */
  complete: boolean;
}

/** What a lookup learned of some days: their entries, and every day it can speak for (with an entry or without). */
export interface LearnedDays {
  entries: Entry[];
  known: ReadonlySet<IsoDate>;
}

/**
 * The dates `word` was chosen, from the mirror and the days after it. `learn` is asked (once) for the days after
 * the mirror's coverage the cache does not know; null when the mirror cannot answer.
 */
export async function mirrorFind(ctx: LookupContext, word: string, today: IsoDate, learn: (days: IsoDate[]) => Promise<LearnedDays>): Promise<MirrorMatches | null> {
  const model = ctx.mirror?.current();
  if (!model || daysBetween(model.coveredThrough, today) > MAX_TAIL_DAYS + 1) return null;
  const { entries, unknown } = await daysAfterCoverage(ctx, model, today);
  let missing = unknown;
  if (unknown.length > 0) {
    const learned = await learn(unknown);
    missing = unknown.filter((day) => !learned.known.has(day));
    for (const entry of learned.entries) if (unknown.includes(entry.date)) entries.push(entry);
  }
  const lower = word.trim().toLowerCase();
  const recent = entries.filter((entry) => entry.word.toLowerCase() === lower).sort((a, b) => (a.date < b.date ? 1 : -1));
  return { entries: [...recent, ...model.find(lower)], complete: missing.length === 0 && model.complete };
}

/** The mirror's entries of `word` (any case), for merging with a search the service answered. */
export function mirrorMatches(ctx: LookupContext, word: string): readonly Entry[] {
  return ctx.mirror?.current()?.find(word) ?? [];
}

/** The entries of the days after the mirror's coverage up to `newestDay`, newest first, if the cache knows each day. */
async function knownDaysAfter(ctx: LookupContext, model: MirrorModel, newestDay: IsoDate): Promise<Entry[] | null> {
  if (newestDay <= model.coveredThrough) return [];
  if (daysBetween(model.coveredThrough, newestDay) > MAX_TAIL_DAYS) return null;
  const known = await daysAfterCoverage(ctx, model, newestDay);
  return known.unknown.length === 0 ? known.entries : null;
}

/** For each day after the mirror's coverage up to `newestDay`: its cached entry, a remembered "none", or unknown. */
async function daysAfterCoverage(ctx: LookupContext, model: MirrorModel, newestDay: IsoDate): Promise<{ entries: Entry[]; unknown: IsoDate[] }> {
  const days: IsoDate[] = [];
  for (let day = newestDay; day > model.coveredThrough; day = addDays(day, -1)) days.push(day);
  const cached = await ctx.cache.getEntries(days);
  const entries: Entry[] = [];
  const unknown: IsoDate[] = [];
  for (const [index, day] of days.entries()) {
    const found = cached[index];
    if (found) entries.push(found.value);
    else if (!(await ctx.cache.isKnownMissing(day))) unknown.push(day);
  }
  return { entries, unknown };
}
