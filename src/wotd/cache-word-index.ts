import type { StoreTier } from './cache-store.ts';
import type { CacheTiers } from './cache-tiers.ts';
import type { IsoDate } from './dates.ts';

const MAX_INDEXED_WORDS = 50_000;

/**
 * The cache's word indexes: the words autocomplete suggests (`words`, at most MAX_INDEXED_WORDS, kept in memory
 * in full), the dates an entry of each word is cached for (`w:word`, lower case), and the oldest entry date seen
 * (`earliest`). All are kept for good.
 */
export class WordIndex {
  /** Lower case → the spelling first seen. */
  private readonly words = new Map<string, string>();
  private sortedWords: string[] | null = null;

  constructor(
    private readonly tiers: CacheTiers,
    private readonly store: StoreTier,
  ) {}

  get size(): number {
    return this.words.size;
  }

  /** Adds the words the store's index holds. */
  async load(): Promise<void> {
    const stored = await this.store.get('words');
    if (Array.isArray(stored)) for (const word of stored) this.add(word);
  }

  /** Adds the word to the autocomplete index in memory; true when it was new. */
  add(word: string): boolean {
    const key = word.toLowerCase();
    if (this.words.has(key) || this.words.size >= MAX_INDEXED_WORDS) return false;
    this.words.set(key, word);
    this.sortedWords = null;
    return true;
  }

  /** Writes the autocomplete index to the store. */
  async save(): Promise<void> {
    // Another process (the CLI beside the bot) may have added words to the shared store meanwhile.
    await this.load();
    await this.store.set('words', [...this.words.values()]);
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

  /** The dates an entry of `word` (any case) is cached for, in order. */
  async datesOf(word: string): Promise<IsoDate[]> {
    return (await this.tiers.read<IsoDate[]>(`w:${word.toLowerCase()}`))?.value ?? [];
  }

  /** Records that an entry of `word` is cached for `date`. */
  async addDate(word: string, date: IsoDate): Promise<void> {
    const key = `w:${word.toLowerCase()}`;
    const dates = (await this.tiers.read<IsoDate[]>(key))?.value ?? [];
    if (!dates.includes(date)) await this.tiers.write(key, { v: [...dates, date].sort(), exp: null });
    const earliest = await this.earliest();
    if (earliest === undefined || date < earliest) await this.tiers.write('earliest', { v: date, exp: null });
  }

  /** The oldest entry date this cache has seen, if any. */
  async earliest(): Promise<IsoDate | undefined> {
    return (await this.tiers.read<IsoDate>('earliest'))?.value;
  }

  private sorted(): string[] {
    if (!this.sortedWords) this.sortedWords = [...this.words.keys()].sort();
    return this.sortedWords;
  }
}
