import type { Logger } from '../config/logger.ts';
import type { DueEntry, DueMove } from '../store/due-index.ts';
import { LOOK_NOW } from './subscription-store/due-entries.ts';
import type { SubscriptionStore } from './subscription-store.ts';

/**
 * Building the due-time index of a store written before it existed, and again when the runtime's time-zone rules
 * change (a new tzdata can move a post instant earlier: an instant worked out with the old rules could then be
 * late). The index records what it was built for; opening the daily posts calls this before the scheduler starts.
 *
 * Every subscription's entry is made due at once (LOOK_NOW), as a change of the subscription would: the first tick
 * reads each one with its delivery records and places it exactly, so a post already sent today is not sent again
 * and one still owed goes out. Entries are only created where missing, or moved earlier (compare-and-set), so a
 * write made meanwhile (a subscription change, a delivery, another member's build) is never undone. A build cut
 * short leaves its mark unset, and the next start carries on: what was written stays, and is not written again.
 */

/** What an index is built for: the rules' version and the runtime's time-zone data. */
export function dueIndexMark(): string {
  return `rules=1 tz=${process.versions.tz ?? 'unknown'}`;
}

export interface BuildReport {
  subscriptions: number;
  created: number;
  madeDue: number;
}

/**
 * Builds (or rebuilds) the index unless it is already built for these rules; null when there was nothing to do.
 * `force` rebuilds it whatever it was built for, saying why: the wall clock went back, so instants placed by the
 * later clock may now be later than a post the rules owe.
 */
export async function ensureDueIndex(store: SubscriptionStore, logger: Logger, force?: string): Promise<BuildReport | null> {
  const index = store.dueIndex();
  const mark = dueIndexMark();
  const was = await index.builtFor();
  if (was === mark && force === undefined) return null;
  let total = 0;
  for await (const ids of store.indexedChannelIdPages()) total += ids.length;
  const reason = force ?? (was === null ? 'first start on this store since the index exists' : `built for ${was}, the runtime has ${mark}`);
  logger.info({ subscriptions: total, reason }, 'building the due-time index of the daily posts');
  const report: BuildReport = { subscriptions: 0, created: 0, madeDue: 0 };
  const logEvery = Math.max(50_000, Math.ceil(total / 10));
  let nextLog = logEvery;
  for await (const page of store.pages()) {
    const existing = await index.get(page.map((subscription) => subscription.channelId));
    const missing: DueEntry[] = [];
    const madeDue: DueMove[] = [];
    for (const { channelId, status } of page) {
      const entry = existing.get(channelId);
      const dueAt = status.state === 'disabled' ? null : LOOK_NOW;
      if (!entry) missing.push({ channelId, dueAt, state: status.state });
      else if (entry.dueAt !== null && entry.dueAt > LOOK_NOW) madeDue.push({ channelId, from: entry.dueAt, to: LOOK_NOW });
    }
    await index.putMissing(missing);
    await index.move(madeDue);
    report.subscriptions += page.length;
    report.created += missing.length;
    report.madeDue += madeDue.length;
    if (report.subscriptions >= nextLog) {
      nextLog += logEvery;
      logger.info({ done: report.subscriptions, of: total }, 'building the due-time index');
    }
  }
  await index.setBuiltFor(mark);
  logger.info(report, 'the due-time index is built');
  return report;
}
