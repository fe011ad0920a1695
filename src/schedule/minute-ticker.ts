import cron, { type ScheduledTask } from 'node-cron';

/** How far the wall clock moved, beyond the time that really passed (negative: backward). */
export interface ClockJump {
  jumpedMs: number;
  from: Date;
  to: Date;
}

export interface MinuteTickerOptions {
  name: string;
  /** Runs at the start of every minute the wall clock reads; at most one run at a time. */
  run: () => Promise<void>;
  /** Told once per jump of the wall clock against the monotonic clock; must not throw. */
  onJump: (jump: ClockJump) => void;
}

/** A wall clock that moves this much more (or less) than the monotonic clock between two beats has jumped. */
export const JUMP_THRESHOLD_MS = 5_000;
/** The longest a beat is armed for, so a jump is noticed within a minute even if the next match is far off. */
const MAX_BEAT_MS = 60_000;

/**
 * node-cron's schedule ('* * * * *'), without its runner. node-cron's runner, when a beat comes late, walks every
 * minute it missed one by one and warns for each through console.warn: after the wall clock jumps forward a year
 * that is 525,600 warnings and half a minute of a blocked event loop. Here node-cron's task is created but never
 * started: it gives the next minute its expression matches (from the clock as it reads now, so a jump costs nothing)
 * and runs the function through `execute()`, while one timer of our own, re-armed each beat, is the heartbeat. Each
 * beat compares how far the wall clock moved with how far the monotonic clock did; a difference over
 * JUMP_THRESHOLD_MS is one jump, reported once, and the beat runs once. What is owed after it is the run's business
 * (the due-time rules and the delivery records), never a replay of the minutes in between.
 */
export class MinuteTicker {
  private readonly task: ScheduledTask;
  private timer: NodeJS.Timeout | null = null;
  private lastWall = 0;
  private lastMono = 0;
  private busy: Promise<void> | null = null;

  constructor(private readonly options: MinuteTickerOptions) {
    this.task = cron.createTask('* * * * *', () => options.run(), { name: options.name, noOverlap: true });
  }

  start(): void {
    if (this.timer) return;
    this.mark();
    this.arm();
  }

  /** Stops beating and waits for a run in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.task.destroy();
    await this.busy?.catch(() => undefined);
  }

  private mark(): void {
    this.lastWall = Date.now();
    this.lastMono = performance.now();
  }

  private arm(): void {
    const next = this.task.getNextRuns(1)[0]?.getTime() ?? Date.now() + MAX_BEAT_MS;
    // Clamped both ways: a clock that reads a bad value can neither spin the timer nor park it for a year.
    const delay = Math.min(MAX_BEAT_MS, Math.max(1_000, next - Date.now() + 5));
    this.timer = setTimeout(() => this.beat(), delay);
  }

  private beat(): void {
    if (!this.timer) return;
    const wall = Date.now();
    const mono = performance.now();
    const jumpedMs = Math.round(wall - this.lastWall - (mono - this.lastMono));
    if (Math.abs(jumpedMs) > JUMP_THRESHOLD_MS) {
      this.options.onJump({ jumpedMs, from: new Date(this.lastWall + (mono - this.lastMono)), to: new Date(wall) });
    }
    this.mark();
    if (!this.busy) {
      this.busy = this.task.execute().then(
        () => undefined,
        () => undefined,
      ).finally(() => {
        this.busy = null;
      });
    }
    this.arm();
  }
}

/** "3 days 4 h 12 min" for a log line: how far a clock moved. */
export function describeJump(ms: number): string {
  const sign = ms < 0 ? 'backward' : 'forward';
  let rest = Math.round(Math.abs(ms) / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [['d', 86_400], ['h', 3_600], ['min', 60], ['s', 1]] as const) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0) parts.push(`${count} ${unit}`);
  }
  return `${parts.join(' ') || '0 s'} ${sign}`;
}
