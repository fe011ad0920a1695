import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A lock with a lease (a Redis lock runs out by itself) proves it is still held by its lease: while the lease is
 * known to last (on the monotonic clock, which also runs while the process is paused), a write under it may go
 * out; after that, another process may hold the lock, so the write is refused with LeaseLostError. A process
 * stopped (SIGSTOP, a VM frozen) past its lease finds out here when it resumes, before it writes anything.
 */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

export interface Lease {
  /** performance.now() until which the lease is known to be held. */
  validUntil: number;
  /** Set when a renewal found the lock gone, or could not renew it. */
  lost: string | null;
  readonly what: string;
}

const current = new AsyncLocalStorage<Lease>();

/** Runs `work` under `lease`: every store write made inside it (watchMethods) checks the lease first. */
export function underLease<T>(lease: Lease, work: () => Promise<T>): Promise<T> {
  return current.run(lease, work);
}

/** Throws LeaseLostError when the write being made runs under a lease that may have run out. */
export function checkLease(lease: Lease | undefined = current.getStore()): void {
  if (!lease) return;
  if (lease.lost !== null) throw new LeaseLostError(`the lock on ${lease.what} was lost (${lease.lost}); nothing was written`);
  const late = performance.now() - lease.validUntil;
  if (late > 0) throw new LeaseLostError(`the lease on ${lease.what} may have run out (the process was held up ${Math.round(late)} ms past it); nothing was written`);
}

/** Whether the lease still holds (for work that would rather skip than throw). */
export function leaseHeld(lease: Lease): boolean {
  return lease.lost === null && performance.now() <= lease.validUntil;
}
