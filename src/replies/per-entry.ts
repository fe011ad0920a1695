import type { Entry } from '../wotd/entry.ts';

/** Texts kept per entry, at most so many (languages, room) each. */
const KEYS_PER_ENTRY = 32;

/**
 * What was made from an entry, by what else it depends on (a language, the room a field has): the same entries,
 * held by the cache, are rendered for command after command (bench:commands), and an entry is never changed once
 * made. Kept while the entry is: a cache that lets an entry go lets its texts go with it.
 */
export class PerEntry<T> {
  private readonly byEntry = new WeakMap<Entry, Map<string, T>>();

  get(entry: Entry, key: string): T | undefined {
    return this.byEntry.get(entry)?.get(key);
  }

  /** Keeps `value` for the entry and key; returns it. */
  keep(entry: Entry, key: string, value: T): T {
    let kept = this.byEntry.get(entry);
    if (!kept) {
      kept = new Map();
      this.byEntry.set(entry, kept);
    }
    if (kept.size >= KEYS_PER_ENTRY) kept.clear();
    kept.set(key, value);
    return value;
  }
}
