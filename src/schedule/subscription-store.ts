import type Keyv from 'keyv';
import { DEFAULT_REDIS_KEY_PREFIX } from '../config.ts';
import type { Logger } from '../logger.ts';
import { scanNamespace, type StoredEntry } from '../store-scan.ts';
import { isRedisStore, openStore, type StoreLocation } from '../store.ts';
import type { IsoDate } from '../wotd/dates.ts';
import { RedisLock } from './redis-lock.ts';
import { InProcessLock, type StoreLock } from './store-lock.ts';
import { countsTowardLimit, deliverySchema, subscriptionSchema, type DeliveryRecord, type Subscription } from './subscription.ts';

/**
 * Subscriptions and delivery records in their own Keyv namespaces.
 *
 * Keys in the `subscriptions` namespace:
 *   sub:<channelId>    one subscription (a channel has at most one)
 *   guild:<guildId>    the channel ids subscribed in that server
 *   index:<n>          one of INDEX_SHARDS lists that together hold every subscribed channel id
 * so listing everything reads the index shards and the subscriptions they name, and nothing else.
 * The `deliveries` namespace holds one record per channel and service day: <channelId>:<day>.
 *
 * Keyv has no transactions: every change is a read-modify-write done under a lock (see store-lock.ts),
 * per server for a subscription and its server's list, then per shard for the index. Locks are always taken
 * in that order. On SQLite or memory they are in-process, shared by every store opened on the same URL in this
 * process; on Redis they are Redis locks, so several processes can change the same store.
 */

const INDEX_SHARDS = 32;
const READ_BATCH = 500;

export type UpsertResult =
  | { kind: 'created' | 'updated'; subscription: Subscription; previous: Subscription | null }
  | { kind: 'limit_reached'; limit: number; count: number };

