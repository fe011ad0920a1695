import { addDays, utcDateOf, type IsoDate } from '../wotd/dates.ts';
import type { DeliveryReading, Subscription } from './subscription.ts';
import { lookaheadDays, pausedAt, postsSlot, type PostRules } from './post-rules.ts';
import { highestOffsetFromMs, localDateOf, localDayExists, parseLocalTime, zonedInstant } from './zoned-time.ts';

/**
 * When a subscription posts, and which entry it posts.
 *
 * Each local day in the subscriber's zone has exactly one post instant: the first instant at or after its HH:MM
 * (past a DST gap, that is the instant the gap ends; in an overlap, the first occurrence). A post is delivered from
 * that instant to the end of the local day the instant falls in: usually its own day, but where a gap starts before
 * midnight (23:00 in America/Nuuk on its spring night) a post time inside it goes out at the next midnight, as well
 * as that next day's own post. A day the zone skipped altogether (2011-12-30 in Pacific/Apia) has none.
 *
 * The entry a post carries is the service's day (a UTC date) counted from the local day, not from "now": a post
 * caught up later the same local day carries the entry it would have carried on time, and a subscriber far from UTC
 * (09:00 in UTC−12 or UTC+14) gets no second post when the UTC date changes during their day.
 *
 * The UTC date is taken with the highest offset the zone uses from that day on (its summer time, or the offset of
 * a rule it will switch to). With the offset of the moment instead, a post time near UTC midnight (00:30 in London,
 * 19:30 in New York) would cross midnight when the clocks change, and two local days would map to one service day
 * (a skipped post) or one service day would be jumped (a skipped word). Since that highest offset never grows from
 * one day to the next, consecutive local days carry increasing service days, one day apart except where a zone
 * gives up an offset for good (Asia/Tehran ending DST in 2022 jumps one word, once), and the entry is never a
 * future one: in winter such a post may carry the entry that was current an hour earlier. Outside those hours, and
 * in zones that keep one offset, it is exactly the UTC date of the post time. Deliveries are recorded per service
 * day, so no entry is posted twice.
 *
 * On top of that, a subscription's own rules (post-rules.ts: the days of the week it chose, a pause, a skipped post)
 * take slots away. A slot taken away is not owed, so it is never caught up.
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
  const serviceDay = utcDateOf(new Date(wall - highestOffsetFromMs(localDay, subscription.timeZone)));
  return { localDay, postAt, serviceDay };
}

/** Today's slot in the subscriber's zone (its post may be ahead, behind, or pushed past midnight by a gap). */
export function currentSlot(subscription: Pick<Subscription, 'time' | 'timeZone'>, now: Date): Slot {
  return slotFor(subscription, localDateOf(now, subscription.timeZone));
}

/**
 * The slots that may be delivered at `now`, earliest first: those whose post instant has passed and fell on the
 * current local day. That is today's, and yesterday's when a gap pushed it past midnight.
 */
export function deliverableSlots(subscription: Pick<Subscription, 'time' | 'timeZone'>, now: Date): Slot[] {
  const today = localDateOf(now, subscription.timeZone);
  const slots: Slot[] = [];
  for (const localDay of [addDays(today, -1), today]) {
    const slot = slotFor(subscription, localDay);
    if (slot.postAt.getTime() > now.getTime()) continue;
    if (localDateOf(slot.postAt, subscription.timeZone) !== today) continue;
    if (localDay !== today && !localDayExists(localDay, subscription.timeZone)) continue;
    slots.push(slot);
  }
  return slots;
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

/** The subscription's rules, as post-rules.ts reads them. */
function rulesOf(subscription: Pick<Subscription, 'timeZone' | 'days' | 'pause' | 'skipDay'>): PostRules {
  return { timeZone: subscription.timeZone, days: subscription.days, pause: subscription.pause, skipDay: subscription.skipDay };
}

/**
 * Whether the subscription posts this slot at `now`: a day it chose, not skipped, not in a pause, and not while it is
 * paused. The scheduler works zone and time slots out once for many subscriptions, then asks this of each.
 */
export function postsSlotNow(subscription: Pick<Subscription, 'timeZone' | 'days' | 'pause' | 'skipDay'>, slot: Slot, now: Date): boolean {
  const rules = rulesOf(subscription);
  return postsSlot(rules, slot) && pausedAt(rules, now) === null;
}

/** The slot to deliver now, or null: the earliest deliverable slot whose service day is still owed. */
export function dueSlot(subscription: Subscription, record: (serviceDay: IsoDate) => DeliveryReading | null, now: Date): Slot | null {
  if (subscription.status.state === 'disabled') return null;
  return (
    deliverableSlots(subscription, now).find(
      (slot) => postsSlotNow(subscription, slot, now) && owesPost(subscription, record(slot.serviceDay), now),
    ) ?? null
  );
}

/**
 * When the next post goes out: now if a deliverable slot is still owed, otherwise the first post instant still
 * ahead whose service day is owed. Null for a disabled subscription.
 */
export function nextPostTime(
  subscription: Subscription,
  record: (serviceDay: IsoDate) => DeliveryReading | null,
  now: Date,
): Date | null {
  if (subscription.status.state === 'disabled') return null;
  if (dueSlot(subscription, record, now)) return now;
  return nextSlot(subscription, record, now)?.postAt ?? null;
}

/**
 * The first slot still ahead that the subscription posts and whose service day is owed, or null (a pause until
 * resumed, or nothing within the look-ahead). A pause until a date ends by then, so its later slots count.
 */
export function nextSlot(
  subscription: Subscription,
  record: (serviceDay: IsoDate) => DeliveryReading | null,
  now: Date,
): Slot | null {
  const rules = rulesOf(subscription);
  const paused = pausedAt(rules, now);
  if (paused && paused.until === null) return null;
  const today = localDateOf(now, subscription.timeZone);
  const ahead = lookaheadDays(rules, today);
  for (let offset = 0; offset <= ahead; offset += 1) {
    const localDay = addDays(today, offset);
    const slot = slotFor(subscription, localDay);
    if (slot.postAt.getTime() <= now.getTime() || !localDayExists(localDay, subscription.timeZone)) continue;
    if (!postsSlot(rules, slot)) continue;
    if (owesPost(subscription, record(slot.serviceDay), now)) return slot;
  }
  return null;
}
