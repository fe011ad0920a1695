import type Keyv from 'keyv';
import type { DueEntry, DueIndex, DueMove, IndexedState } from '../../store/due-index.ts';
import { deliveryWrite } from '../../store/open-due-index.ts';
import { dueAtFrom } from '../next-due.ts';
import type { DeliveryRecord, Subscription } from '../subscription.ts';

/**
 * The subscription store's side of the due-time index (src/store/due-index.ts): what an entry says about a
 * subscription. Written before the subscription record it follows, with the earlier of the old and the new
 * instants, so a write that fails in between leaves the index early (harmless: the scheduler reads the
 * subscription, finds nothing owed and moves it on), never late (a post that would not go out).
 */

export function entryFor(subscription: Subscription, now: number, previous?: Subscription | null): DueEntry {
  const dueAt = dueAtFrom(subscription, now);
  const before = previous ? dueAtFrom(previous, now) : null;
  return {
    channelId: subscription.channelId,
    dueAt: dueAt === null ? before : before === null ? dueAt : Math.min(dueAt, before),
    state: subscription.status.state,
  };
}

export class DueEntries {
  constructor(
    readonly index: DueIndex,
    private readonly deliveries: Keyv<unknown>,
    private readonly now: () => Date,
  ) {}

  /** Before subscription records are written: each one's entry (see entryFor); `previous` by channel id. */
  async written(subscriptions: readonly Subscription[], previous?: ReadonlyMap<string, Subscription>): Promise<void> {
    const now = this.now().getTime();
    await this.index.put(subscriptions.map((subscription) => entryFor(subscription, now, previous?.get(subscription.channelId))));
  }

  /** After subscription records are deleted. */
  removed(channelIds: readonly string[]): Promise<void> {
    return this.index.remove(channelIds);
  }

  /** A delivery record and its channel's move, in one write. */
  async putDelivery(key: string, record: DeliveryRecord, move: DueMove): Promise<void> {
    await this.index.writeWithDelivery(await deliveryWrite(this.deliveries, key, record), move);
  }

  counts(): Promise<Record<IndexedState, number>> {
    return this.index.counts();
  }
}
