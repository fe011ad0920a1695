/**
 * Time as the adapter sees it. Tests and the benchmark inject a manual clock and timers so that
 * minutes of rate-limit waiting pass instantly; production uses the real ones.
 */
export type Clock = () => Date;

export type TimerHandle = { readonly __timer: unique symbol } | object | number;

export interface Timers {
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export const systemClock: Clock = () => new Date();

/** Real timers that never keep the process alive on their own. */
export const systemTimers: Timers = {
  setTimeout(callback, ms) {
    const handle = setTimeout(callback, Math.max(0, ms));
    handle.unref();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/** Resolves after `ms` on the given timers (so a manual clock controls it too). */
export function sleep(timers: Timers, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    timers.setTimeout(resolve, ms);
  });
}
