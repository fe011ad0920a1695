import type { MemoryTier } from './cache-memory.ts';
import { judge, RECORD_SCHEMA, type Cached, type Stored } from './cache-record.ts';
import type { StoreTier } from './cache-store.ts';
import type { CacheSweeper } from './cache-sweep.ts';

/**
 * The cache's records through both tiers: a read asks memory first and the store after, keeping what the store
 * had in memory from then on; a write goes to both, and may start the sweep that is due.
 */
export class CacheTiers {
  constructor(
    private readonly memory: MemoryTier,
    private readonly store: StoreTier,
    private readonly sweeper: CacheSweeper,
    private readonly now: () => number,
  ) {}

  /** The record as memory holds it, without marking it as used or asking the store. */
  peek(key: string): Stored<unknown> | undefined {
    return this.memory.peek(key);
  }

  /** The record judged, if memory holds it (no wait for the store); undefined when it does not. */
  recall<T>(key: string): Cached<T> | undefined {
    const record = this.memory.recall(key);
    return record ? this.judge<T>(record) : undefined;
  }

  read<T>(key: string): Promise<Cached<T> | null> {
    // Not an async function: a hit in memory (nearly every lookup of a running bot) costs one settled promise.
    const record = this.memory.recall(key);
    if (record) return Promise.resolve(this.judge<T>(record));
    return this.load(key).then((loaded) => (loaded ? this.judge<T>(loaded) : null));
  }

  /** A record written under today's trust rules (RECORD_SCHEMA); an older one is dropped. */
  async readCurrent<T>(key: string): Promise<Cached<T> | null> {
    const record = await this.readRecord(key);
    if (!record) return null;
    if (record.s === RECORD_SCHEMA) return this.judge<T>(record);
    await this.forget(key);
    return null;
  }

  async readRecord(key: string): Promise<Stored<unknown> | null> {
    return this.memory.recall(key) ?? this.load(key);
  }

  /** Writes a record that is kept for good, or until `keyvTtl` from now when given. */
  async write(key: string, record: Stored<unknown>, keyvTtl?: number): Promise<void> {
    const now = this.now();
    const kept = keyvTtl === undefined ? record : { ...record, k: now + keyvTtl };
    this.memory.remember(key, kept);
    await this.store.set(key, kept, keyvTtl);
    this.sweeper.sweepIfDue(now);
  }

  /** Writes a record under today's trust rules, fresh for `freshMs` and kept for `keepMs` (by default as long). */
  async writeExpiring(key: string, value: unknown, freshMs: number, keepMs = freshMs): Promise<void> {
    await this.write(key, { v: value, exp: this.now() + freshMs, s: RECORD_SCHEMA }, keepMs);
  }

  async forget(key: string): Promise<void> {
    const hadInMemory = this.memory.delete(key);
    await this.store.delete(key, hadInMemory);
  }

  /** A record kept for good (every past entry) is fresh whatever the time: no clock read for it (bench:commands). */
  private judge<T>(record: Stored<unknown>): Cached<T> {
    return judge<T>(record, record.exp === null ? 0 : this.now());
  }

  /** The record from the store, kept in memory from then on. */
  private async load(key: string): Promise<Stored<unknown> | null> {
    const stored = await this.store.get(key);
    if (!stored || Array.isArray(stored)) return null;
    this.memory.remember(key, stored);
    return stored;
  }
}
