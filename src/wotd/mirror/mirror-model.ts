/**
 * The mirror in memory: an immutable read model over the entries of one installed snapshot (and the days filled in
 * after it). Built once per install, never changed; a refresh builds a new one and swaps it in (mirror-holder.ts).
 *
 * It covers every day up to `coveredThrough`: an entry it lacks for such a day is a day without a word, not an
 * unknown. Days after it are the service's to answer, and so are its `holes`: days whose row in the snapshot was
 * refused (the day had a word, but not one the bot could check), which no answer may pass over.
 */
import type { IsoDate } from '../dates.ts';
import type { Entry } from '../entry.ts';

export interface MirrorPage {
  /** Newest first, strictly before the date asked for; days without a word are skipped, as the service does. */
  entries: Entry[];
  hasMore: boolean;
}

export class MirrorModel {
  private constructor(
    /** Ascending by date, one per date, each frozen. */
    private readonly sorted: readonly Entry[],
    private readonly byDate: ReadonlyMap<IsoDate, Entry>,
    /** Lower-case word → its entries, newest first. */
    private readonly byWord: ReadonlyMap<string, readonly Entry[]>,
    /** Distinct words as first written, alphabetically by lower case, for suggestions. */
    private readonly words: readonly string[],
    readonly coveredThrough: IsoDate,
    /** Ascending. */
    readonly holes: readonly IsoDate[],
  ) {}

  /**
   * A model of `entries` (any order; a later duplicate date wins) covering every day up to `coveredThrough`.
   * Entries after it are left out: the model never claims a day it does not cover.
   */
  static build(entries: readonly Entry[], coveredThrough: IsoDate, holes: readonly IsoDate[] = []): MirrorModel {
    const byDate = new Map<IsoDate, Entry>();
    for (const entry of entries) {
      if (entry.date > coveredThrough) continue;
      byDate.set(entry.date, Object.freeze({ date: entry.date, word: entry.word, pos: entry.pos, ipa: entry.ipa, definition: entry.definition }));
    }
    const sorted = Object.freeze([...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : 1)));
    const byWord = new Map<string, Entry[]>();
    for (let i = sorted.length - 1; i >= 0; i--) {
      const entry = sorted[i] as Entry;
      const key = entry.word.toLowerCase();
      const list = byWord.get(key);
      if (list) list.push(entry);
      else byWord.set(key, [entry]);
    }
    const words = [...byWord.values()].map((list) => (list.at(-1) as Entry).word).sort((a, b) => compareWords(a, b));
    for (const list of byWord.values()) Object.freeze(list);
    const unknown = Object.freeze([...new Set(holes)].filter((date) => date <= coveredThrough && !byDate.has(date)).sort());
    return new MirrorModel(sorted, byDate, byWord, Object.freeze(words), coveredThrough, unknown);
  }

  get rows(): number {
    return this.sorted.length;
  }

  /** The newest entry's date, or null for an empty mirror. */
  get newest(): IsoDate | null {
    return this.sorted.at(-1)?.date ?? null;
  }

  get oldest(): IsoDate | null {
    return this.sorted[0]?.date ?? null;
  }

  /** Whether the mirror knows the answer for `date` (an entry, or that there is none). */
  covers(date: IsoDate): boolean {
    return date <= this.coveredThrough && !this.holes.includes(date);
  }

  /** Whether every covered day is known (no hole): then a search of the mirror finds every date a word had. */
  get complete(): boolean {
    return this.holes.length === 0;
  }

  entry(date: IsoDate): Entry | undefined {
    return this.byDate.get(date);
  }

  /** Every entry, oldest first (for storing the model). */
  entries(): readonly Entry[] {
    return this.sorted;
  }

  /**
   * Up to `limit` entries strictly before `before` (at most a day after `coveredThrough`), newest first, and whether
   * older ones exist; null when a hole lies among the days the page spans.
   */
  history(before: IsoDate, limit: number): MirrorPage | null {
    const end = this.firstIndexAtOrAfter(before);
    const start = Math.max(0, end - Math.max(0, Math.floor(limit)));
    const entries = this.sorted.slice(start, end).reverse();
    const hasMore = start > 0;
    // The page speaks for every day from its oldest entry (or from the beginning, when nothing is older) to `before`.
    const from = hasMore ? (entries.at(-1)?.date ?? before) : '';
    if (this.holes.some((hole) => hole >= from && hole < before)) return null;
    return { entries, hasMore };
  }

  /** The entries whose word is `word` in any case, newest first. */
  find(word: string): readonly Entry[] {
    return this.byWord.get(word.trim().toLowerCase()) ?? [];
  }

  /** Words starting with `prefix` (any case), alphabetically, at most `limit`. */
  suggest(prefix: string, limit: number): string[] {
    const lower = prefix.trim().toLowerCase();
    const found: string[] = [];
    let low = 0;
    let high = this.words.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.words[mid] as string).toLowerCase() < lower) low = mid + 1;
      else high = mid;
    }
    for (let i = low; i < this.words.length && found.length < limit; i++) {
      const word = this.words[i] as string;
      if (!word.toLowerCase().startsWith(lower)) break;
      found.push(word);
    }
    return found;
  }

  private firstIndexAtOrAfter(date: IsoDate): number {
    let low = 0;
    let high = this.sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((this.sorted[mid] as Entry).date < date) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

function compareWords(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}
