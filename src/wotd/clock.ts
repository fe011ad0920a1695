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

/** The longest delay setTimeout takes; past it Node warns (TimeoutOverflowWarning) and fires at once. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** Real timers. They keep the process alive: a queued lookup is work still to do. close() clears the adapter's. */
export const systemTimers: Timers = {
  setTimeout(callback, ms) {
    // A delay that is not a number or is past the maximum would fire at once: keep it in range (NaN waits 0).
    return setTimeout(callback, Math.min(MAX_TIMER_DELAY_MS, Math.max(0, ms || 0)));
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
