import { addDays, utcDateOf, type IsoDate } from '../wotd/dates.ts';
import type { DeliveryReading, Subscription } from './subscription.ts';
import { localDateOf, parseLocalTime, summerOffsetMs, zonedInstant } from './zoned-time.ts';

/**
 * When a subscription posts, and which entry it posts.
 *
 * Each local day in the subscriber's zone has exactly one post instant (its HH:MM, moved past a DST gap, first
 * occurrence in an overlap). The entry it carries is the service's day (the UTC date) at that instant.
 * Binding the service day to the local day rather than to "now" is what makes a post caught up later the same local
 * day carry the entry it would have carried on time, and what keeps a subscriber far from UTC (09:00 in UTC−12 or
 * UTC+14) from getting a second post when the UTC date changes during their day.
 *
 * One refinement: the UTC date is taken with the zone's summer-time offset all year. Otherwise a post time near
 * UTC midnight (00:30 in London, 19:30 in New York) would cross midnight when the clocks change, and two local
 * days would map to one service day (a skipped post) or one service day would be jumped (a skipped word). With it,
 * consecutive local days always carry consecutive service days, and the entry is never a future one: in winter such
 * a post may carry the entry that was current an hour earlier. Outside those hours, and in zones without DST, it is
 * exactly the UTC date of the post time. Deliveries are recorded per service day, so no entry is posted twice.
 */

export interface Slot {
  /** The subscriber's calendar day. */
  localDay: IsoDate;
  postAt: Date;
  /** The service day whose entry this slot carries. */
  serviceDay: IsoDate;
}

export function slotFor(subscription: Pick<Subscription, 'time' | 'timeZone'>, localDay: IsoDate): Slot {
  const time = parseLocalTime(subscription.time) ?? { hour: 9, minute: 0 };
  const postAt = zonedInstant(localDay, time, subscription.timeZone);
  const wall = Date.parse(`${localDay}T00:00:00Z`) + (time.hour * 60 + time.minute) * 60_000;
  const serviceDay = utcDateOf(new Date(wall - summerOffsetMs(localDay, subscription.timeZone)));
  return { localDay, postAt, serviceDay };
}

/** Today's slot in the subscriber's zone. */
export function currentSlot(subscription: Pick<Subscription, 'time' | 'timeZone'>, now: Date): Slot {
  return slotFor(subscription, localDateOf(now, subscription.timeZone));
}

/**
 * Whether the record still owes this service day a post. A refusal recorded before the subscription was last
 * (re-)enabled no longer counts: an admin who fixed the permissions and subscribed again gets today's post.
 */
export function owesPost(subscription: Pick<Subscription, 'enabledAt'>, record: DeliveryReading | null, now: Date): boolean {
  if (!record) return true;
  switch (record.state) {
    case 'sent':
      return false;
    case 'failed':
      return record.updatedAt < subscription.enabledAt;
    case 'retrying':
      return !record.nextAttemptAt || record.nextAttemptAt <= now.toISOString();
    case 'sending':
      return true;
    // Unknown whether it went out: the delivery looks in the channel before posting.
    case 'damaged':
      return true;
  }
}

/** The slot to deliver now, or null: today's post time has passed and its service day is still owed. */
export function dueSlot(subscription: Subscription, record: (serviceDay: IsoDate) => DeliveryReading | null, now: Date): Slot | null {
  if (subscription.status.state === 'disabled') return null;
  const slot = currentSlot(subscription, now);
  if (slot.postAt.getTime() > now.getTime()) return null;
  return owesPost(subscription, record(slot.serviceDay), now) ? slot : null;
}

/**
 * When the next post goes out: today's slot if it is still ahead or still owed, otherwise the next local day's.
 * Null for a disabled subscription.
 */
export function nextPostTime(
  subscription: Subscription,
  record: (serviceDay: IsoDate) => DeliveryReading | null,
  now: Date,
): Date | null {
  if (subscription.status.state === 'disabled') return null;
  const today = currentSlot(subscription, now);
  for (const localDay of [today.localDay, addDays(today.localDay, 1), addDays(today.localDay, 2)]) {
    const slot = slotFor(subscription, localDay);
    const owed = owesPost(subscription, record(slot.serviceDay), now);
    if (!owed) continue;
    return slot.postAt.getTime() < now.getTime() ? now : slot.postAt;
  }
  return null;
}
