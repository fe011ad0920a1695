/**
 * A map whose values answer for `ttlMs` after they are written, at most `capacity` of them: writing one more
 * forgets the oldest written exactly (writing a key again counts as its newest write; reading does not). With one
 * time to live for all, the oldest written is also the first to expire. An expired value is dropped when asked for.
 */
export class ExpiringMap<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly capacity: number,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** The value written within `ttlMs`, or undefined. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.until > this.clock()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: K, value: V): void {
    // Deleted first, so the Map's order (insertion) stays the order of the latest writes.
    this.entries.delete(key);
    if (this.entries.size >= this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, until: this.clock() + this.ttlMs });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }
}
