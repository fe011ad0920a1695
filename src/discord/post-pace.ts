import type { TurnPriority } from '../schedule/poster.ts';

/**
 * The pace of the daily posts in one process: turns evenly spaced, never more than `perSecond` in any sliding
 * second, each request to Discord of the fan-out taking one just before it is sent.
 *
 * A turn has a priority. `first` (the default) is the day's posts and what they need; `after` is work no member
 * waits for (a pin, an unpin): it is given a turn only when no `first` waits at that moment. Nothing waits forever:
 * once the posts are done, the `after` turns go at the full pace. Who gets a turn is decided when the turn comes
 * (after its wait), so a post that arrives while a pin waits still goes before it. Both share the one pace, so
 * together they stay under the global limit.
 */
/** Waits for a turn of the pace; resolves when the request may be sent. */
export type TakeTurn = (priority?: TurnPriority) => Promise<void>;

const WINDOW_MS = 1000;
/**
 * Posts that fell behind their schedule (a busy event loop, a timer that fired late) go out at once while they are
 * at most this far behind, so late timers do not add up to a slower pace; further behind, the schedule starts
 * again from now, so a burst after a stall stays small.
 */
const CATCH_UP_MS = 50;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `perSecond` turns a second (0 turns pacing off: every turn at once). */
export function pacer(perSecond: number): TakeTurn {
  if (perSecond <= 0) return () => Promise.resolve();
  const spacing = WINDOW_MS / perSecond;
  /** Start times of the last `perSecond` turns, oldest at `oldest`. */
  const started = new Float64Array(perSecond).fill(Number.NEGATIVE_INFINITY);
  let oldest = 0;
  let nextAt = Number.NEGATIVE_INFINITY;
  const waiting: Record<TurnPriority, Array<() => void>> = { first: [], after: [] };
  let granting = false;

  /** Waits until the next turn may start, and counts it as started. */
  const nextTurn = async (): Promise<void> => {
    let now = performance.now();
    if (nextAt < now - CATCH_UP_MS) nextAt = now;
    // Timers fire a millisecond late at best: a turn due within one goes now.
    if (nextAt - now >= 1) {
      await sleep(nextAt - now);
      now = performance.now();
    }
    const age = now - (started[oldest] ?? Number.NEGATIVE_INFINITY);
    if (age < WINDOW_MS) {
      await sleep(WINDOW_MS - age);
      now = performance.now();
    }
    started[oldest] = now;
    oldest = (oldest + 1) % perSecond;
    nextAt += spacing;
  };

  const grant = async (): Promise<void> => {
    granting = true;
    while (waiting.first.length > 0 || waiting.after.length > 0) {
      await nextTurn();
      (waiting.first.shift() ?? waiting.after.shift())?.();
    }
    granting = false;
  };

  return (priority = 'first') =>
    new Promise<void>((resolve) => {
      waiting[priority].push(resolve);
      if (!granting) void grant();
    });
}
