import { addDays, type IsoDate } from '../wotd/dates.ts';
import type { DeliveryRecord } from './subscription.ts';
import type { SubscriptionStore } from './subscription-store.ts';
import type { Logger } from '../config/logger.ts';
import type { PostResult } from './poster.ts';

/**
 * The `pin` setting's part of a daily post: which earlier post to unpin, and what a failed pin leaves in the day's
 * record. A pin never fails or repeats the post: its failure is logged, counted and shown in the status.
 */

/** Service days looked back for the bot's previous post (a subscription on some weekdays only skips days). */
export const PIN_LOOK_BACK_DAYS = 7;

/** The pin to make with the day's post: unpin the bot's latest sent post of the days before, if there is one. */
export async function pinPlan(store: SubscriptionStore, channelId: string, day: IsoDate): Promise<{ unpin?: string }> {
  for (let back = 1; back <= PIN_LOOK_BACK_DAYS; back += 1) {
    const record = await store.getDelivery(channelId, addDays(day, -back));
    if (record?.state === 'sent' && record.messageId) return { unpin: record.messageId };
  }
  return {};
}

/** The record to write for a sent post: with the pin's failure, which is logged and counted here. */
export function pinned(base: DeliveryRecord, posted: PostResult, options: { logger: Logger; hooks?: { pinFailed?(): void } | undefined }): DeliveryRecord {
  if (posted.pinFailure === undefined) return base;
  options.hooks?.pinFailed?.();
  options.logger.warn({ channelId: base.channelId, day: base.day, messageId: posted.messageId, reason: posted.pinFailure }, 'daily post sent, but pinning failed');
  return { ...base, pinFailures: posted.pinFailure };
}
