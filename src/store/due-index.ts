/**
 * The due-time index: for each subscribed channel, the instant (ms since the epoch) from which the scheduler must
 * look at it again, and its state, kept beside the store's Keyv data so a tick reads what is due and nothing else.
 * What an instant means is the schedule's business (src/schedule/next-due.ts); this layer stores, orders and counts.
 *
 * Implementations: memory-due-index.ts (memory:// stores), sqlite-due-index.ts and postgres-due-index.ts (a table
 * with an index on the instant, in the store's own database), redis-due-index.ts (a sorted set). Each keeps the
 * number of entries per state as it writes them, so counting never reads the entries.
 */

export const INDEXED_STATES = ['active', 'failing', 'disabled'] as const;
export type IndexedState = (typeof INDEXED_STATES)[number];

export interface DueEntry {
  channelId: string;
  /** Null for a disabled subscription: listed and counted, never due. */
  dueAt: number | null;
  state: IndexedState;
}

/** Moves an entry only if it is still at `from` (what its reader saw); `to` null deletes it. */
export interface DueMove {
  channelId: string;
  from: number;
  to: number | null;
}

/** A delivery record written in the same write as its channel's move (see writeWithDelivery). */
export interface DeliveryWrite {
  /** The record's key as the adapter stores it (namespace included). */
  storedKey: string;
  /** The record as Keyv serializes it. */
  serialized: string;
}

export interface DueIndex {
  /** Entries due at or before `at`, earliest first, in pages of at most `pageSize`. */
  due(at: number, pageSize: number): AsyncGenerator<Array<{ channelId: string; dueAt: number }>>;
  /** The entries of these channels (those that have one). */
  get(channelIds: readonly string[]): Promise<Map<string, DueEntry>>;
  /** Creates or replaces entries. */
  put(entries: readonly DueEntry[]): Promise<void>;
  /** Creates the entries whose channel has none; existing ones are left as they are (building the index). */
  putMissing(entries: readonly DueEntry[]): Promise<void>;
  /** Compare-and-set moves: an entry changed by someone else since it was read is left alone. */
  move(moves: readonly DueMove[]): Promise<void>;
  remove(channelIds: readonly string[]): Promise<void>;
  /** Every entry, in pages (the check and the copy between stores). */
  entries(pageSize: number): AsyncGenerator<DueEntry[]>;
  /** Entries per state, as maintained by every write. */
  counts(): Promise<Record<IndexedState, number>>;
  /** A delivery record and its channel's move, in one write: both land or neither does. */
  writeWithDelivery(record: DeliveryWrite, move: DueMove): Promise<void>;
  /** What the index was built for (see next-due's build), or null before it was built. */
  builtFor(): Promise<string | null>;
  setBuiltFor(mark: string | null): Promise<void>;
  close(): Promise<void>;
}

export function emptyCounts(): Record<IndexedState, number> {
  return { active: 0, failing: 0, disabled: 0 };
}

export function isIndexedState(value: unknown): value is IndexedState {
  return typeof value === 'string' && (INDEXED_STATES as readonly string[]).includes(value);
}

/**
 * Pages read by keyset (what comes after the last row read) rather than by offset, so writes made between pages
 * shift no page (a tick moves what it has read): `read` returns up to `pageSize` rows after `after`, in order.
 */
export async function* keysetPages<Row, Cursor>(pageSize: number, start: Cursor, read: (after: Cursor) => Promise<Row[]>, cursorOf: (last: Row) => Cursor): AsyncGenerator<Row[]> {
  let after = start;
  for (;;) {
    const page = await read(after);
    const last = page.at(-1);
    if (last === undefined) return;
    yield page;
    if (page.length < pageSize) return;
    after = cursorOf(last);
  }
}

/** The start of a keyset over the instant, then the channel id. */
export const BEFORE_ANY_DUE = { dueAt: Number.MIN_SAFE_INTEGER, channelId: '' };
