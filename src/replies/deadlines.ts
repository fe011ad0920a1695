/**
 * Deadlines that all lie the same time ahead (a command's safety deferral, an answer's deferral), on one timer per
 * queue rather than a setTimeout and a clearTimeout per interaction (bench:commands). Each deadline is a node of the
 * caller's own class, so scheduling one makes no closure; it is due later than every deadline already queued, so
 * it is added at the tail, and a cancelled one is unlinked at once, so that it dies young with its interaction.
 */
export abstract class Deadline {
  /** performance.now() at which it is due. */
  due = 0;
  prev: Deadline | null = null;
  next: Deadline | null = null;
  queued = false;
}

/** A timer may fire up to a millisecond before performance.now() reaches the time it was set for. */
const EARLY_MS = 1;

export class DeadlineQueue<T extends Deadline> {
  private head: Deadline | null = null;
  private tail: Deadline | null = null;
  private timer: NodeJS.Timeout | undefined;
  private readonly delayMs: number;

  /** `fire` runs for each deadline that comes due uncancelled, `delayMs` after it was added. */
  constructor(
    delayMs: number,
    private readonly fire: (deadline: T) => void,
  ) {
    this.delayMs = Math.min(2 ** 31 - 1, Math.max(0, Math.floor(delayMs)));
  }

  add(deadline: T): void {
    if (deadline.queued) this.unlink(deadline);
    deadline.due = performance.now() + this.delayMs;
    deadline.prev = this.tail;
    deadline.next = null;
    deadline.queued = true;
    if (this.tail) this.tail.next = deadline;
    else this.head = deadline;
    this.tail = deadline;
    // The timer stays set for the earliest deadline once queued (later ones are due later still); while the queue is
    // empty it does not hold the process open.
    if (!this.timer) this.timer = setTimeout(this.onTimer, this.delayMs);
    else if (!this.timer.hasRef()) this.timer.ref();
  }

  /** Takes the deadline out, if it is still queued. */
  cancel(deadline: T): void {
    if (!deadline.queued) return;
    this.unlink(deadline);
    if (!this.head) this.timer?.unref();
  }

  private unlink(deadline: Deadline): void {
    if (deadline.prev) deadline.prev.next = deadline.next;
    else this.head = deadline.next;
    if (deadline.next) deadline.next.prev = deadline.prev;
    else this.tail = deadline.prev;
    deadline.prev = null;
    deadline.next = null;
    deadline.queued = false;
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    const now = performance.now();
    let failure: { error: unknown } | undefined;
    for (let first = this.head; first && first.due <= now + EARLY_MS; first = this.head) {
      this.unlink(first);
      try {
        this.fire(first as T);
      } catch (error) {
        failure ??= { error };
      }
    }
    if (this.head) this.timer = setTimeout(this.onTimer, Math.max(0, Math.ceil(this.head.due - now)));
    // As a throw from a timer's own callback would be: uncaught, once the queue is in order again.
    if (failure) throw failure.error;
  };
}
