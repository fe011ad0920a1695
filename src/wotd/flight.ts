import type { Priority } from './lookup.ts';
import { PRIORITY_RANK, type Permit, type RateLimiter, type Ticket } from './rate-limiter.ts';

/**
 * One upstream operation shared by every caller that asked for the same thing while it was under way
 * (coalescing). It queues at the most urgent priority among its callers; when every caller has given up
 * while it still waits for the limiter, it leaves the queue and sends nothing.
 */
export class Flight<T> {
  readonly result: Promise<T>;
  private callers = 0;
  private ticket: Ticket | null = null;
  private abandoned = false;

  constructor(
    public priority: Priority,
    run: (flight: Flight<T>) => Promise<T>,
  ) {
    this.result = Promise.resolve().then(() => run(this));
    // Callers observe the result through their own promises; an abandoned flight must not go unhandled.
    this.result.catch(() => undefined);
  }

  /** Waits for a slot of `limiter` (the budget of the endpoint about to be called) at the flight's priority. */
  async acquire(limiter: RateLimiter): Promise<Permit> {
    if (this.abandoned) throw new FlightAbandoned();
    const ticket = limiter.enqueue(this.priority);
    this.ticket = ticket;
    try {
      return await new Promise<Permit>((resolve, reject) => {
        this.rejectWaiting = reject;
        ticket.granted.then(resolve, reject);
      });
    } finally {
      this.rejectWaiting = null;
      if (this.ticket === ticket) this.ticket = null;
    }
  }

  /** True while the flight sits in the limiter's queue. */
  get waiting(): boolean {
    return this.ticket !== null && !this.ticket.isGranted;
  }

  /** When the flight is expected to be sent, if it is waiting. */
  estimate(): number | null {
    return this.waiting && this.ticket ? this.ticket.estimate() : null;
  }

  /** Every caller gave up while it waited; it will send nothing. */
  get isAbandoned(): boolean {
    return this.abandoned;
  }

  get callerCount(): number {
    return this.callers;
  }

  join(priority: Priority): void {
    this.callers++;
    if (PRIORITY_RANK[priority] < PRIORITY_RANK[this.priority]) {
      this.priority = priority;
      this.ticket?.raise(priority);
    }
  }

  leave(): void {
    this.callers--;
    if (this.callers <= 0 && this.waiting) {
      this.abandoned = true;
      const ticket = this.ticket;
      this.ticket = null;
      ticket?.cancel();
      this.rejectWaiting?.(new FlightAbandoned());
    }
  }

  private rejectWaiting: ((error: Error) => void) | null = null;
}

export class FlightAbandoned extends Error {
  override readonly name = 'FlightAbandoned';
  constructor() {
    super('every caller stopped waiting');
  }
}
