import type { IsoDate } from './dates.ts';
import type { Entry } from './entry.ts';

/** Who is waiting: scheduled posts go first, then people, then background work. */
export type Priority = 'scheduled' | 'interactive' | 'background';

export interface LookupOptions {
  priority?: Priority;
  /** Give up with a `rate_limited` WotdError instead of queueing longer than this. */
  maxWaitMs?: number;
}

export interface Lookup<T> {
  value: T;
  /** Served from cache because the service failed; may be out of date. */
  stale: boolean;
  /** Answered without an upstream request. */
  fromCache: boolean;
}

export interface HistoryPage {
  /** Newest first, consecutive days strictly before the requested date. */
  entries: Entry[];
  hasMore: boolean;
}

/** A search's answer. */
export interface WordMatches {
  /** Newest first, none after today. */
  entries: Entry[];
  /**
   * False when the service reports only the first date a word was chosen (variant A): then the oldest entry is
   * that first date and any later ones are days the bot has seen itself, so more may exist.
   */
  complete: boolean;
}

/** What the rest of the bot asks of the Word-of-the-Day service. Failures are WotdErrors. */
export interface WotdLookup {
  /** The service's current date: the UTC date of the adapter's clock. */
  today(): IsoDate;
  getEntry(date?: IsoDate, options?: LookupOptions): Promise<Lookup<Entry>>;
  getPrevious(date: IsoDate | undefined, limit: number, options?: LookupOptions): Promise<Lookup<HistoryPage>>;
  /** The entries whose word matches in any case, newest first, and whether the service reported them all. */
  findWord(word: string, options?: LookupOptions): Promise<Lookup<WordMatches>>;
  /** Words already in the cache that start with `prefix`; never calls the service. */
  suggestWords(prefix: string, limit: number): Promise<string[]>;
}
