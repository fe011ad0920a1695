import type { Priority } from './lookup.ts';

/**
 * A request budget shared with other processes (cluster mode), taken after the process's own limiter granted a
 * slot and before the request is sent. The single-process bot has none: its own limiter is the whole budget.
 */
export interface UpstreamBudget {
  /**
   * Waits at most `maxWaitMs` for a slot on `endpoint`'s budget; null when none came in time. The slot counts
   * until a window after `answered()` is called, or a window after it was taken if the process dies first.
   */
  take(endpoint: string, priority: Priority, maxWaitMs: number): Promise<UpstreamSlot | null>;
}

export interface UpstreamSlot {
  answered(): Promise<void>;
}
