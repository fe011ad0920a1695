import type Keyv from 'keyv';
import { scanNamespaceKeys } from '../../store/scan.ts';
import type { StoreLock } from '../../store/lock.ts';
import { parseIsoDate, type IsoDate } from '../../wotd/dates.ts';
import { isStringArray, readIds } from './record-namespaces.ts';

/**
 * What the pruning of delivery records keeps in the `subscriptions` namespace (the policy is in
 * delivery-retention.ts; these only read and write keys):
 *   deliveries-pruned  the newest service day whose delivery records have all been pruned
 *   retired:<day>      channels whose subscription was removed that (UTC) day, kept until their records are pruned
 */
const PRUNE_MARK_KEY = 'deliveries-pruned';

export class PruningRecords {
  constructor(
    private readonly subscriptions: Keyv<unknown>,
    private readonly lock: StoreLock,
  ) {}

  async pruneMark(): Promise<IsoDate | null> {
    const value = await this.subscriptions.get(PRUNE_MARK_KEY);
    return typeof value === 'string' ? parseIsoDate(value) : null;
  }

  async setPruneMark(day: IsoDate | null): Promise<void> {
    if (day === null) await this.subscriptions.delete(PRUNE_MARK_KEY);
    else await this.subscriptions.set(PRUNE_MARK_KEY, day);
  }

  async retire(channelIds: string[], day: IsoDate): Promise<void> {
    if (channelIds.length === 0) return;
    const key = `retired:${day}`;
    await this.lock.withLock(key, async () => {
      const listed = await readIds(this.subscriptions, key);
      const added = channelIds.filter((id) => !listed.includes(id));
      if (added.length > 0) await this.subscriptions.set(key, [...listed, ...added]);
    });
  }

  async unretire(channelId: string, days: IsoDate[]): Promise<void> {
    const lists = await this.retiredOn(days);
    for (const [i, day] of days.entries()) {
      if (!lists[i]?.includes(channelId)) continue;
      const key = `retired:${day}`;
      await this.lock.withLock(key, async () => {
        const rest = (await readIds(this.subscriptions, key)).filter((id) => id !== channelId);
        if (rest.length > 0) await this.subscriptions.set(key, rest);
        else await this.subscriptions.delete(key);
      });
    }
  }

  async retiredOn(days: IsoDate[]): Promise<string[][]> {
    if (days.length === 0) return [];
    const lists = await this.subscriptions.getMany(days.map((day) => `retired:${day}`));
    return lists.map((list) => (isStringArray(list) ? list : []));
  }

  async retiredDays(): Promise<IsoDate[]> {
    const days: IsoDate[] = [];
    for await (const keys of scanNamespaceKeys(this.subscriptions)) {
      for (const key of keys) {
        const day = key.startsWith('retired:') ? parseIsoDate(key.slice('retired:'.length)) : null;
        if (day !== null) days.push(day);
      }
    }
    return days;
  }

  async forgetRetired(days: IsoDate[]): Promise<void> {
    if (days.length > 0) await this.subscriptions.deleteMany(days.map((day) => `retired:${day}`));
  }
}
