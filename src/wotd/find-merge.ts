import type { WotdCache } from './cache.ts';
import type { IsoDate } from './dates.ts';
import type { Entry } from './entry.ts';
import type { WordMatches } from './lookup.ts';

/**
 * The service's matches with every other cached entry of the word (a deployment that reports one date leaves
 * the later ones to what the bot has seen) and the mirror's (`mirrored`), newest first, none after today.
 */
export async function withKnownDates(cache: WotdCache, word: string, found: WordMatches, today: IsoDate, mirrored: readonly Entry[] = []): Promise<WordMatches> {
  const lower = word.toLowerCase();
  const byDate = new Map<IsoDate, Entry>();
  for (const entry of [...found.entries, ...mirrored, ...(await cache.knownEntries(lower))]) {
    if (entry.date <= today && entry.word.toLowerCase() === lower && !byDate.has(entry.date)) byDate.set(entry.date, entry);
  }
  const entries = [...byDate.values()].sort((a, b) => (a.date < b.date ? 1 : -1));
  return { entries, complete: found.complete };
}
