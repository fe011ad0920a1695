/**
 * Runs async critical sections one at a time per key, in arrival order.
 * Keyv has no transactions, so every read-modify-write of a key goes through one of these.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work, work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a critical section running or queued; an idle key is forgotten, so this is 0 at rest. */
  get size(): number {
    return this.tails.size;
  }
}
