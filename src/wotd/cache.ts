import type Keyv from 'keyv';
import { addDays, type IsoDate } from './dates.ts';
import type { Entry } from './entry.ts';

/**
 * What the adapter remembers, in Keyv (a SQLite file by default) behind a small in-memory LRU.
 *
 * Keys: `e:DATE` an entry, `m:DATE` a remembered 404, `b:DATE` whether entries exist strictly before DATE
 * (a history page's `has_more`), `f:word` a search result, `words` the index suggestWords reads.
 * Freshness is judged by the adapter's own clock (`exp`), so an expired value is still there to be
 * served stale when the service fails; Keyv's TTL only clears out what even stale serving no longer wants.
 */

export interface CacheTtls {
  /** Today's entry may still be corrected upstream. */
  todayMs: number;
  /** A 404 for a date in the last few days (the entry may yet appear). */
  recentMissMs: number;
  /** A 404 for an older date. */
  oldMissMs: number;
  /** A search result (a word can come back on a later day). */
  findMs: number;
  /** How long an expired value is kept for stale serving. */
  staleKeepMs: number;
}

export const DEFAULT_TTLS: CacheTtls = {
  todayMs: 15 * 60_000,
  recentMissMs: 5 * 60_000,
  oldMissMs: 6 * 60 * 60_000,
  findMs: 60 * 60_000,
  staleKeepMs: 30 * 24 * 60 * 60_000,
};

/** How many days back a 404 counts as "recent". */
const RECENT_DAYS = 2;
const MAX_INDEXED_WORDS = 50_000;

interface Stored<T> {
  v: T;
  /** Epoch ms on the adapter's clock; null = never expires. */
  exp: number | null;
}

export interface Cached<T> {
  value: T;
  fresh: boolean;
}

type Value = Stored<unknown> | string[];

export interface WotdCacheOptions {
  now: () => number;
  ttls?: Partial<CacheTtls>;
  /** Records kept in memory in front of the store. */
  memoryRecords?: number;
  /** A failing store never fails a lookup: reads count as misses, writes stay in memory, and this hears of it. */
  onStoreError?: (error: unknown) => void;
}

export class WotdCache {
  private readonly memory = new Map<string, Stored<unknown>>();
  private readonly ttls: CacheTtls;
  private readonly memoryRecords: number;
  private readonly words = new Map<string, string>();
  private sortedWords: string[] | null = null;

  private constructor(
    private readonly store: Keyv<Value>,
    private readonly options: WotdCacheOptions,
  ) {
    this.ttls = { ...DEFAULT_TTLS, ...options.ttls };
    this.memoryRecords = options.memoryRecords ?? 20_000;
  }

  static async open(store: Keyv, options: WotdCacheOptions): Promise<WotdCache> {
    const cache = new WotdCache(store as Keyv<Value>, options);
    const stored = await cache.guard(() => store.get('words'), undefined);
    if (Array.isArray(stored)) for (const word of stored) cache.indexWord(word);
    return cache;
  }

  async getEntry(date: IsoDate): Promise<Cached<Entry> | null> {
    return this.read<Entry>(`e:${date}`);
  }

  async putEntries(entries: Entry[], today: IsoDate): Promise<void> {
    const now = this.options.now();
    let newWords = false;
    for (const entry of entries) {
      if (entry.date > today) continue;
      const key = `e:${entry.date}`;
      if (entry.date < today) {
        const known = this.memory.get(key);
        if (!(known && known.exp === null && sameEntry(known.v as Entry, entry))) {
          await this.write(key, { v: entry, exp: null });
        }
      } else {
        await this.write(key, { v: entry, exp: now + this.ttls.todayMs }, this.ttls.staleKeepMs);
      }
      await this.forget(`m:${entry.date}`);
      newWords = this.indexWord(entry.word) || newWords;
    }
    if (newWords) await this.saveWords();
  }

  async isKnownMissing(date: IsoDate): Promise<boolean> {
    const cached = await this.read<true>(`m:${date}`);
    return cached?.fresh === true;
  }

