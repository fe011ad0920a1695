/** The days a word was chosen: from the mirror, or `/find_wotd` merged with the days the bot has seen itself. */
import type { IsoDate } from './dates.ts';
import type { Entry } from './entry.ts';
import { lookUpEntry } from './entry-lookup.ts';
import { WotdError, isWotdError } from './errors.ts';
import { withKnownDates } from './find-merge.ts';
import type { Flight } from './flight.ts';
import type { Lookup, LookupOptions, WordMatches } from './lookup.ts';
import { lookUpPrevious, MAX_HISTORY_LIMIT } from './history-lookup.ts';
import { hit, mirrorHit, shared, withStale, type LookupContext, type Outcome } from './lookup-context.ts';
import { mirrorFind, mirrorMatches, type LearnedDays } from './mirror/mirror-answers.ts';
import { parseFind } from './wire.ts';

export const MAX_WORD_LENGTH = 100;

export async function findWord(ctx: LookupContext, word: string, options: LookupOptions): Promise<Lookup<WordMatches>> {
  ctx.counters.lookups++;
  const typed = word.trim();
  if (typed === '') throw new WotdError('invalid_input', 'Give a word to look for');
  if (typed.length > MAX_WORD_LENGTH) {
    throw new WotdError('invalid_input', `A word can be at most ${MAX_WORD_LENGTH} characters long`);
  }
  const today = ctx.today();
  let learned = false;
  // Without a mirror in use, not even a wait for its answer.
  const mirrored = ctx.mirror?.current()
    ? await mirrorFind(ctx, typed, today, (days) => {
        learned = true;
        return learnDays(ctx, days, today, options);
      })
    : null;
  if (mirrored && (mirrored.entries.length > 0 || mirrored.complete)) {
    if (mirrored.entries.length === 0) {
      mirrorHit(ctx, null);
      throw notFoundForWord(typed);
    }
    const value: WordMatches = { entries: mirrored.entries, complete: mirrored.complete };
    // Having asked for the days after the mirror, the answer was not the mirror's alone: that lookup counted itself.
    return learned ? { value, stale: false, fromCache: false } : mirrorHit(ctx, value);
  }
  const known = mirrorMatches(ctx, typed);
  const cached = await ctx.cache.getFind(typed);
  if (cached?.fresh) return hit(ctx, await withKnownDates(ctx.cache, typed, cached.value, today, known));
  const outcome = await withStale(ctx, cached?.value, () =>
    shared(ctx, `find:${typed.toLowerCase()}`, '/find_wotd', options, (flight) => fetchFind(ctx, flight, typed, today)),
  );
  if (outcome.kind === 'not_found') throw notFoundForWord(typed);
  return { ...outcome.value, value: await withKnownDates(ctx.cache, typed, outcome.value.value, today, known) };
}

/**
 * Today's entry and a page of the days before it, for a search the mirror answers: whatever they tell of `days`.
 * A lookup that fails leaves its days unknown (the search is then reported incomplete), having counted itself.
 */
async function learnDays(ctx: LookupContext, days: IsoDate[], today: IsoDate, options: LookupOptions): Promise<LearnedDays> {
  const entries: Entry[] = [];
  const known = new Set<IsoDate>();
  if (days.includes(today)) {
    try {
      entries.push((await lookUpEntry(ctx, today, options)).value);
      known.add(today);
    } catch (error) {
      if (isWotdError(error, 'not_found')) known.add(today);
    }
  }
  if (days.some((day) => day < today)) {
    try {
      const page = (await lookUpPrevious(ctx, today, MAX_HISTORY_LIMIT, options)).value;
      entries.push(...page.entries);
      // The page speaks for every day from its oldest entry (from the beginning, when there is no more) to yesterday.
      const from = page.hasMore ? (page.entries.at(-1)?.date ?? today) : '';
      for (const day of days) if (day < today && day >= from) known.add(day);
    } catch {
      // Left unknown: the search says it may be incomplete.
    }
  }
  return { entries, known };
}

/**
 * Searches as the service allows: variant A matches any case but reports only the oldest date; variant B
 * reports every date but matches the exact spelling, so the spelling as typed, in lower case and capitalised
 * are tried in turn. A miss is remembered only under the spellings actually asked.
 */
async function fetchFind(ctx: LookupContext, flight: Flight<Outcome<WordMatches>>, typed: string, today: IsoDate): Promise<Outcome<WordMatches>> {
  const { cache, variants } = ctx;
  const lower = typed.toLowerCase();
  const capitalised = lower.charAt(0).toUpperCase() + lower.slice(1);
  const caseInsensitive = variants.current === 'A' && (variants.verified || !variants.isAuto);
  const spellings = caseInsensitive ? [lower] : [...new Set([typed, lower, capitalised])];
  const missed: string[] = [];
  for (const spelling of spellings) {
    if (await cache.isFindMiss(spelling)) continue;
    const answer = await ctx.upstream.request(flight, '/find_wotd', { word: spelling }, false);
    if (answer.kind === 'ok') {
      const single = !Array.isArray(answer.body);
      const all = parseFind(answer.body, variants.variantOf(answer.body));
      // An answer about another word is a broken answer, not "never the word": it must not be remembered as a miss.
      const stranger = all.find((entry) => entry.word.toLowerCase() !== lower);
      if (stranger) throw new WotdError('bad_response', `The service answered "${stranger.word}" when asked for "${spelling}"`);
      const entries = all.filter((entry) => entry.date <= today && entry.word.toLowerCase() === lower);
      if (entries.length > 0) {
        const found: WordMatches = { entries, complete: !single };
        await cache.putFind(lower, found, today);
        return { kind: 'ok', value: found };
      }
    }
    missed.push(spelling);
    // Variant A matches case-insensitively: one miss answers for every spelling.
    const variant = variants.isAuto ? await variants.ensure(flight) : variants.current;
    if (variant === 'A') break;
  }
  for (const spelling of missed) await cache.putFindMiss(spelling);
  return { kind: 'not_found', message: `no entry for ${typed}` };
}

function notFoundForWord(word: string): WotdError {
  return new WotdError('not_found', `"${word}" has never been the word of the day`);
}
