import type Keyv from 'keyv';
import type { StoredValue } from './cache-record.ts';

/** How long one store operation may take before the lookup goes on without it (a locked file waits up to 10 s). */
export const STORE_WAIT_MS = 2_000;
/** After the store fails or stalls, how long the cache keeps to memory before trying it again. */
export const STORE_RETRY_MS = 30_000;
const STALLED = Symbol('stalled');

/**
 * The cache's store tier: Keyv (a SQLite file by default), asked through `guard`. A failing store never fails a
 * lookup: reads count as misses, writes stay in memory, and `onStoreError` hears of it. A store that fails, or
 * takes longer than STORE_WAIT_MS, is left alone for STORE_RETRY_MS, so a locked, full or vanished file costs one
 * short wait, not one per record.
 */
export class StoreTier {
  /** performance.now() until which the store is not asked. */
  private resting = 0;

  constructor(
    readonly keyv: Keyv<StoredValue>,
    private readonly onStoreError?: (error: unknown) => void,
  ) {}

  /** What the store holds under `key`; undefined when nothing, or when the store did not answer. */
  get(key: string): Promise<StoredValue | undefined> {
    return this.guard(() => this.keyv.get(key), undefined);
  }

  /** Whether the store took the value. */
  set(key: string, value: StoredValue, ttlMs?: number): Promise<boolean> {
    return this.guard(() => this.keyv.set(key, value, ttlMs), false);
  }

  /** Deletes `key` if `known` to be there or found there (a delete costs more than a look on some stores). */
  async delete(key: string, known: boolean): Promise<void> {
    await this.guard(async () => {
      if (known || (await this.keyv.has(key))) await this.keyv.delete(key);
    }, undefined);
  }

  /** The operation's outcome, or `fallback` when the store fails, stalls or is resting. */
  async guard<T>(operation: () => Promise<T>, fallback: T): Promise<T> {
    if (performance.now() < this.resting) return fallback;
    let timer: NodeJS.Timeout | undefined;
    const stalled = new Promise<typeof STALLED>((resolve) => {
      timer = setTimeout(() => resolve(STALLED), STORE_WAIT_MS);
    });
    // A stalled operation finishes (or fails) in the background, unheard.
    const running = Promise.resolve().then(operation);
    running.catch(() => undefined);
    try {
      const outcome = await Promise.race([running, stalled]);
      if (outcome === STALLED) throw new Error(`the cache store did not answer within ${STORE_WAIT_MS} ms`);
      return outcome;
    } catch (error) {
      this.resting = performance.now() + STORE_RETRY_MS;
      this.onStoreError?.(error);
      return fallback;
    } finally {
      clearTimeout(timer);
    }
  }
}
