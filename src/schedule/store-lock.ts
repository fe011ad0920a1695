import { KeyedMutex } from './keyed-mutex.ts';

/**
 * Keeps one read-modify-write of the subscription store at a time per key. Keyv has no transactions, so every
 * change of a record or an index goes through `withLock`. Which lock depends on who else writes the store:
 * InProcessLock when this process is the only writer (SQLite, memory), RedisLock when several processes share it.
 */
export interface StoreLock {
  withLock<T>(key: string, work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

const mutexes = new Map<string, KeyedMutex>();

/** Locks held in this process only, shared by every store opened on the same scope (the store URL). */
export class InProcessLock implements StoreLock {
  private readonly mutex: KeyedMutex;

  constructor(scope: string) {
    let mutex = mutexes.get(scope);
    if (!mutex) {
      mutex = new KeyedMutex();
      mutexes.set(scope, mutex);
    }
    this.mutex = mutex;
  }

  withLock<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.mutex.run(key, work);
  }

  async close(): Promise<void> {}
}
