/**
 * The shape of one record of the cache (see src/wotd/cache.ts for its keys) and the rules that judge it.
 *
 * Freshness is judged by the adapter's own clock (`exp`), so an expired value is still there to be served stale
 * when the service fails; Keyv's TTL only clears out what even stale serving no longer wants.
 *
 * Negative records (a 404, "nothing before", a search miss) and search results carry `s: RECORD_SCHEMA` and
 * always expire: one written by an earlier version, which could have been the answer to a request in the wrong
 * date format, is ignored and removed when read.
 */

/** Marks records whose trust rules are today's; see the module comment. */
export const RECORD_SCHEMA = 2;

export interface Stored<T> {
  v: T;
  /** Epoch ms on the adapter's clock; null = never expires. */
  exp: number | null;
  s?: number;
  /** Epoch ms on the adapter's clock after which the record is deleted; absent = kept for good. */
  k?: number;
}

/** What the store holds under a key: a record, or (under `words`) the autocomplete index. */
export type StoredValue = Stored<unknown> | string[];

export interface Cached<T> {
  value: T;
  fresh: boolean;
}

export function judge<T>(record: Stored<unknown>, now: number): Cached<T> {
  return { value: record.v as T, fresh: record.exp === null || record.exp > now };
}

/**
 * Whether nothing wants a stored record any more: its keep time has passed, or (a record of an earlier version,
 * without one) it expired longer ago than stale serving reaches back. `missing` is what an absent record counts as.
 */
export function isPastKeeping(value: unknown, now: number, staleKeepMs: number, missing = false): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return missing;
  const record = value as Partial<Stored<unknown>>;
  if (typeof record.k === 'number') return record.k < now;
  return typeof record.exp === 'number' && record.exp + staleKeepMs < now;
}
