import { addDays, type IsoDate } from '../wotd/dates.ts';
import type { SubscriptionStore } from './subscription-store.ts';

/**
 * The `pin` setting's part of a daily post: which earlier post to unpin. The pin itself follows the post once it is
 * recorded (pin-follow-ups.ts); it never fails or repeats the post.
 */

/** Service days looked back for the bot's previous post (a subscription on some weekdays only skips days). */
export const PIN_LOOK_BACK_DAYS = 7;

/**
 * The pin to make with the day's post: unpin the bot's latest sent post of the days before, if there is one; if that
 * post's own pin was never made (still owed when its day ended), the post it was to unpin, which is still pinned.
 */
export async function pinPlan(store: SubscriptionStore, channelId: string, day: IsoDate): Promise<{ unpin?: string }> {
  for (let back = 1; back <= PIN_LOOK_BACK_DAYS; back += 1) {
    const record = await store.getDelivery(channelId, addDays(day, -back));
    if (record?.state !== 'sent' || !record.messageId) continue;
    const unpin = record.pinOwed ? record.pinOwed.unpin : record.messageId;
    return unpin ? { unpin } : {};
  }
  return {};
}