  async putMissing(date: IsoDate, today: IsoDate): Promise<void> {
    const recent = date >= addDays(today, -RECENT_DAYS);
    const ttl = recent ? this.ttls.recentMissMs : this.ttls.oldMissMs;
    await this.write(`m:${date}`, { v: true, exp: this.options.now() + ttl }, ttl);
  }

  /** Whether any entry exists strictly before `date`, if known. */
  async getBefore(date: IsoDate): Promise<boolean | undefined> {
    return (await this.read<boolean>(`b:${date}`))?.value;
  }

  async putBefore(date: IsoDate, exists: boolean): Promise<void> {
    const known = this.memory.get(`b:${date}`);
    if (known && known.v === exists) return;
    await this.write(`b:${date}`, { v: exists, exp: null });
  }

  async getFind(word: string): Promise<Cached<Entry[]> | null> {
    return this.read<Entry[]>(`f:${word.toLowerCase()}`);
  }

  async putFind(word: string, entries: Entry[], today: IsoDate): Promise<void> {
    await this.write(`f:${word.toLowerCase()}`, { v: entries, exp: this.options.now() + this.ttls.findMs }, this.ttls.staleKeepMs);
    await this.putEntries(entries, today);
  }

  /** Cached words starting with `prefix` (case-insensitive), alphabetically. */
  suggest(prefix: string, limit: number): string[] {
    if (limit <= 0) return [];
    const sorted = this.sorted();
    const needle = prefix.trim().toLowerCase();
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((sorted[mid] ?? '') < needle) low = mid + 1;
      else high = mid;
    }
    const out: string[] = [];
    for (let i = low; i < sorted.length && out.length < limit; i++) {
      const key = sorted[i] ?? '';
      if (!key.startsWith(needle)) break;
      out.push(this.words.get(key) ?? key);
    }
    return out;
  }

  private sorted(): string[] {
    if (!this.sortedWords) this.sortedWords = [...this.words.keys()].sort();
    return this.sortedWords;
  }

  /** True when the word was new. */
  private indexWord(word: string): boolean {
    const key = word.toLowerCase();
    if (this.words.has(key) || this.words.size >= MAX_INDEXED_WORDS) return false;
    this.words.set(key, word);
    this.sortedWords = null;
    return true;
  }

  private async saveWords(): Promise<void> {
    // Another process (the CLI beside the bot) may have added words to the shared store meanwhile.
    const stored = await this.guard(() => this.store.get('words'), undefined);
    if (Array.isArray(stored)) for (const word of stored) this.indexWord(word);
    await this.guard(() => this.store.set('words', [...this.words.values()]), false);
  }

  private async read<T>(key: string): Promise<Cached<T> | null> {
    let record = this.memory.get(key);
    if (record) {
      this.memory.delete(key);
      this.memory.set(key, record);
    } else {
      const stored = await this.guard(() => this.store.get(key), undefined);
      if (!stored || Array.isArray(stored)) return null;
      record = stored;
      this.remember(key, record);
    }
    return { value: record.v as T, fresh: record.exp === null || record.exp > this.options.now() };
  }

  private async write(key: string, record: Stored<unknown>, keyvTtl?: number): Promise<void> {
    this.remember(key, record);
    await this.guard(() => this.store.set(key, record, keyvTtl), false);
  }

  private async forget(key: string): Promise<void> {
    const hadInMemory = this.memory.delete(key);
    await this.guard(async () => {
      if (hadInMemory || (await this.store.has(key))) await this.store.delete(key);
    }, undefined);
  }

  private async guard<T>(operation: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      this.options.onStoreError?.(error);
      return fallback;
    }
  }

  private remember(key: string, record: Stored<unknown>): void {
    this.memory.delete(key);
    this.memory.set(key, record);
    if (this.memory.size > this.memoryRecords) {
      const oldest = this.memory.keys().next().value;
      if (oldest !== undefined) this.memory.delete(oldest);
    }
  }
}

function sameEntry(a: Entry, b: Entry): boolean {
  return a.date === b.date && a.word === b.word && a.pos === b.pos && a.ipa === b.ipa && a.definition === b.definition;
}
