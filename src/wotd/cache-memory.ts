import type { Stored } from './cache-record.ts';

/** The cache's in-memory tier: the most recently used records, at most `capacity` of them. */
export class MemoryTier {
  private readonly records = new Map<string, Stored<unknown>>();

  constructor(private readonly capacity: number) {}

  get size(): number {
    return this.records.size;
  }

  /** The record if held, without marking it as used. */
  peek(key: string): Stored<unknown> | undefined {
    return this.records.get(key);
  }

  /** The record if held, marked as the most recently used. */
  recall(key: string): Stored<unknown> | undefined {
    const record = this.records.get(key);
    if (record) this.remember(key, record);
    return record;
  }

  /** Holds the record as the most recently used, letting the least recently used go when full. */
  remember(key: string, record: Stored<unknown>): void {
    this.records.delete(key);
    this.records.set(key, record);
    if (this.records.size > this.capacity) {
      const oldest = this.records.keys().next().value;
      if (oldest !== undefined) this.records.delete(oldest);
    }
  }

  /** True when the record was held. */
  delete(key: string): boolean {
    return this.records.delete(key);
  }
}
