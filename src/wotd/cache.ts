import type Keyv from 'keyv';
import { scanNamespace } from '../store/scan.ts';
import { addDays, type IsoDate, type Variant } from './dates.ts';
import type { Entry } from './entry.ts';
import type { WordMatches } from './lookup.ts';

/**
 * What the adapter remembers, in Keyv (a SQLite file by default) behind a small in-memory LRU.
 *
 * Keys: `e:DATE` an entry, `m:DATE` a remembered 404, `b:DATE` whether entries exist strictly before DATE
 * (a history page's `has_more`), `f:word` a search result (lower case), `fm:spelling` a search that found
 * nothing under exactly that spelling, `w:word` the dates an entry of that word is cached for, `words` the
 * index suggestWords reads, `variant:URL` the variant a service was seen to speak.
 * Freshness is judged by the adapter's own clock (`exp`), so an expired value is still there to be
 * served stale when the service fails; Keyv's TTL only clears out what even stale serving no longer wants.
 *
 * What is kept, and for how long (see README "What the bot keeps"): past entries, `w:` word dates, `words` (at most
 * MAX_INDEXED_WORDS), `earliest` and "entries exist before" are kept for good, one per day or word the service has
 * published; everything else carries `k`, the moment (adapter's clock) after which nothing wants it. Keyv's TTL
 * removes such a record only when it is read again (SQLite keeps it otherwise), so every SWEEP_EVERY_MS a sweep
 * reads the namespace once and deletes the records past their `k`. The sweep's last run is stored (`swept`), so
 * the bot and short CLI runs on one store share it.
 *
 * Negative records (a 404, "nothing before", a search miss) and search results carry `s: RECORD_SCHEMA` and
 * always expire: one written by an earlier version, which could have been the answer to a request in the wrong
 * date format, is ignored and removed when read.
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
const MAX_INDEXED_WORDS = 50_000;
/** Marks records whose trust rules are today's; see the module comment. */
const RECORD_SCHEMA = 2;
/** How often expired records are swept out of the store. */
export const SWEEP_EVERY_MS = 6 * 60 * 60_000;
/** How long one store operation may take before the lookup goes on without it (a locked file waits up to 10 s). */
export const STORE_WAIT_MS = 2_000;
/** After the store fails or stalls, how long the cache keeps to memory before trying it again. */
export const STORE_RETRY_MS = 30_000;
const STALLED = Symbol('stalled');

interface Stored<T> {
  v: T;
  /** Epoch ms on the adapter's clock; null = never expires. */
  exp: number | null;
  s?: number;
  /** Epoch ms on the adapter's clock after which the record is deleted; absent = kept for good. */
  k?: number;
}

export interface CacheFootprint {
  /** Records in the in-memory layer (at most `memoryRecords`). */
  memoryRecords: number;
  /** Words in the autocomplete index (at most MAX_INDEXED_WORDS). */
  indexedWords: number;
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
  /**
   * A failing store never fails a lookup: reads count as misses, writes stay in memory, and this hears of it. A
   * store that fails, or takes longer than STORE_WAIT_MS, is left alone for STORE_RETRY_MS, so a locked, full or
   * vanished file costs one short wait, not one per record.
   */
  onStoreError?: (error: unknown) => void;
}

