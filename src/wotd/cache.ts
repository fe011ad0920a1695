import type Keyv from 'keyv';
import { MemoryTier } from './cache-memory.ts';
import type { Cached, StoredValue } from './cache-record.ts';
import { StoreTier } from './cache-store.ts';
import { CacheSweeper } from './cache-sweep.ts';
import { CacheTiers } from './cache-tiers.ts';
import { WordIndex } from './cache-word-index.ts';
import { addDays, type IsoDate, type Variant } from './dates.ts';
import type { Entry } from './entry.ts';
import type { WordMatches } from './lookup.ts';

/**
 * What the adapter remembers, in Keyv (a SQLite file by default, src/wotd/cache-store.ts) behind a small in-memory
 * LRU (src/wotd/cache-memory.ts).
 *
 * Keys: `e:DATE` an entry, `m:DATE` a remembered 404, `b:DATE` whether entries exist strictly before DATE
 * (a history page's `has_more`), `f:word` a search result (lower case), `fm:spelling` a search that found
 * nothing under exactly that spelling, `w:word` the dates an entry of that word is cached for, `words` the
 * index suggestWords reads, `variant:URL` the variant a service was seen to speak. The shape of a record, its
 * freshness and its schema mark: src/wotd/cache-record.ts.
 *
 * What is kept, and for how long (see README "What the bot keeps"): past entries, `w:` word dates, `words` (at most
 * MAX_INDEXED_WORDS), `earliest` and "entries exist before" are kept for good, one per day or word the service has
 * published; everything else carries `k`, the moment (adapter's clock) after which nothing wants it, and is swept
 * out of the store once past it (src/wotd/cache-sweep.ts).
 */

export interface CacheTtls {
  /** Today's entry may still be corrected upstream. */
  todayMs: number;
  /** A 404 for a date in the last few days (the entry may yet appear). */
  recentMissMs: number;
  /** A 404 for an older date. */
  oldMissMs: number;
  /** A search result or miss (a word can come back on a later day). */
  findMs: number;
  /** "Nothing before this date": true of the days before the service's first entry, and only of those. */
  emptyPageMs: number;
  /** The variant a service was seen to speak. */
  variantMs: number;
  /** How long an expired value is kept for stale serving. */
  staleKeepMs: number;
}

export const DEFAULT_TTLS: CacheTtls = {
  todayMs: 15 * 60_000,
  recentMissMs: 5 * 60_000,
  oldMissMs: 6 * 60 * 60_000,
  findMs: 60 * 60_000,
  emptyPageMs: 60 * 60_000,
  variantMs: 24 * 60 * 60_000,
  staleKeepMs: 30 * 24 * 60 * 60_000,
};

/** How many days back a 404 counts as "recent". */
const RECENT_DAYS = 2;

export interface CacheFootprint {
  /** Records in the in-memory layer (at most `memoryRecords`). */
  memoryRecords: number;
  /** Words in the autocomplete index (at most MAX_INDEXED_WORDS). */
  indexedWords: number;
}

export interface WotdCacheOptions {
  now: () => number;
  ttls?: Partial<CacheTtls>;
  /** Records kept in memory in front of the store. */
  memoryRecords?: number;
  /**
   * Hears of each failure or stall of the store. Neither fails a lookup: the cache keeps to memory for a while
   * instead (see StoreTier, src/wotd/cache-store.ts).
   */
  onStoreError?: (error: unknown) => void;
}

export class WotdCache {
  private constructor(
    private readonly memory: MemoryTier,
    private readonly records: CacheTiers,
    private readonly sweeper: CacheSweeper,
    private readonly words: WordIndex,
    private readonly ttls: CacheTtls,
    private readonly now: () => number,
  ) {}

  static async open(store: Keyv, options: WotdCacheOptions): Promise<WotdCache> {
    const ttls = { ...DEFAULT_TTLS, ...options.ttls };
    const memory = new MemoryTier(options.memoryRecords ?? 20_000);
    const storeTier = new StoreTier(store as Keyv<StoredValue>, options.onStoreError);
    const sweeper = new CacheSweeper(storeTier, memory, options.now, ttls.staleKeepMs);
    const records = new CacheTiers(memory, storeTier, sweeper, options.now);
    const words = new WordIndex(records, storeTier);
    await words.load();
    await sweeper.resume();
    return new WotdCache(memory, records, sweeper, words, ttls, options.now);
  }

  footprint(): CacheFootprint {
    return { memoryRecords: this.memory.size, indexedWords: this.words.size };
  }

  /** Resolves when the sweep under way, if any, has finished. */
  settled(): Promise<void> {
    return this.sweeper.settled();
  }

  /**
   * Deletes every record past its keep time (see the module comment); returns how many. Runs by itself every
   * SWEEP_EVERY_MS of the adapter's clock, started by a write; a sweep already under way is joined.
   */
  sweep(): Promise<number> {
    return this.sweeper.sweep();
  }

  getEntry(date: IsoDate): Promise<Cached<Entry> | null> {
    return this.records.read<Entry>(`e:${date}`);
  }

