import { DEFAULT_DELIVERY_RETENTION_DAYS, MIN_DELIVERY_RETENTION_DAYS } from '../config/settings.ts';
import { addDays, parseIsoDate, type IsoDate } from '../wotd/dates.ts';
import type { SubscriptionStore } from './subscription-store.ts';

/**
 * How long delivery records are kept, and how they are pruned without scanning the store.
 *
 * A record (`<channelId>:<day>`) is needed only around its day: to post once, to retry, and for
 * /wotd-subscriptions' "last post". Records of service days more than `retentionDays` before today (UTC) are
 * deleted. Once per day the scheduler calls `pruneDeliveries`, which deletes, for every day between the last pruned
 * day and the new cut-off (usually one day), the records of every channel that may have one: those in the index
 * (subscribed, failing or disabled) and those listed under `retired:<day>` (unsubscribed that day or later). So a
 * pass reads a few keys per channel and day, never the whole store.
 *
 * The first pass on a store (or the first after migrate-store copied records in, or after the bot was stopped
 * for longer than MAX_DAYS_PER_PASS) scans every record's key once instead: it deletes the old ones and lists
 * channels that have records but no subscription under `retired:`, so the daily passes find them from then on.
 */

// Defined with the setting that reads them, so the config imports nothing above it.
export { DEFAULT_DELIVERY_RETENTION_DAYS, MIN_DELIVERY_RETENTION_DAYS };
/** A longer gap is caught up with one scan of all keys instead of a pass per day. */
const MAX_DAYS_PER_PASS = 14;
const DAY_MS = 86_400_000;

export interface PruneReport {
  /** Every record of this service day and earlier is gone. */
  through: IsoDate;
  /** Records deleted. */
  deleted: number;
  /** The pass scanned every key (first pass, or a long gap) rather than going day by day. */
  scanned: boolean;
}

/** A delivery record's key split into channel and day; null for a key that is not one. */
export function parseDeliveryKey(key: string): { channelId: string; day: IsoDate } | null {
  const colon = key.lastIndexOf(':');
  if (colon <= 0) return null;
  const day = parseIsoDate(key.slice(colon + 1));
  return day === null ? null : { channelId: key.slice(0, colon), day };
}

function daysBetween(from: IsoDate, to: IsoDate): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

/** `from` to `to`, both included; empty when `to` is before `from`. */
function dayRange(from: IsoDate, to: IsoDate): IsoDate[] {
  const days: IsoDate[] = [];
  for (let day = from; day <= to; day = addDays(day, 1)) days.push(day);
  return days;
}

/** The newest service day whose records are deleted when today is `today`. */
export function pruneCutoff(today: IsoDate, retentionDays: number): IsoDate {
  return addDays(today, -(retentionDays + 1));
}

/** Deletes the delivery records older than the retention; null when the store was already pruned through the cut-off. */
export async function pruneDeliveries(store: SubscriptionStore, today: IsoDate, retentionDays: number): Promise<PruneReport | null> {
  if (!Number.isSafeInteger(retentionDays) || retentionDays < MIN_DELIVERY_RETENTION_DAYS) {
    throw new RangeError(`the delivery retention must be a whole number of days, at least ${MIN_DELIVERY_RETENTION_DAYS}`);
  }
  const through = pruneCutoff(today, retentionDays);
  const mark = await store.deliveryPruneMark();
  if (mark !== null && mark >= through) return null;
  const deleted =
    mark === null || daysBetween(mark, through) > MAX_DAYS_PER_PASS
      ? await pruneByScan(store, through)
      : await pruneByDay(store, mark, through, today);
  await store.setDeliveryPruneMark(through);
  return { through, deleted, scanned: mark === null || daysBetween(mark, through) > MAX_DAYS_PER_PASS };
}

async function pruneByDay(store: SubscriptionStore, mark: IsoDate, through: IsoDate, today: IsoDate): Promise<number> {
  // A channel retired on day R has no record after R, so lists from the last pass's day on cover every record left.
  const retiredDays = dayRange(mark, addDays(today, 1));
  const retired = await store.retiredOn(retiredDays);
  const days = dayRange(addDays(mark, 1), through);
  let deleted = 0;
  // A part of the index at a time: at 1,000,000 subscriptions, every id and its keys at once took about 185 MB,
  // which the process kept. A channel both indexed and retired is looked up twice; its records are deleted once.
  for await (const channels of store.indexedChannelIdPages()) {
    for (const day of days) deleted += await store.deleteDeliveries(channels, day);
  }
  for (const channels of retired) {
    for (const day of days) deleted += await store.deleteDeliveries(channels, day);
  }
  // Every record of a channel retired before the cut-off is gone now, so its list is no longer needed.
  await store.forgetRetired(retiredDays.filter((day) => day < through));
  return deleted;
}

async function pruneByScan(store: SubscriptionStore, through: IsoDate): Promise<number> {
  const indexed = new Set(await store.indexedChannelIds());
  // Channels with records still kept but no subscription, with their newest record's day.
  const unlisted = new Map<string, IsoDate>();
  let deleted = 0;
  for await (const keys of store.deliveryKeys()) {
    const old: string[] = [];
    for (const key of keys) {
      const parsed = parseDeliveryKey(key);
      // A key that is not a delivery record's is left alone: nothing stored is thrown away unread.
      if (!parsed) continue;
      if (parsed.day <= through) old.push(key);
      else if (!indexed.has(parsed.channelId)) {
        const newest = unlisted.get(parsed.channelId);
        if (newest === undefined || parsed.day > newest) unlisted.set(parsed.channelId, parsed.day);
      }
    }
    deleted += await store.deleteDeliveryKeys(old);
  }
  const byDay = new Map<IsoDate, string[]>();
  for (const [channelId, day] of unlisted) {
    const group = byDay.get(day);
    if (group) group.push(channelId);
    else byDay.set(day, [channelId]);
  }
  for (const [day, channelIds] of byDay) await store.retire(channelIds, day);
  await store.forgetRetired((await store.retiredDays()).filter((day) => day < through));
  return deleted;
}
