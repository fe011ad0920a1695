import type { IsoDate } from '../wotd/dates.ts';

/**
 * Who posts to which channel on which day when several processes share the subscriptions (cluster mode): a
 * process posts only under a claim, so two never post the same channel's day at once, and a claim left by a
 * process that died runs out so another finishes its share. A single process needs none.
 */
export interface DeliveryClaims {
  /** A claim on (channel, day), or null when another process holds it (or the claims cannot be reached). */
  claim(channelId: string, day: IsoDate): Promise<DeliveryClaim | null>;
}

export interface DeliveryClaim {
  /**
   * Whether the claim's lease is still known to last, on the monotonic clock (which runs on while the process is
   * paused). Nothing is recorded or posted under a claim that may have run out: another process may have the
   * channel's day by now.
   */
  held(): boolean;
  release(): Promise<void>;
}

/** A lease is taken to end this long before it runs out where it is kept: room for a post already on its way. */
const LEASE_MARGIN_MS = 5_000;

/** `held` for a claim of `leaseMs` taken just now (counted from when it was known to be taken). */
export function heldFor(leaseMs: number): () => boolean {
  const validUntil = performance.now() + leaseMs - Math.min(LEASE_MARGIN_MS, leaseMs / 3);
  return () => performance.now() <= validUntil;
}
