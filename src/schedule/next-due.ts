import { addDays, type IsoDate } from '../wotd/dates.ts';
import { deliverableSlots, owesPost, slotFor, type Slot } from './due.ts';
import type { DeliveryReading, Subscription } from './subscription.ts';
import { localDateOf } from './zoned-time.ts';

/**
 * A subscription's place in the due-time index (see docs/daily-posts.md, "The due-time index"): the instant from
 * which the scheduler must look at it again. Every rule of when a post goes out stays in due.ts; these functions
 * only ask it, so a rule added there (days of the week, pauses) moves the index with it.
 *
 * The one invariant: an index instant is never later than the subscription's next owed post. An earlier one is
 * harmless: the tick that reads it finds nothing owed (the delivery records say so) and moves it on. So whenever the
 * delivery records are not at hand (a subscription written, an index built), the entry is made due at once and the
 * next tick places it with settledDueAt.
 */

/** How far ahead a post instant is looked for; past it, the subscription is looked at again then (never lost). */
const HORIZON_DAYS = 9;

/** Whether the slot is ever delivered: due.ts counts it among the deliverable slots at its own post instant. */
function isDelivered(subscription: Subscription, slot: Slot): boolean {
  return deliverableSlots(subscription, slot.postAt).some((candidate) => candidate.localDay === slot.localDay);
}

/**
 * The first post instant strictly after `after` (ms), by the rules of due.ts; null for a disabled subscription.
 * Past HORIZON_DAYS without one, the horizon itself, so a subscription that has no post for a while is read again
 * then rather than dropped.
 */
export function nextDueAt(subscription: Subscription, after: number): number | null {
  if (subscription.status.state === 'disabled') return null;
  const start = localDateOf(new Date(after), subscription.timeZone);
  for (let offset = -1; offset <= HORIZON_DAYS; offset += 1) {
    const slot = slotFor(subscription, addDays(start, offset));
    if (slot.postAt.getTime() > after && isDelivered(subscription, slot)) return slot.postAt.getTime();
  }
  return after + HORIZON_DAYS * 86_400_000;
}

/**
 * The index instant with the delivery records read: the post instant of a deliverable slot still owed (at or before
 * `now`), else the earlier of a pending retry and the next post instant. Null when disabled.
 */
export function settledDueAt(
  subscription: Subscription,
  record: (serviceDay: IsoDate) => DeliveryReading | null,
  now: number,
  /** nextDueAt(subscription, now), when the caller has it already (many subscriptions share it). */
  next: number | null = nextDueAt(subscription, now),
): number | null {
  if (subscription.status.state === 'disabled') return null;
  const at = new Date(now);
  let retryAt = Number.POSITIVE_INFINITY;
  for (const slot of deliverableSlots(subscription, at)) {
    const reading = record(slot.serviceDay);
    if (owesPost(subscription, reading, at)) return slot.postAt.getTime();
    if (reading?.state === 'retrying' && reading.nextAttemptAt) retryAt = Math.min(retryAt, retryInstant(reading.nextAttemptAt, now));
  }
  return Math.min(next ?? Number.POSITIVE_INFINITY, retryAt);
}

/** A stored retry time; one that is not a time is taken as now (owesPost would have owed it already). */
function retryInstant(text: string, now: number): number {
  const at = Date.parse(text);
  return Number.isFinite(at) ? at : now;
}

/**
 * Where a delivery's final record moves the index: after a post (or a refusal) of `slot`, the next post instant
 * after it, or the retry's instant if that comes first. Null when the subscription is disabled.
 */
export function dueAfterDelivery(subscription: Subscription, slot: Slot, retryAt?: string): number | null {
  const next = nextDueAt(subscription, slot.postAt.getTime());
  if (next === null) return null;
  return retryAt === undefined ? next : Math.min(next, retryInstant(retryAt, slot.postAt.getTime()));
}

/**
 * What the rules above read of a subscription, as a key: subscriptions with the same key have the same index
 * instants, so a pass over many (building the index) works each key out once. Fields that only say where and how to
 * post are left out; any other field, including ones added later, stays in the key.
 */
export function scheduleKey(subscription: Subscription): string {
  const { guildId, channelId, channelName, roleId, createdBy, createdAt, enabledAt, status, style, openThread, publish, disabledNoticeAt, ...rule } = subscription;
  return JSON.stringify({ ...rule, state: status.state });
}
