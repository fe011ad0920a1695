import type Keyv from 'keyv';
import type { DueEntry, DueIndex, DueMove, IndexedState } from '../../store/due-index.ts';
import { deliveryWrite } from '../../store/open-due-index.ts';
import type { DeliveryRecord, Subscription } from '../subscription.ts';

/**
 * The subscription store's side of the due-time index (src/store/due-index.ts): what an entry says about a
 * subscription. Written before the subscription record it follows, so a write that fails in between leaves the
 * index early (harmless: the scheduler reads the subscription, finds nothing owed and moves it on), never late (a
 * post that would not go out).
 */

/** The instant of an entry the next tick is to read: any time before it (the epoch). */
export const LOOK_NOW = 0;

/**
 * A subscription's entry as it is written by a change: due at once (LOOK_NOW), so the next tick reads it with its
 * delivery records and places it exactly (see settledDueAt). Only a subscription that was and stays disabled gets
 * no instant. This takes no clock: a change is never placed by a clock other than the scheduler's.
 */
export function entryFor(subscription: Subscription, previous?: Subscription | null): DueEntry {
  const wasDisabled = !previous || previous.status.state === 'disabled';
  const dueAt = subscription.status.state === 'disabled' && wasDisabled ? null : LOOK_NOW;
  return { channelId: subscription.channelId, dueAt, state: subscription.status.state };
}

export class DueEntries {
  constructor(
    readonly index: DueIndex,
    private readonly deliveries: Keyv<unknown>,
  ) {}

  /** Before subscription records are written: each one's entry (see entryFor); `previous` by channel id. */
  async written(subscriptions: readonly Subscription[], previous?: ReadonlyMap<string, Subscription>): Promise<void> {
    await this.index.put(subscriptions.map((subscription) => entryFor(subscription, previous?.get(subscription.channelId))));
  }

  /**
   * The entry of a subscription as stored now (under its server's lock: see reindex): none due for a disabled one,
   * due at once otherwise.
   */
  async settle(subscription: Subscription): Promise<void> {
    await this.index.put([{ channelId: subscription.channelId, dueAt: subscription.status.state === 'disabled' ? null : LOOK_NOW, state: subscription.status.state }]);
  }

  /** After subscription records are deleted. */
  removed(channelIds: readonly string[]): Promise<void> {
    return this.index.remove(channelIds);
  }

  /** A delivery record and its channel's move, in one write. */
  async putDelivery(key: string, record: DeliveryRecord, move: DueMove): Promise<void> {
    await this.index.writeWithDelivery(await deliveryWrite(this.deliveries, key, record), move);
  }

  /** Makes a channel's entry due at once (unless someone moved it meanwhile, or it has none or is disabled). */
  async makeDue(channelId: string): Promise<void> {
    const entry = (await this.index.get([channelId])).get(channelId);
    if (entry && entry.dueAt !== null && entry.dueAt > LOOK_NOW) await this.index.move([{ channelId, from: entry.dueAt, to: LOOK_NOW }]);
  }

  counts(): Promise<Record<IndexedState, number>> {
    return this.index.counts();
  }
}
