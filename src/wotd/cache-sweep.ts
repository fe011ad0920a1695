import type Keyv from 'keyv';
import { scanNamespace } from '../store/scan.ts';
import type { MemoryTier } from './cache-memory.ts';
import { isPastKeeping } from './cache-record.ts';
import type { StoreTier } from './cache-store.ts';

/** How often expired records are swept out of the store. */
export const SWEEP_EVERY_MS = 6 * 60 * 60_000;

/**
 * Clears the store of records nothing wants any more (see README "What the bot keeps"). A record that expires
 * carries `k`, the moment (adapter's clock) after which nothing wants it. Keyv's TTL removes such a record only
 * when it is read again (SQLite keeps it otherwise), so every SWEEP_EVERY_MS a sweep reads the namespace once and
 * deletes the records past their `k`. The sweep's last run is stored (`swept`), so the bot and short CLI runs on
 * one store share it.
 */
export class CacheSweeper {
  private nextSweepAt = 0;
  private sweeping: Promise<void> | null = null;

  constructor(
    private readonly store: StoreTier,
    private readonly memory: MemoryTier,
    private readonly now: () => number,
    private readonly staleKeepMs: number,
  ) {}

  /** Takes up the schedule of the sweeps before this opening of the store. */
  async resume(): Promise<void> {
    const swept = await this.store.get('swept');
    if (swept && !Array.isArray(swept) && typeof swept.v === 'number') {
      this.nextSweepAt = swept.v + SWEEP_EVERY_MS;
    } else {
      // A store never swept (new, or from an earlier version) is first swept one period after this first opening.
      const now = this.now();
      this.nextSweepAt = now + SWEEP_EVERY_MS;
      await this.store.set('swept', { v: now, exp: null });
    }
  }

  /** Starts a sweep, unawaited, when one is due at `now`. */
  sweepIfDue(now: number): void {
    if (now >= this.nextSweepAt) void this.sweep();
  }

  /** Resolves when the sweep under way, if any, has finished. */
  async settled(): Promise<void> {
    await this.sweeping;
  }

  /** Deletes every record past its keep time; returns how many. A sweep already under way is joined. */
  sweep(): Promise<number> {
    if (this.sweeping) return this.sweeping.then(() => 0);
    this.nextSweepAt = this.now() + SWEEP_EVERY_MS;
    const run = this.store.guard(() => this.sweepStore(), 0);
    this.sweeping = run.then(
      () => undefined,
      () => undefined,
    );
    void this.sweeping.then(() => {
      this.sweeping = null;
    });
    return run;
  }

  private async sweepStore(): Promise<number> {
    const keyv = this.store.keyv;
    // A store that cannot list its keys relies on its own TTLs (Keyv's) instead.
    if (!keyv.iterator) return 0;
    const now = this.now();
    let deleted = 0;
    for await (const page of scanNamespace(keyv as Keyv<unknown>)) {
      const gone = page
        // A record rewritten in memory since (the store's copy being older) is left for the next sweep.
        .filter(([key, value]) => isPastKeeping(value, now, this.staleKeepMs) && isPastKeeping(this.memory.peek(key), now, this.staleKeepMs, true))
        .map(([key]) => key);
      if (gone.length === 0) continue;
      for (const key of gone) this.memory.delete(key);
      await keyv.deleteMany(gone);
      deleted += gone.length;
    }
    await keyv.set('swept', { v: now, exp: null });
    return deleted;
  }
}
