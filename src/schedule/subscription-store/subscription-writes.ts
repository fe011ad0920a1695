import type Keyv from 'keyv';
import type { StoreLock } from '../../store/lock.ts';
import { utcDateOf } from '../../wotd/dates.ts';
import { countsTowardLimit, subscriptionSchema, type Subscription } from '../subscription.ts';
import type { KeptChannelSettings } from './kept-channel-settings.ts';
import type { DmNoticeList } from './dm-notice-list.ts';
import type { DueEntries } from './due-entries.ts';
import type { PruningRecords } from './pruning-records.ts';
import { readIds, type RecordNamespaces, type RestoreOutcome } from './record-namespaces.ts';
import type { SubscriptionIndex } from './subscription-index.ts';
import type { SubscriptionReader } from './subscription-reads.ts';

export type UpsertResult =
  | { kind: 'created' | 'updated'; subscription: Subscription; previous: Subscription | null }
  | { kind: 'limit_reached'; limit: number; count: number };

/**
 * Every change of a `sub:` record with its server's `guild:<guildId>` list and the index: under the server's lock,
 * then the index shard's (always in that order).
 */
export class SubscriptionWriter {
  private readonly subscriptions: Keyv<unknown>;
  private readonly lock: StoreLock;
  private readonly now: () => Date;

  constructor(
    { subscriptions, lock, now }: RecordNamespaces,
    private readonly reader: SubscriptionReader,
    private readonly index: SubscriptionIndex,
    private readonly dmNotices: DmNoticeList,
    private readonly pruning: PruningRecords,
    private readonly due: DueEntries,
    private readonly channelSettings: KeptChannelSettings,
  ) {
    this.subscriptions = subscriptions;
    this.lock = lock;
    this.now = now;
  }

  async upsert(
    guildId: string,
    channelId: string,
    limit: number,
    build: (existing: Subscription | null) => Subscription,
  ): Promise<UpsertResult> {
    return this.lock.withLock(`guild:${guildId}`, async () => {
      const existing = await this.reader.get(channelId);
      const ids = await readIds(this.subscriptions, `guild:${guildId}`);
      if (!existing && !ids.includes(channelId) && ids.length >= limit) {
        const counted = (await this.reader.readMany(ids)).filter(countsTowardLimit).length;
        if (counted >= limit) return { kind: 'limit_reached', limit, count: counted } as const;
      }
      const subscription = build(existing);
      await this.write([subscription], existing ? [existing] : []);
      if (!ids.includes(channelId)) await this.subscriptions.set(`guild:${guildId}`, [...ids, channelId]);
      await this.index.add(channelId);
      return { kind: existing ? 'updated' : 'created', subscription, previous: existing } as const;
    });
  }

  async putMany(subscriptions: readonly Subscription[]): Promise<void> {
    const byGuild = new Map<string, Subscription[]>();
    for (const subscription of subscriptions) {
      const group = byGuild.get(subscription.guildId) ?? [];
      group.push(subscription);
      byGuild.set(subscription.guildId, group);
    }
    for (const [guildId, group] of byGuild) {
      await this.lock.withLock(`guild:${guildId}`, async () => {
        await this.write(group);
        const ids = new Set(await readIds(this.subscriptions, `guild:${guildId}`));
        const before = ids.size;
        for (const { channelId } of group) ids.add(channelId);
        if (ids.size > before) await this.subscriptions.set(`guild:${guildId}`, [...ids]);
      });
    }
    await this.index.addMany(subscriptions.map(({ channelId }) => channelId));
  }