export class WotdCache {
  private readonly memory = new Map<string, Stored<unknown>>();
  private readonly ttls: CacheTtls;
  private readonly memoryRecords: number;
  private readonly words = new Map<string, string>();
  private sortedWords: string[] | null = null;
  private nextSweepAt = 0;
  private sweeping: Promise<void> | null = null;
  /** performance.now() until which the store is not asked (see WotdCacheOptions.onStoreError). */
  private storeResting = 0;

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
    const swept = await cache.guard(() => store.get('swept'), undefined);
    if (swept && !Array.isArray(swept) && typeof swept.v === 'number') {
      cache.nextSweepAt = swept.v + SWEEP_EVERY_MS;
    } else {
      // A store never swept (new, or from an earlier version) is first swept one period after this first opening.
      const now = options.now();
      cache.nextSweepAt = now + SWEEP_EVERY_MS;
      await cache.guard(() => store.set('swept', { v: now, exp: null }), false);
    }
    return cache;
  }

  footprint(): CacheFootprint {
    return { memoryRecords: this.memory.size, indexedWords: this.words.size };
  }

  /** Resolves when the sweep under way, if any, has finished. */
  async settled(): Promise<void> {
    await this.sweeping;
  }

  /**
   * Deletes every record past its keep time (see the module comment); returns how many. Runs by itself every
   * SWEEP_EVERY_MS of the adapter's clock, started by a write; a sweep already under way is joined.
   */
  sweep(): Promise<number> {
    if (this.sweeping) return this.sweeping.then(() => 0);
    this.nextSweepAt = this.options.now() + SWEEP_EVERY_MS;
    const run = this.guard(() => this.sweepStore(), 0);
    this.sweeping = run.then(
      () => undefined,
      () => undefined,
    );
    void this.sweeping.then(() => {
      this.sweeping = null;
    });
    return run;
  }

  private async sweepStore(): Promise<number> {
    // A store that cannot list its keys relies on its own TTLs (Keyv's) instead.
    if (!this.store.iterator) return 0;
    const now = this.options.now();
    let deleted = 0;
    for await (const page of scanNamespace(this.store as Keyv<unknown>)) {
      const gone = page
        // A record rewritten in memory since (the store's copy being older) is left for the next sweep.
        .filter(([key, value]) => isPastKeeping(value, now, this.ttls.staleKeepMs) && isPastKeeping(this.memory.get(key), now, this.ttls.staleKeepMs, true))
        .map(([key]) => key);
      if (gone.length === 0) continue;
      for (const key of gone) this.memory.delete(key);
      await this.store.deleteMany(gone);
      deleted += gone.length;
    }
    await this.store.set('swept', { v: now, exp: null });
    return deleted;
  }

  getEntry(date: IsoDate): Promise<Cached<Entry> | null> {
    return this.read<Entry>(`e:${date}`);
  }

  /** The cached entries of these days, in order (null for a day without one): a history page or a word's dates. */
  async getEntries(dates: readonly IsoDate[]): Promise<Array<Cached<Entry> | null>> {
    // The memory layer answers most of them without a wait each; only the rest go to the store, one by one.
    const found: Array<Cached<Entry> | null | undefined> = dates.map((date) => {
      const record = this.recall(`e:${date}`);
      return record ? this.judge<Entry>(record) : undefined;
    });
    for (const [i, date] of dates.entries()) if (found[i] === undefined) found[i] = await this.getEntry(date);
    return found as Array<Cached<Entry> | null>;
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
      await this.addWordDate(entry.word, entry.date);
    }
    if (newWords) await this.saveWords();
  }

  async isKnownMissing(date: IsoDate): Promise<boolean> {
    const cached = await this.readCurrent<true>(`m:${date}`);
    return cached?.fresh === true;
  }

  async putMissing(date: IsoDate, today: IsoDate): Promise<void> {
    const recent = date >= addDays(today, -RECENT_DAYS);
    await this.writeExpiring(`m:${date}`, true, recent ? this.ttls.recentMissMs : this.ttls.oldMissMs);
  }

  /** Whether any entry exists strictly before `date`, if known: true is forever, false only for a while. */
  async getBefore(date: IsoDate): Promise<boolean | undefined> {
    // "Entries exist" never stops being true; "none" is believed only from a current, unexpired record.
    if ((await this.readRecord(`b:${date}`))?.v === true) return true;
    return (await this.readCurrent<boolean>(`b:${date}`))?.fresh ? false : undefined;
  }

  async putBefore(date: IsoDate, exists: boolean): Promise<void> {
    const known = this.memory.get(`b:${date}`);
    if (exists) {
      if (known && known.v === true) return;
      await this.write(`b:${date}`, { v: true, exp: null });
      return;
    }
    await this.writeExpiring(`b:${date}`, false, this.ttls.emptyPageMs);
  }

  /** The oldest entry date this cache has seen, if any: a sign that days after it are not all empty. */
  async earliestKnown(): Promise<IsoDate | undefined> {
    return (await this.read<IsoDate>('earliest'))?.value;
  }

  async getFind(word: string): Promise<Cached<WordMatches> | null> {
    return this.readCurrent<WordMatches>(`f:${word.toLowerCase()}`);
  }

  async putFind(word: string, found: WordMatches, today: IsoDate): Promise<void> {
    await this.putEntries(found.entries, today);
    const record: Stored<WordMatches> = { v: found, exp: this.options.now() + this.ttls.findMs, s: RECORD_SCHEMA };
    await this.write(`f:${word.toLowerCase()}`, record, this.ttls.staleKeepMs);
  }

  /** Whether a search for exactly this spelling found nothing a short while ago. */
  async isFindMiss(spelling: string): Promise<boolean> {
    return (await this.readCurrent<true>(`fm:${spelling}`))?.fresh === true;
  }

  async putFindMiss(spelling: string): Promise<void> {
    await this.writeExpiring(`fm:${spelling}`, true, this.ttls.findMs);
  }

  /** Every cached entry of `word` (any case), newest first. */
  async knownEntries(word: string): Promise<Entry[]> {
    const lower = word.toLowerCase();
    const dates = (await this.read<IsoDate[]>(`w:${lower}`))?.value ?? [];
    const entries: Entry[] = [];
    for (const cached of await this.getEntries(dates)) {
      if (cached && cached.value.word.toLowerCase() === lower) entries.push(cached.value);
    }
    return entries.sort((a, b) => (a.date < b.date ? 1 : -1));
  }

  async getVariant(serviceUrl: string): Promise<Variant | null> {
    const cached = await this.readCurrent<Variant>(`variant:${serviceUrl}`);
    return cached?.fresh && (cached.value === 'A' || cached.value === 'B') ? cached.value : null;
  }

  async putVariant(serviceUrl: string, variant: Variant): Promise<void> {
    await this.writeExpiring(`variant:${serviceUrl}`, variant, this.ttls.variantMs);
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

  private async addWordDate(word: string, date: IsoDate): Promise<void> {
    const key = `w:${word.toLowerCase()}`;
    const dates = (await this.read<IsoDate[]>(key))?.value ?? [];
    if (!dates.includes(date)) await this.write(key, { v: [...dates, date].sort(), exp: null });
    const earliest = await this.earliestKnown();
    if (earliest === undefined || date < earliest) await this.write('earliest', { v: date, exp: null });
  }

  private async writeExpiring(key: string, value: unknown, ttlMs: number): Promise<void> {
    await this.write(key, { v: value, exp: this.options.now() + ttlMs, s: RECORD_SCHEMA }, ttlMs);
  }

  /** A record written under today's trust rules; an older one is dropped. */
  private async readCurrent<T>(key: string): Promise<Cached<T> | null> {
    const record = await this.readRecord(key);
    if (!record) return null;
    if (record.s === RECORD_SCHEMA) return this.judge<T>(record);
    await this.forget(key);
    return null;
  }

  private read<T>(key: string): Promise<Cached<T> | null> {
    // Not an async function: a hit in memory (nearly every lookup of a running bot) costs one settled promise.
    const record = this.recall(key);
    if (record) return Promise.resolve(this.judge<T>(record));
    return this.load(key).then((loaded) => (loaded ? this.judge<T>(loaded) : null));
  }

  private judge<T>(record: Stored<unknown>): Cached<T> {
    return { value: record.v as T, fresh: record.exp === null || record.exp > this.options.now() };
  }

  private async readRecord(key: string): Promise<Stored<unknown> | null> {
    return this.recall(key) ?? this.load(key);
  }

  /** The record if the memory layer holds it, marked as the most recently used. */
  private recall(key: string): Stored<unknown> | undefined {
    const record = this.memory.get(key);
    if (record) this.remember(key, record);
    return record;
  }

  /** The record from the store, kept in memory from then on. */
  private async load(key: string): Promise<Stored<unknown> | null> {
    const stored = await this.guard(() => this.store.get(key), undefined);
    if (!stored || Array.isArray(stored)) return null;
    this.remember(key, stored);
    return stored;
  }

  private async write(key: string, record: Stored<unknown>, keyvTtl?: number): Promise<void> {
    const now = this.options.now();
    const kept = keyvTtl === undefined ? record : { ...record, k: now + keyvTtl };
    this.remember(key, kept);
    await this.guard(() => this.store.set(key, kept, keyvTtl), false);
    if (now >= this.nextSweepAt) void this.sweep();
  }

  private async forget(key: string): Promise<void> {
    const hadInMemory = this.memory.delete(key);
    await this.guard(async () => {
      if (hadInMemory || (await this.store.has(key))) await this.store.delete(key);
    }, undefined);
  }

  private async guard<T>(operation: () => Promise<T>, fallback: T): Promise<T> {
    if (performance.now() < this.storeResting) return fallback;
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<typeof STALLED>((resolve) => {
      timer = setTimeout(() => resolve(STALLED), STORE_WAIT_MS);
    });
    // A stalled operation finishes (or fails) in the background, unheard.
    const running = Promise.resolve().then(operation);
    running.catch(() => undefined);
    try {
      const outcome = await Promise.race([running, stalled]);
      if (outcome === STALLED) throw new Error(`the cache store did not answer within ${STORE_WAIT_MS} ms`);
      return outcome;
    } catch (error) {
      this.storeResting = performance.now() + STORE_RETRY_MS;
      this.options.onStoreError?.(error);
      return fallback;
    } finally {
      clearTimeout(timer);
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

/**
 * Whether nothing wants a stored record any more: its keep time has passed, or (a record of an earlier version,
 * without one) it expired longer ago than stale serving reaches back. `missing` is what an absent record counts as.
 */
function isPastKeeping(value: unknown, now: number, staleKeepMs: number, missing = false): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return missing;
  const record = value as Partial<Stored<unknown>>;
  if (typeof record.k === 'number') return record.k < now;
  return typeof record.exp === 'number' && record.exp + staleKeepMs < now;
}

function sameEntry(a: Entry, b: Entry): boolean {
  return a.date === b.date && a.word === b.word && a.pos === b.pos && a.ipa === b.ipa && a.definition === b.definition;
}
