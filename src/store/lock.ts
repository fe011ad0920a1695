import type { StoreCheck } from './store-watch.ts';
import { KeyedMutex } from './keyed-mutex.ts';

/**
 * Keeps one read-modify-write of the subscription store at a time per key. Keyv has no transactions, so every
 * change of a record or an index goes through `withLock`. Which lock depends on who else writes the store:
 * InProcessLock when this process is the only writer (SQLite, memory), RedisLock when several processes share it.
 */
export interface StoreLock {
  withLock<T>(key: string, work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /** Locks kept in a store of their own (Redis): its health and failures. */
  readonly watch?: StoreCheck;
}

/** One mutex per scope while any lock of that scope is open; the last close forgets it. */
const mutexes = new Map<string, { mutex: KeyedMutex; users: number }>();

/** Scopes with an open lock in this process (each memory:// store is a scope of its own). */
export function inProcessLockScopes(): number {
  return mutexes.size;
}

/** Locks held in this process only, shared by every store opened on the same scope (the store URL). */
export class InProcessLock implements StoreLock {
  private readonly mutex: KeyedMutex;
  private closed = false;

  constructor(private readonly scope: string) {
    let shared = mutexes.get(scope);
    if (!shared) {
      shared = { mutex: new KeyedMutex(), users: 0 };
      mutexes.set(scope, shared);
    }
    shared.users += 1;
    this.mutex = shared.mutex;
  }

  withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.mutex.run(key, work);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const shared = mutexes.get(this.scope);
    if (shared && shared.mutex === this.mutex && --shared.users <= 0) mutexes.delete(this.scope);
  }
}