  async remove(guildId: string, channelId: string): Promise<Subscription | null> {
    return this.lock.withLock(`guild:${guildId}`, async () => {
      const existing = await this.reader.get(channelId);
      if (existing && existing.guildId !== guildId) return null;
      const ids = await readIds(this.subscriptions, `guild:${guildId}`);
      if (ids.includes(channelId)) {
        const rest = ids.filter((id) => id !== channelId);
        // A server with no subscription left keeps no empty list behind.
        if (rest.length > 0) await this.subscriptions.set(`guild:${guildId}`, rest);
        else await this.subscriptions.delete(`guild:${guildId}`);
      }
      try {
        await this.subscriptions.delete(`sub:${channelId}`);
      } finally {
        this.channelSettings.forget([channelId]);
      }
      await this.index.remove(channelId);
      await this.due.removed([channelId]);
      await this.dmNotices.forget([channelId]);
      if (existing || ids.includes(channelId)) await this.pruning.retire([channelId], utcDateOf(this.now()));
      return existing;
    });
  }

  async update(channelId: string, change: (current: Subscription) => Subscription | null): Promise<Subscription | null> {
    const seen = await this.reader.get(channelId);
    if (!seen) return null;
    return this.lock.withLock(`guild:${seen.guildId}`, async () => {
      const current = await this.reader.get(channelId);
      if (!current) return null;
      const next = change(current);
      if (!next) return current;
      await this.write([next], [current]);
      return next;
    });
  }

  async updateGuild(guildId: string, change: (current: Subscription) => Subscription | null): Promise<Subscription[]> {
    return this.lock.withLock(`guild:${guildId}`, async () => {
      const changed: Subscription[] = [];
      for (const current of await this.reader.listGuild(guildId)) {
        const next = change(current);
        if (!next) continue;
        await this.write([next], [current]);
        changed.push(next);
      }
      return changed;
    });
  }

  async reindex(channelId: string): Promise<void> {
    const seen = await this.reader.get(channelId);
    if (!seen) {
      await this.due.removed([channelId]);
      return;
    }
    await this.lock.withLock(`guild:${seen.guildId}`, async () => {
      const current = await this.reader.get(channelId);
      if (current) await this.due.settle(current);
      else await this.due.removed([channelId]);
    });
  }

  async restore(key: string, value: unknown): Promise<RestoreOutcome> {
    const parsed = subscriptionSchema.safeParse(value);
    if (!parsed.success || key !== `sub:${parsed.data.channelId}`) {
      try {
        await this.subscriptions.set(key, value);
      } finally {
        if (key.startsWith('sub:')) this.channelSettings.forget([key.slice('sub:'.length)]);
      }
      return 'damaged';
    }
    const { guildId, channelId } = parsed.data;
    await this.lock.withLock(`guild:${guildId}`, async () => {
      await this.dmNotices.note([parsed.data]);
      await this.due.written([parsed.data]);
      try {
        await this.subscriptions.set(key, value);
      } finally {
        this.channelSettings.forget([channelId]);
      }
      const ids = await readIds(this.subscriptions, `guild:${guildId}`);
      if (!ids.includes(channelId)) await this.subscriptions.set(`guild:${guildId}`, [...ids, channelId]);
      await this.index.add(channelId);
    });
    return 'restored';
  }

  /**
   * Writes subscription records, first adding any member one of them owes the "switched off" notice to `dm-notices`
   * (see DmNoticeList) and giving each its due-time entry (see DueEntries; `previous`: the records they replace).
   * Every change of a subscription goes through here, so none can miss the list or the index; only restore, which
   * writes another store's value as it was, does both itself.
   */
  private async write(subscriptions: readonly Subscription[], previous: readonly Subscription[] = []): Promise<void> {
    await this.dmNotices.note(subscriptions);
    await this.due.written(subscriptions, new Map(previous.map((subscription) => [subscription.channelId, subscription])));
    const [only] = subscriptions;
    try {
      if (subscriptions.length === 1 && only) await this.subscriptions.set(`sub:${only.channelId}`, only);
      else await this.subscriptions.setMany(subscriptions.map((subscription) => ({ key: `sub:${subscription.channelId}`, value: subscription })));
    } finally {
      this.channelSettings.forget(subscriptions.map((subscription) => subscription.channelId));
    }
  }
}