  /**
   * The cached entries of these days, in order (null for a day without one): a history page or a word's dates. The
   * memory layer answers most of them without a wait each (and all of them without an async frame); only the rest
   * go to the store, one by one.
   */
  getEntries(dates: readonly IsoDate[]): Promise<Array<Cached<Entry> | null>> {
    const found: Array<Cached<Entry> | null | undefined> = [];
    let missing = false;
    for (const date of dates) {
      const recalled = this.records.recall<Entry>(`e:${date}`);
      if (recalled === undefined) missing = true;
      found.push(recalled);
    }
    return missing ? this.loadEntries(dates, found) : Promise.resolve(found as Array<Cached<Entry> | null>);
  }

  private async loadEntries(dates: readonly IsoDate[], found: Array<Cached<Entry> | null | undefined>): Promise<Array<Cached<Entry> | null>> {
    for (let i = 0; i < dates.length; i++) if (found[i] === undefined) found[i] = await this.getEntry(dates[i] ?? '');
    return found as Array<Cached<Entry> | null>;
  }

  /** A day's cached entry when the memory layer holds it (as getEntry would give it); undefined when it does not. */
  recallEntry(date: IsoDate): Cached<Entry> | undefined {
    return this.records.recall<Entry>(`e:${date}`);
  }

  async putEntries(entries: Entry[], today: IsoDate): Promise<void> {
    const now = this.now();
    let newWords = false;
    for (const entry of entries) {
      if (entry.date > today) continue;
      const key = `e:${entry.date}`;
      if (entry.date < today) {
        const known = this.records.peek(key);
        if (!(known && known.exp === null && sameEntry(known.v as Entry, entry))) {
          await this.records.write(key, { v: entry, exp: null });
        }
      } else {
        await this.records.write(key, { v: entry, exp: now + this.ttls.todayMs }, this.ttls.staleKeepMs);
      }
      await this.records.forget(`m:${entry.date}`);
      newWords = this.words.add(entry.word) || newWords;
      await this.words.addDate(entry.word, entry.date);
    }
    if (newWords) await this.words.save();
  }

  async isKnownMissing(date: IsoDate): Promise<boolean> {
    const cached = await this.records.readCurrent<true>(`m:${date}`);
    return cached?.fresh === true;
  }

  async putMissing(date: IsoDate, today: IsoDate): Promise<void> {
    const recent = date >= addDays(today, -RECENT_DAYS);
    await this.records.writeExpiring(`m:${date}`, true, recent ? this.ttls.recentMissMs : this.ttls.oldMissMs);
  }

  /** Whether any entry exists strictly before `date`, if known: true is forever, false only for a while. */
  async getBefore(date: IsoDate): Promise<boolean | undefined> {
    // "Entries exist" never stops being true; "none" is believed only from a current, unexpired record.
    if ((await this.records.readRecord(`b:${date}`))?.v === true) return true;
    return (await this.records.readCurrent<boolean>(`b:${date}`))?.fresh ? false : undefined;
  }

  async putBefore(date: IsoDate, exists: boolean): Promise<void> {
    const known = this.records.peek(`b:${date}`);
    if (exists) {
      if (known && known.v === true) return;
      await this.records.write(`b:${date}`, { v: true, exp: null });
      return;
    }
    await this.records.writeExpiring(`b:${date}`, false, this.ttls.emptyPageMs);
  }

  /** The oldest entry date this cache has seen, if any: a sign that days after it are not all empty. */
  earliestKnown(): Promise<IsoDate | undefined> {
    return this.words.earliest();
  }

  async getFind(word: string): Promise<Cached<WordMatches> | null> {
    return this.records.readCurrent<WordMatches>(`f:${word.toLowerCase()}`);
  }

  async putFind(word: string, found: WordMatches, today: IsoDate): Promise<void> {
    await this.putEntries(found.entries, today);
    await this.records.writeExpiring(`f:${word.toLowerCase()}`, found, this.ttls.findMs, this.ttls.staleKeepMs);
  }

  /** Whether a search for exactly this spelling found nothing a short while ago. */
  async isFindMiss(spelling: string): Promise<boolean> {
    return (await this.records.readCurrent<true>(`fm:${spelling}`))?.fresh === true;
  }

  async putFindMiss(spelling: string): Promise<void> {
    await this.records.writeExpiring(`fm:${spelling}`, true, this.ttls.findMs);
  }

  /** Every cached entry of `word` (any case), newest first. */
  async knownEntries(word: string): Promise<Entry[]> {
    const lower = word.toLowerCase();
    const dates = await this.words.datesOf(lower);
    const entries: Entry[] = [];
    for (const cached of await this.getEntries(dates)) {
      if (cached && cached.value.word.toLowerCase() === lower) entries.push(cached.value);
    }
    return entries.sort((a, b) => (a.date < b.date ? 1 : -1));
  }

  async getVariant(serviceUrl: string): Promise<Variant | null> {
    const cached = await this.records.readCurrent<Variant>(`variant:${serviceUrl}`);
    return cached?.fresh && (cached.value === 'A' || cached.value === 'B') ? cached.value : null;
  }

  async putVariant(serviceUrl: string, variant: Variant): Promise<void> {
    await this.records.writeExpiring(`variant:${serviceUrl}`, variant, this.ttls.variantMs);
  }

  /** Cached words starting with `prefix` (case-insensitive), alphabetically. */
  suggest(prefix: string, limit: number): string[] {
    return this.words.suggest(prefix, limit);
  }
}

function sameEntry(a: Entry, b: Entry): boolean {
  return a.date === b.date && a.word === b.word && a.pos === b.pos && a.ipa === b.ipa && a.definition === b.definition;
}