function shardOf(channelId: string): number {
  let hash = 2166136261;
  for (let i = 0; i < channelId.length; i += 1) hash = Math.imul(hash ^ channelId.charCodeAt(i), 16777619);
  return (hash >>> 0) % INDEX_SHARDS;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** How a record copied in from another store was written: indexed like any other, or as it was (damaged). */
export type RestoreOutcome = 'restored' | 'damaged';

export interface OpenSubscriptionStoreOptions {
  /**
   * Failed reads and writes reject instead of reading as empty and being dropped: always on Redis, where a read
   * that fails must not look like "nothing stored" to the write that follows; asked for by migrate-store.
   */
  throwOnErrors?: boolean;
}

export class SubscriptionStore {
  private constructor(
    private readonly subscriptions: Keyv<unknown>,
    private readonly deliveries: Keyv<unknown>,
    private readonly lock: StoreLock,
    private readonly logger?: Logger,
  ) {}

  static async open(
    where: string | StoreLocation,
    logger?: Logger,
    { throwOnErrors }: OpenSubscriptionStoreOptions = {},
  ): Promise<SubscriptionStore> {
    const location = typeof where === 'string' ? { url: where } : where;
    const onRedis = isRedisStore(location);
    const options = { throwOnErrors: throwOnErrors === true || onRedis };
    const opened: Array<Keyv<unknown>> = [];
    try {
      const subscriptions = await openStore<unknown>(location, 'subscriptions', options);
      opened.push(subscriptions);
      const deliveries = await openStore<unknown>(location, 'deliveries', options);
      opened.push(deliveries);
      const lock = onRedis
        ? await RedisLock.open(location.url, `${location.keyPrefix ?? DEFAULT_REDIS_KEY_PREFIX}subscriptions:`, logger)
        : // A memory:// store is private to this instance, so its locks must be too.
          new InProcessLock(location.url.startsWith('memory:') ? `${location.url}#${Math.random()}` : location.url);
      return new SubscriptionStore(subscriptions, deliveries, lock, logger);
    } catch (error) {
      await Promise.all(opened.map((keyv) => keyv.disconnect()));
      throw error;
    }
  }

  private closed: Promise<void> | null = null;

  close(): Promise<void> {
    this.closed ??= Promise.all([this.subscriptions.disconnect(), this.deliveries.disconnect(), this.lock.close()]).then(() => undefined);
    return this.closed;
  }

  async get(channelId: string): Promise<Subscription | null> {
    return this.parseSubscription(`sub:${channelId}`, await this.subscriptions.get(`sub:${channelId}`));
  }

  async listGuild(guildId: string): Promise<Subscription[]> {
    return this.readMany(await this.readIds(`guild:${guildId}`));
  }

  async listAll(): Promise<Subscription[]> {
    const shards = await this.subscriptions.getMany(Array.from({ length: INDEX_SHARDS }, (_, n) => `index:${n}`));
    const ids = shards.flatMap((shard) => (isStringArray(shard) ? shard : []));
    return this.readMany(ids);
  }

  /**
   * Creates or replaces the channel's subscription. `build` gets what is stored now (or null) and returns the new
   * record; a new one is refused when the server already has `limit` that count toward it (see countsTowardLimit).
   */
  async upsert(
    guildId: string,
    channelId: string,
    limit: number,
    build: (existing: Subscription | null) => Subscription,
  ): Promise<UpsertResult> {
    return this.lock.withLock(`guild:${guildId}`, async () => {
      const existing = await this.get(channelId);
      const ids = await this.readIds(`guild:${guildId}`);
      if (!existing && !ids.includes(channelId) && ids.length >= limit) {
        const counted = (await this.readMany(ids)).filter(countsTowardLimit).length;
        if (counted >= limit) return { kind: 'limit_reached', limit, count: counted } as const;
      }
      const subscription = build(existing);
      await this.subscriptions.set(`sub:${channelId}`, subscription);
      if (!ids.includes(channelId)) await this.subscriptions.set(`guild:${guildId}`, [...ids, channelId]);
      await this.addToIndex(channelId);
      return { kind: existing ? 'updated' : 'created', subscription, previous: existing } as const;
    });
  }

  /**
   * Creates or replaces many subscriptions at once, with no per-server limit: for seeding a large store (bench:fanout
   * writes 100,000 this way). Each server's list and each index shard is read and written once per call instead of
   * once per subscription, under the same locks as upsert.
   */
  async putMany(subscriptions: readonly Subscription[]): Promise<void> {
    const byGuild = new Map<string, Subscription[]>();
    for (const subscription of subscriptions) {
      const group = byGuild.get(subscription.guildId) ?? [];
      group.push(subscription);
      byGuild.set(subscription.guildId, group);
    }
    for (const [guildId, group] of byGuild) {
      await this.lock.withLock(`guild:${guildId}`, async () => {
        await this.subscriptions.setMany(group.map((subscription) => ({ key: `sub:${subscription.channelId}`, value: subscription })));
        const ids = new Set(await this.readIds(`guild:${guildId}`));
        const before = ids.size;
        for (const { channelId } of group) ids.add(channelId);
        if (ids.size > before) await this.subscriptions.set(`guild:${guildId}`, [...ids]);
      });
    }
    const byShard = new Map<number, string[]>();
    for (const { channelId } of subscriptions) {
      const shard = shardOf(channelId);
      const group = byShard.get(shard) ?? [];
      group.push(channelId);
      byShard.set(shard, group);
    }
    for (const [shard, channelIds] of byShard) {
      const key = `index:${shard}`;
      await this.lock.withLock(key, async () => {
        const ids = new Set(await this.readIds(key));
        const before = ids.size;
        for (const id of channelIds) ids.add(id);
        if (ids.size > before) await this.subscriptions.set(key, [...ids]);
      });
    }
  }

  /** Removes a subscription on an admin's request; returns what was removed. Its delivery records stay. */
  async remove(guildId: string, channelId: string): Promise<Subscription | null> {
    return this.lock.withLock(`guild:${guildId}`, async () => {
      const existing = await this.get(channelId);
      if (existing && existing.guildId !== guildId) return null;
      const ids = await this.readIds(`guild:${guildId}`);
      if (ids.includes(channelId)) await this.subscriptions.set(`guild:${guildId}`, ids.filter((id) => id !== channelId));
      await this.subscriptions.delete(`sub:${channelId}`);
      await this.removeFromIndex(channelId);
      return existing;
    });
  }

  /** Read-modify-write of one subscription; `change` returns the new record, or null to leave it as it is. */
  async update(channelId: string, change: (current: Subscription) => Subscription | null): Promise<Subscription | null> {
    const seen = await this.get(channelId);
    if (!seen) return null;
    return this.lock.withLock(`guild:${seen.guildId}`, async () => {
      const current = await this.get(channelId);
      if (!current) return null;
      const next = change(current);
      if (!next) return current;
      await this.subscriptions.set(`sub:${channelId}`, next);
      return next;
    });
  }

  /** Every subscription of a server, changed together (e.g. disabled when the bot leaves it). */
  async updateGuild(guildId: string, change: (current: Subscription) => Subscription | null): Promise<Subscription[]> {
    return this.lock.withLock(`guild:${guildId}`, async () => {
      const changed: Subscription[] = [];
      for (const current of await this.listGuild(guildId)) {
        const next = change(current);
        if (!next) continue;
        await this.subscriptions.set(`sub:${current.channelId}`, next);
        changed.push(next);
      }
      return changed;
    });
  }

  async getDelivery(channelId: string, day: IsoDate): Promise<DeliveryRecord | null> {
    const key = `${channelId}:${day}`;
    return this.parseDelivery(key, await this.deliveries.get(key));
  }

  /** Delivery records for many channels on one day, in the same order (null where there is none). */
  async getDeliveries(channelIds: string[], day: IsoDate): Promise<Array<DeliveryRecord | null>> {
    const results: Array<DeliveryRecord | null> = [];
    for (let start = 0; start < channelIds.length; start += READ_BATCH) {
      const keys = channelIds.slice(start, start + READ_BATCH).map((id) => `${id}:${day}`);
      const values = await this.deliveries.getMany(keys);
      values.forEach((value, i) => results.push(this.parseDelivery(keys[i] ?? '', value)));
    }
    return results;
  }

  async putDelivery(record: DeliveryRecord): Promise<void> {
    await this.deliveries.set(`${record.channelId}:${record.day}`, record);
  }

  /** Every subscription record, valid or damaged, as [key, value] pages: for copying the store. */
  async *subscriptionRecords(): AsyncGenerator<StoredEntry[]> {
    for await (const page of scanNamespace(this.subscriptions)) {
      const records = page.filter(([key]) => key.startsWith('sub:'));
      if (records.length > 0) yield records;
    }
  }

  /** Every delivery record, valid or damaged, as [key, value] pages: for copying the store. */
  deliveryRecords(): AsyncGenerator<StoredEntry[]> {
    return scanNamespace(this.deliveries);
  }

  /**
   * Writes a subscription record read from another store under the same key, replacing what is there. A valid
   * one joins its server's list and the index as upsert would, with no limit; a damaged one is written as it
   * was and listed nowhere, as in the store it came from. Doing it twice changes nothing.
   */
  async restoreSubscription(key: string, value: unknown): Promise<RestoreOutcome> {
    const parsed = subscriptionSchema.safeParse(value);
    if (!parsed.success || key !== `sub:${parsed.data.channelId}`) {
      await this.subscriptions.set(key, value);
      return 'damaged';
    }
    const { guildId, channelId } = parsed.data;
    await this.lock.withLock(`guild:${guildId}`, async () => {
      await this.subscriptions.set(key, value);
      const ids = await this.readIds(`guild:${guildId}`);
      if (!ids.includes(channelId)) await this.subscriptions.set(`guild:${guildId}`, [...ids, channelId]);
      await this.addToIndex(channelId);
    });
    return 'restored';
  }

  /** Writes a delivery record read from another store under the same key, replacing what is there. */
  async restoreDelivery(key: string, value: unknown): Promise<RestoreOutcome> {
    await this.deliveries.set(key, value);
    const parsed = deliverySchema.safeParse(value);
    return parsed.success && key === `${parsed.data.channelId}:${parsed.data.day}` ? 'restored' : 'damaged';
  }

  private async addToIndex(channelId: string): Promise<void> {
    const key = `index:${shardOf(channelId)}`;
    await this.lock.withLock(key, async () => {
      const shard = await this.readIds(key);
      if (!shard.includes(channelId)) await this.subscriptions.set(key, [...shard, channelId]);
    });
  }

  private async removeFromIndex(channelId: string): Promise<void> {
    const key = `index:${shardOf(channelId)}`;
    await this.lock.withLock(key, async () => {
      const shard = await this.readIds(key);
      if (shard.includes(channelId)) await this.subscriptions.set(key, shard.filter((id) => id !== channelId));
    });
  }

  private async readIds(key: string): Promise<string[]> {
    const value = await this.subscriptions.get(key);
    return isStringArray(value) ? value : [];
  }

  private async readMany(channelIds: string[]): Promise<Subscription[]> {
    const found: Subscription[] = [];
    for (let start = 0; start < channelIds.length; start += READ_BATCH) {
      const keys = channelIds.slice(start, start + READ_BATCH).map((id) => `sub:${id}`);
      const values = await this.subscriptions.getMany(keys);
      values.forEach((value, i) => {
        const subscription = this.parseSubscription(keys[i] ?? '', value);
        if (subscription) found.push(subscription);
      });
    }
    return found;
  }

  private parseSubscription(key: string, value: unknown): Subscription | null {
    if (value === undefined || value === null) return null;
    const parsed = subscriptionSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    this.logger?.error({ key, issue: parsed.error.issues[0]?.message }, 'stored subscription is damaged; left untouched and skipped');
    return null;
  }

  private parseDelivery(key: string, value: unknown): DeliveryRecord | null {
    if (value === undefined || value === null) return null;
    const parsed = deliverySchema.safeParse(value);
    if (parsed.success) return parsed.data;
    this.logger?.error({ key, issue: parsed.error.issues[0]?.message }, 'stored delivery record is damaged; treated as missing');
    return null;
  }
}
