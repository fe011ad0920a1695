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
  release(): Promise<void>;
}
