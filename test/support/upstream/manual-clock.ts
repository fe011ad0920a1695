import type { TimerHandle, Timers } from '../../../src/wotd/clock.ts';

interface Pending {
  id: number;
  due: number;
  callback: () => void;
}

/**
 * A clock and timers that only move when told: minutes of rate-limit waiting pass in no real time.
 * Hand `clock.now` and `clock` (as Timers) to the adapter, and `clock.now` to the service.
 */
export class ManualClock implements Timers {
  private nowMs: number;
  private nextId = 1;
  private readonly pending: Pending[] = [];

  constructor(start: Date | string) {
    this.nowMs = new Date(start).getTime();
  }

  readonly now = (): Date => new Date(this.nowMs);

  get ms(): number {
    return this.nowMs;
  }

  get timerCount(): number {
    return this.pending.length;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    const timer = { id: this.nextId++, due: this.nowMs + Math.max(0, ms), callback };
    this.pending.push(timer);
    this.pending.sort((a, b) => a.due - b.due || a.id - b.id);
    return { id: timer.id };
  }

  clearTimeout(handle: TimerHandle): void {
    const id = (handle as { id?: number }).id;
    const index = this.pending.findIndex((timer) => timer.id === id);
    if (index >= 0) this.pending.splice(index, 1);
  }

  /** Moves time forward by `ms`, running every timer that falls due on the way, in order. */
  advance(ms: number): void {
    this.advanceTo(this.nowMs + ms);
  }

  advanceTo(targetMs: number): void {
    for (;;) {
      const next = this.pending[0];
      if (!next || next.due > targetMs) break;
      this.pending.shift();
      this.nowMs = Math.max(this.nowMs, next.due);
      next.callback();
    }
    this.nowMs = Math.max(this.nowMs, targetMs);
  }

  /** Jumps to the next timer and runs it (and any due at the same instant); false when none is pending. */
  runNext(): boolean {
    const next = this.pending[0];
    if (!next) return false;
    this.advanceTo(next.due);
    return true;
  }
}
