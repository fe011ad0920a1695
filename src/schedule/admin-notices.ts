import type { Logger } from '../config/logger.ts';
import type { SubscriptionStore } from './subscription-store.ts';
import { dmUserOf, type Subscription, type SubscriptionStatus } from './subscription.ts';
import type { StatusNotice } from './status-notice.ts';

/**
 * Never stop silently: when a channel's subscription becomes failing or disabled, or a failing one recovers, the
 * member who last configured it is told (by DM, else in the notice channel the subscription names), once per change
 * of state.
 *
 * The change and the notice it owes are written together, in the same locked read-modify-write (`noticeOwed`), so
 * only the process that made the change owes it, cluster-wide; that process then takes the notice off the record
 * (again under the lock) and sends it. A notice taken is never sent twice; one whose sender dies between taking and
 * sending is lost, and the state still shows in /wotd-subscriptions.
 */

/** Where a notice went. */
export type NoticeRoute = 'dm' | 'channel';

export interface StatusNotifier {
  /** Sends the notice to whoever `subscription` names; rejects when it reached nobody. */
  notify(subscription: Subscription, notice: StatusNotice): Promise<NoticeRoute>;
}

/** The member a subscription's notices go to: the one who last configured it (older records: its creator). */
export function noticeRecipient(subscription: Subscription): string | null {
  const who = subscription.configuredBy ?? subscription.createdBy;
  return who === '' ? null : who;
}

/**
 * The notice a change from `before` to `after` owes, or null: a change of state of a channel's subscription
 * (another failed day of a failing one is not a change). A DM subscription's owner is told at their next command
 * instead (dm-notice-list.ts).
 */
export function noticeFor(subscription: Subscription, before: SubscriptionStatus, after: SubscriptionStatus, at: string): StatusNotice | null {
  if (dmUserOf(subscription.channelId) !== null || before.state === after.state) return null;
  if (after.state === 'active') return before.state === 'failing' ? { kind: 'recovered', at } : null;
  return {
    kind: after.state,
    reason: after.reason,
    ...(after.state === 'disabled' && after.channelGone === true ? { channelGone: true } : {}),
    ...(after.state === 'disabled' && after.failedDays !== undefined ? { failedDays: after.failedDays } : {}),
    at,
  };
}

/** `current` with the notice its change owes, when the fan-out has a notifier to send it. */
export function withNotice(current: Subscription, next: Subscription, at: string, notifying: boolean): Subscription {
  const notice = notifying ? noticeFor(current, current.status, next.status, at) : null;
  return notice ? { ...next, noticeOwed: notice } : next;
}

/**
 * Takes the notice a subscription owes off its record and sends it. Every outcome is logged; one that reached
 * nobody is an error for the caller's counters (`false`).
 */
export async function sendOwedNotice(store: SubscriptionStore, notifier: StatusNotifier, channelId: string, logger: Logger): Promise<boolean> {
  let taken: { subscription: Subscription; notice: StatusNotice } | null = null;
  await store.update(channelId, (current) => {
    if (!current.noticeOwed) return null;
    const { noticeOwed, ...rest } = current;
    taken = { subscription: rest, notice: noticeOwed };
    return rest;
  });
  if (!taken) return true;
  const { subscription, notice } = taken as { subscription: Subscription; notice: StatusNotice };
  try {
    const route = await notifier.notify(subscription, notice);
    logger.info({ channelId, kind: notice.kind, route }, 'told the admin about the daily post\'s new state');
    return true;
  } catch (error) {
    logger.error({ channelId, kind: notice.kind, err: error }, 'could not tell the admin about the daily post\'s new state, by DM or in a notice channel');
    return false;
  }
}
