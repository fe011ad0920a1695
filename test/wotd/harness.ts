import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWotdAdapter, type WotdAdapter, type WotdAdapterOptions } from '../../src/wotd/adapter.ts';
import { openStore } from '../../src/store/open-store.ts';
import { WotdError } from '../../src/wotd/errors.ts';
import type { ManualClock } from '../support/upstream/manual-clock.ts';

/** A temp directory removed by `cleanup()`. */
export async function tempDir(): Promise<{ path: string; cleanup: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'wotd-adapter-'));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** An adapter on a real SQLite cache file in `dir`, on the manual clock. */
export async function sqliteAdapter(
  dir: string,
  clock: ManualClock,
  options: Omit<WotdAdapterOptions, 'store' | 'now' | 'timers'> & { file?: string },
): Promise<WotdAdapter> {
  const { file = 'cache.sqlite', ...rest } = options;
  const store = await openStore(`sqlite://${join(dir, file)}`, 'wotd-cache');
  return createWotdAdapter({ retryDelayMs: 0, ...rest, store, ownsStore: true, now: clock.now, timers: clock });
}

/** The WotdError `promise` rejects with; fails the test if it settles any other way. */
export async function failure(promise: Promise<unknown>): Promise<WotdError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof WotdError) return error;
    throw error;
  }
  throw new Error('expected a WotdError');
}

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 2));

/**
 * Settles `promise` while moving the manual clock: whenever no request is in flight and the promise is still
 * pending, time jumps to the next timer. Real I/O (the HTTP exchange) is awaited, never simulated.
 */
export async function drive<T>(clock: ManualClock, adapter: WotdAdapter, promise: Promise<T>): Promise<T> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  let idleRounds = 0;
  while (!settled) {
    await tick();
    if (settled || adapter.stats().inFlight > 0) continue;
    if (!clock.runNext()) {
      if (++idleRounds > 2_500) throw new Error('drive: nothing left to run and the lookup never settled');
    } else idleRounds = 0;
  }
  return promise;
}
