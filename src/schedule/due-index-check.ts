import type { IsoDate } from '../wotd/dates.ts';
import { deliverableSlots } from './due.ts';
import { settledDueAt } from './next-due.ts';
import { LOOK_NOW } from './subscription-store/due-entries.ts';
import type { SubscriptionStore } from './subscription-store.ts';
import type { DeliveryReading, Subscription } from './subscription.ts';

/**
 * Checks that the due-time index and the subscriptions agree, and with `repair` makes them agree. What it finds:
 * - missing: a subscription with no entry (it would never be read, so never posted);
 * - late: an entry whose instant is later than the subscription's next owed post, worked out from its delivery
 *   records as a tick would (that post would not go out), or a subscription that is not disabled with no instant;
 * - wrong state: an entry counted under another state than its subscription's (the /metrics counts);
 * - orphaned: an entry for a channel with no subscription (read by the ticks for nothing).
 * An entry earlier than needed is not a fault: the next tick moves it on.
 *
 * Repairs never move an entry later: a missing, late or miscounted one is made due at once (the next tick places
 * it), and an orphaned one is dropped only after its subscription is read again under its server's lock. So it
 * may run beside a running bot.
 */

export interface DueIndexReport {
  subscriptions: number;
  entries: number;
  missing: string[];
  late: string[];
  wrongState: string[];
  orphaned: string[];
  repaired: boolean;
}

/** How many channel ids of each kind a report keeps (the counts are exact). */
const LISTED = 1_000;

export async function checkDueIndex(store: SubscriptionStore, now: Date, { repair = false } = {}): Promise<DueIndexReport & { counts: Record<'missing' | 'late' | 'wrongState' | 'orphaned', number> }> {
  const index = store.dueIndex();
  const counts = { missing: 0, late: 0, wrongState: 0, orphaned: 0 };
  const report: DueIndexReport = { subscriptions: 0, entries: 0, missing: [], late: [], wrongState: [], orphaned: [], repaired: repair };
  const note = (kind: 'missing' | 'late' | 'wrongState' | 'orphaned', channelId: string) => {
    counts[kind] += 1;
    if (report[kind].length < LISTED) report[kind].push(channelId);
  };
  const at = now.getTime();
  const subscribed = new Set<string>();
  for await (const page of store.pages()) {
    report.subscriptions += page.length;
    const entries = await index.get(page.map((subscription) => subscription.channelId));
    const records = await recordsOf(store, page, now);
    const fixes: Subscription[] = [];
    for (const subscription of page) {
      const { channelId } = subscription;
      subscribed.add(channelId);
      const entry = entries.get(channelId);
      if (!entry) {
        note('missing', channelId);
        fixes.push(subscription);
        continue;
      }
      let fault = false;
      if (entry.state !== subscription.status.state) {
        note('wrongState', channelId);
        fault = true;
      }
      const owed = settledDueAt(subscription, (day) => records.get(`${channelId}:${day}`) ?? null, at);
      if (owed !== null && (entry.dueAt === null || entry.dueAt > owed)) {
        note('late', channelId);
        fault = true;
      }
      if (fault) fixes.push(subscription);
    }
    if (repair && fixes.length > 0) {
      await index.put(fixes.map(({ channelId, status }) => ({ channelId, dueAt: status.state === 'disabled' ? null : LOOK_NOW, state: status.state })));
    }
  }
  for await (const page of index.entries(500)) {
    report.entries += page.length;
    for (const { channelId } of page) {
      if (subscribed.has(channelId)) continue;
      // Subscribed since the pass above, or not at all: read again.
      if (await store.get(channelId)) continue;
      note('orphaned', channelId);
      if (repair) await store.reindex(channelId);
    }
  }
  return { ...report, counts };
}

/** The delivery records of the days a page's subscriptions could post now, by `<channelId>:<day>`. */
async function recordsOf(store: SubscriptionStore, page: readonly Subscription[], now: Date): Promise<Map<string, DeliveryReading | null>> {
  const byDay = new Map<IsoDate, string[]>();
  for (const subscription of page) {
    for (const slot of deliverableSlots(subscription, now)) {
      const ids = byDay.get(slot.serviceDay) ?? [];
      ids.push(subscription.channelId);
      byDay.set(slot.serviceDay, ids);
    }
  }
  const records = new Map<string, DeliveryReading | null>();
  for (const [day, ids] of byDay) {
    const read = await store.getDeliveries(ids, day);
    ids.forEach((id, i) => records.set(`${id}:${day}`, read[i] ?? null));
  }
  return records;
}
