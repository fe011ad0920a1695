import type Keyv from 'keyv';
import { DEFAULT_REDIS_KEY_PREFIX } from '../config/settings.ts';
import type { Logger } from '../config/logger.ts';
import { scanNamespace, scanNamespaceKeys, type StoredEntry } from '../store/scan.ts';
import { isRedisStore, openStore, storeCheck, type StoreLocation } from '../store/open-store.ts';
import type { StoreCheck } from '../store/store-watch.ts';
import { parseIsoDate, utcDateOf, type IsoDate } from '../wotd/dates.ts';
import { RedisLock } from '../store/redis-lock.ts';
import { InProcessLock, type StoreLock } from '../store/lock.ts';
import {
  countsTowardLimit,
  deliverySchema,
  dmTarget,
  dmUserOf,
  owesDmNotice,
  subscriptionSchema,
  type DamagedDelivery,
  type DeliveryReading,
  type DeliveryRecord,
  type Subscription,
} from './subscription.ts';

/**
 * Subscriptions and delivery records in their own Keyv namespaces.
 *
 * Keys in the `subscriptions` namespace:
 *   sub:<channelId>    one subscription (a channel has at most one)
 *   guild:<guildId>    the channel ids subscribed in that server
 *   index:<n>          one of INDEX_SHARDS lists that together hold every subscribed channel id
 *   retired:<day>      channels whose subscription was removed that (UTC) day, kept until their delivery records
 *                      are pruned, so pruning finds them without scanning (see delivery-retention.ts)
 *   deliveries-pruned  the newest service day whose delivery records have all been pruned
 *   dm-notices         members whose DM subscription may owe them a "switched off" notice (see mayOweDmNotice)
 *   removed:<guildId>, removals   servers the bot was removed from, waiting to be erased (see "Erasure" below)
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

/** The key of a channel's delivery record for a service day. */
function deliveryKey(channelId: string, day: string): string {
  return `${channelId}:${day}`;
}

function deliveryKeysOf(channelIds: string[], days: IsoDate[]): string[] {
  return channelIds.flatMap((channelId) => days.map((day) => deliveryKey(channelId, day)));
}

/** A stored value as found: nothing, the value Keyv would give, or bytes that Keyv cannot turn into one. */
type StoredValue = { kind: 'missing' } | { kind: 'value'; value: unknown } | { kind: 'damaged'; issue: string };

/** Undoes Keyv's serialization ({"value": …}) without throwing: unparseable text is reported, not thrown. */
function decodeStored(raw: unknown, deserialize: (text: string) => unknown): StoredValue {
  if (raw === undefined || raw === null) return { kind: 'missing' };
  let data: unknown = raw;
  if (typeof raw === 'string') {
    try {
      data = deserialize(raw);
    } catch (error) {
      return { kind: 'damaged', issue: `not JSON (${error instanceof Error ? error.message : String(error)})` };
    }
  }
  if (typeof data !== 'object' || data === null || !('value' in data)) return { kind: 'damaged', issue: 'not a stored value' };
  const { value } = data as { value: unknown };
  return value === undefined || value === null ? { kind: 'damaged', issue: 'an empty stored value' } : { kind: 'value', value };
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** How a record copied in from another store was written: indexed like any other, or as it was (damaged). */
export type RestoreOutcome = 'restored' | 'damaged';

export interface OpenSubscriptionStoreOptions {
  /**
   * Failed reads and writes reject instead of reading as empty and being dropped (Keyv's default): on by default
   * and always on Redis, since a read that fails must not look like "nothing stored" to the write that follows,
   * and a write that fails must not be reported as done (a full disk, a locked or damaged SQLite file).
   */
  throwOnErrors?: boolean;
  /** The clock that dates a removal (for the pruning of its delivery records). */
  now?: () => Date;
}

const PRUNE_MARK_KEY = 'deliveries-pruned';
const DM_NOTICES_KEY = 'dm-notices';
/** How long a store trusts its copy of `dm-notices` before reading it again (another process may have added to it). */
export const DM_NOTICES_REFRESH_MS = 10_000;

export class SubscriptionStore {
  private constructor(
    private readonly subscriptions: Keyv<unknown>,
    private readonly deliveries: Keyv<unknown>,
    private readonly lock: StoreLock,
    private readonly now: () => Date,
    private readonly logger?: Logger,
  ) {}

  static async open(
    where: string | StoreLocation,
    logger?: Logger,
    { throwOnErrors, now }: OpenSubscriptionStoreOptions = {},
  ): Promise<SubscriptionStore> {
    const location = typeof where === 'string' ? { url: where } : where;
    const onRedis = isRedisStore(location);
    const options = { throwOnErrors: throwOnErrors !== false || onRedis };
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
      return new SubscriptionStore(subscriptions, deliveries, lock, now ?? (() => new Date()), logger);
    } catch (error) {
      await Promise.all(opened.map((keyv) => keyv.disconnect()));
      throw error;
    }
  }

  private closed: Promise<void> | null = null;
  /** This store's copy of `dm-notices` and when it was read (this store's clock, ms); see mayOweDmNotice. */
  private dmNotices: { users: Set<string>; readAt: number } | null = null;
  private dmNoticesReading: Promise<Set<string>> | null = null;

  close(): Promise<void> {
    this.closed ??= Promise.all([this.subscriptions.disconnect(), this.deliveries.disconnect(), this.lock.close()]).then(() => undefined);
    return this.closed;
  }

  /**
   * One read that rejects when the store cannot be read (a health check). It asks the store directly: through Keyv,
   * a failed read on SQLite comes back as "nothing stored".
   */
  async ping(): Promise<void> {
    await this.subscriptions.store.get('health-check');
  }

  /** Each store this one is made of (subscriptions, deliveries, and on Redis its locks), for /healthz and the metrics. */
  storeChecks(): StoreCheck[] {
    return [storeCheck(this.subscriptions), storeCheck(this.deliveries), ...(this.lock.watch ? [this.lock.watch] : [])];
  }

  async get(channelId: string): Promise<Subscription | null> {
    return this.parseSubscription(`sub:${channelId}`, await this.subscriptions.get(`sub:${channelId}`));
  }

  async listGuild(guildId: string): Promise<Subscription[]> {
    return this.readMany(await this.readIds(`guild:${guildId}`));
  }

  async listAll(): Promise<Subscription[]> {
    return this.readMany(await this.indexedChannelIds());
  }

  /** Every subscription, a few hundred at a time: for a pass over all of them that keeps little of each. */
  async *pages(): AsyncGenerator<Subscription[]> {
    const ids = await this.indexedChannelIds();
    for (let start = 0; start < ids.length; start += READ_BATCH) {
      const page = await this.readMany(ids.slice(start, start + READ_BATCH));
      if (page.length > 0) yield page;
    }
  }

  /** Every channel id in the index: each subscription's, damaged ones included. */
  async indexedChannelIds(): Promise<string[]> {
    const shards = await this.subscriptions.getMany(Array.from({ length: INDEX_SHARDS }, (_, n) => `index:${n}`));
    return shards.flatMap((shard) => (isStringArray(shard) ? shard : []));
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
      await this.writeSubscriptions([subscription]);
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
        await this.writeSubscriptions(group);
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

  /**
   * Removes a subscription on an admin's request; returns what was removed. Its delivery records stay until the
   * retention prunes them (so subscribing again the same day does not post that day's word twice): the channel is
   * listed under the day's `retired:` key for that.
   */
  async remove(guildId: string, channelId: string): Promise<Subscription | null> {
    return this.lock.withLock(`guild:${guildId}`, async () => {
      const existing = await this.get(channelId);
      if (existing && existing.guildId !== guildId) return null;
      const ids = await this.readIds(`guild:${guildId}`);
      if (ids.includes(channelId)) {
        const rest = ids.filter((id) => id !== channelId);
        // A server with no subscription left keeps no empty list behind.
        if (rest.length > 0) await this.subscriptions.set(`guild:${guildId}`, rest);
        else await this.subscriptions.delete(`guild:${guildId}`);
      }
      await this.subscriptions.delete(`sub:${channelId}`);
      await this.removeFromIndex(channelId);
      await this.forgetDmNotices([channelId]);
      if (existing || ids.includes(channelId)) await this.retire([channelId], utcDateOf(this.now()));
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
      await this.writeSubscriptions([next]);
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
        await this.writeSubscriptions([next]);
        changed.push(next);
      }
      return changed;
    });
  }

  /**
   * Writes subscription records, first adding any member one of them owes the "switched off" notice to `dm-notices`
   * (see mayOweDmNotice). Every change of a subscription goes through here, so none can miss the list; only
   * restoreSubscription, which writes another store's value as it was, notes it itself.
   */
  private async writeSubscriptions(subscriptions: readonly Subscription[]): Promise<void> {
    await this.noteDmNotices(subscriptions);
    const [only] = subscriptions;
    if (subscriptions.length === 1 && only) await this.subscriptions.set(`sub:${only.channelId}`, only);
    else await this.subscriptions.setMany(subscriptions.map((subscription) => ({ key: `sub:${subscription.channelId}`, value: subscription })));
  }

  /** The channel's delivery record of a day; one stored but unreadable comes back as `damaged` (see DamagedDelivery). */
  async getDelivery(channelId: string, day: IsoDate): Promise<DeliveryReading | null> {
    const [record] = await this.getDeliveries([channelId], day);
    return record ?? null;
  }

  /** Delivery records for many channels on one day, in the same order (null where there is none, `damaged` where unreadable). */
  async getDeliveries(channelIds: string[], day: IsoDate): Promise<Array<DeliveryReading | null>> {
    const results: Array<DeliveryReading | null> = [];
    for (let start = 0; start < channelIds.length; start += READ_BATCH) {
      const batch = channelIds.slice(start, start + READ_BATCH);
      const raws = await this.readRawDeliveries(batch.map((channelId) => deliveryKey(channelId, day)));
      batch.forEach((channelId, i) => results.push(this.readDelivery(channelId, day, raws[i])));
    }
    return results;
  }

  /**
   * Stored delivery values exactly as the store holds them. Keyv's own reads throw on text that is not JSON (failing
   * every channel's read with one bad row) and give "nothing" for the wrong shape, which would read as never sent.
   */
  private async readRawDeliveries(keys: string[]): Promise<unknown[]> {
    const adapter = this.deliveries.store as { get(key: string): Promise<unknown> | unknown; getMany?(keys: string[]): Promise<unknown[]> };
    const full = this.deliveries._getKeyPrefixArray(keys);
    try {
      if (typeof adapter.getMany === 'function') return await adapter.getMany(full);
      return await Promise.all(full.map((key) => adapter.get(key)));
    } catch (error) {
      if (this.deliveries.throwOnErrors) throw error;
      this.logger?.error({ err: error }, 'could not read delivery records; taken as none');
      return [];
    }
  }

  private decodeDelivery(raw: unknown): StoredValue {
    const deserialize = this.deliveries.deserialize ?? ((text: string) => JSON.parse(text) as unknown);
    return decodeStored(raw, (text) => deserialize(text));
  }

  private readDelivery(channelId: string, day: IsoDate, raw: unknown): DeliveryReading | null {
    const key = deliveryKey(channelId, day);
    const stored = this.decodeDelivery(raw);
    if (stored.kind === 'missing') return null;
    if (stored.kind === 'damaged') return this.damagedDelivery(key, channelId, day, stored.issue);
    const parsed = deliverySchema.safeParse(stored.value);
    if (!parsed.success) return this.damagedDelivery(key, channelId, day, parsed.error.issues[0]?.message ?? 'not a delivery record');
    if (parsed.data.channelId !== channelId || parsed.data.day !== day) return this.damagedDelivery(key, channelId, day, 'a record of another channel or day');
    return parsed.data;
  }

  private damagedDelivery(key: string, channelId: string, day: IsoDate, issue: string): DamagedDelivery {
    this.logger?.error({ key, issue }, 'stored delivery record is damaged; its day is confirmed against the channel before posting');
    return { channelId, day, state: 'damaged', issue };
  }

  async putDelivery(record: DeliveryRecord): Promise<void> {
    await this.deliveries.set(deliveryKey(record.channelId, record.day), record);
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
      await this.noteDmNotices([parsed.data]);
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
    return parsed.success && key === deliveryKey(parsed.data.channelId, parsed.data.day) ? 'restored' : 'damaged';
  }

  // Pruning of delivery records (the policy is in delivery-retention.ts; these only read and write keys).

  /** The newest service day whose delivery records have all been pruned; null before the first pruning. */
  async deliveryPruneMark(): Promise<IsoDate | null> {
    const value = await this.subscriptions.get(PRUNE_MARK_KEY);
    return typeof value === 'string' ? parseIsoDate(value) : null;
  }

  /** Null makes the next pruning scan every record once (after records were copied in from elsewhere). */
  async setDeliveryPruneMark(day: IsoDate | null): Promise<void> {
    if (day === null) await this.subscriptions.delete(PRUNE_MARK_KEY);
    else await this.subscriptions.set(PRUNE_MARK_KEY, day);
  }

  /** Adds channels to the `retired:<day>` list: their records are pruned with everyone's until that day is. */
  async retire(channelIds: string[], day: IsoDate): Promise<void> {
    if (channelIds.length === 0) return;
    const key = `retired:${day}`;
    await this.lock.withLock(key, async () => {
      const listed = await this.readIds(key);
      const added = channelIds.filter((id) => !listed.includes(id));
      if (added.length > 0) await this.subscriptions.set(key, [...listed, ...added]);
    });
  }

  /** Takes a channel off the `retired:<day>` lists of `days` (its records were erased, so pruning need not look for them). */
  async unretire(channelId: string, days: IsoDate[]): Promise<void> {
    const lists = await this.retiredOn(days);
    for (const [i, day] of days.entries()) {
      if (!lists[i]?.includes(channelId)) continue;
      const key = `retired:${day}`;
      await this.lock.withLock(key, async () => {
        const rest = (await this.readIds(key)).filter((id) => id !== channelId);
        if (rest.length > 0) await this.subscriptions.set(key, rest);
        else await this.subscriptions.delete(key);
      });
    }
  }

  /** The channels retired on each of `days`, in the same order. */
  async retiredOn(days: IsoDate[]): Promise<string[][]> {
    if (days.length === 0) return [];
    const lists = await this.subscriptions.getMany(days.map((day) => `retired:${day}`));
    return lists.map((list) => (isStringArray(list) ? list : []));
  }

  /** Every day with a `retired:` list, found by scanning this namespace's keys (for the rare full pass). */
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

  /** Deletes the given channels' records of one day; returns how many there were. */
  async deleteDeliveries(channelIds: string[], day: IsoDate): Promise<number> {
    return this.deleteDeliveryKeys(deliveryKeysOf(channelIds, [day]));
  }

  /** Deletes delivery records by key, in batches; returns how many existed. */
  async deleteDeliveryKeys(keys: string[]): Promise<number> {
    let deleted = 0;
    for (let start = 0; start < keys.length; start += READ_BATCH) {
      const batch = keys.slice(start, start + READ_BATCH);
      const values = await this.deliveries.getMany(batch);
      const present = batch.filter((_, i) => values[i] !== undefined && values[i] !== null);
      if (present.length > 0) await this.deliveries.deleteMany(present);
      deleted += present.length;
    }
    return deleted;
  }

  /** Every delivery record's key, in pages, without reading the records. */
  deliveryKeys(): AsyncGenerator<string[]> {
    return scanNamespaceKeys(this.deliveries);
  }

  // --- Erasure (privacy): a server's or a member's data, and servers the bot was removed from.
  // Keys: removed:<guildId> holds when the bot was removed from a server that has data here; `removals` lists them.

  /**
   * Removes every subscription of a server (or a member's `user:<id>` DM one), the server's list and their index
   * entries, and any record of the bot's removal; returns what was removed. Their delivery records are left to
   * deleteDeliveries, which needs the days.
   */
  async eraseGuild(guildId: string): Promise<Subscription[]> {
    return this.lock.withLock(`guild:${guildId}`, () => this.eraseGuildLocked(guildId));
  }

  /** The readable delivery records these channels have on these days, channel by channel, oldest day first. */
  async getDeliveriesOn(channelIds: string[], days: IsoDate[]): Promise<DeliveryRecord[]> {
    const records = await this.readDeliveries(deliveryKeysOf(channelIds, days));
    return records.filter((record): record is DeliveryRecord => record !== null);
  }

  /** The delivery records under `keys`, in batches, in the same order (null where there is none or it is damaged). */
  private async readDeliveries(keys: string[]): Promise<Array<DeliveryRecord | null>> {
    const results: Array<DeliveryRecord | null> = [];
    for (let start = 0; start < keys.length; start += READ_BATCH) {
      const batch = keys.slice(start, start + READ_BATCH);
      const raws = await this.readRawDeliveries(batch);
      batch.forEach((key, i) => {
        const stored = this.decodeDelivery(raws[i]);
        if (stored.kind === 'damaged') this.logger?.error({ key, issue: stored.issue }, 'stored delivery record is damaged; left out');
        results.push(stored.kind === 'value' ? this.parseDelivery(key, stored.value) : null);
      });
    }
    return results;
  }

  /** Deletes the delivery records of these channels on these days; returns how many there were. */
  async deleteDeliveriesOn(channelIds: string[], days: IsoDate[]): Promise<number> {
    return this.deleteDeliveryKeys(deliveryKeysOf(channelIds, days));
  }

  /** Notes when the bot was removed from a server that has subscriptions here (the first removal counts); false when it has none. */
  async markGuildRemoved(guildId: string, at: string): Promise<boolean> {
    return this.lock.withLock(`guild:${guildId}`, async () => {
      if ((await this.readIds(`guild:${guildId}`)).length === 0) return false;
      if (typeof (await this.subscriptions.get(`removed:${guildId}`)) !== 'string') await this.subscriptions.set(`removed:${guildId}`, at);
      await this.lock.withLock('removals', async () => {
        const listed = await this.readIds('removals');
        if (!listed.includes(guildId)) await this.subscriptions.set('removals', [...listed, guildId]);
      });
      return true;
    });
  }

  /** When the bot was removed from the server, if its data is waiting to be erased. */
  async guildRemovedAt(guildId: string): Promise<string | null> {
    const at = await this.subscriptions.get(`removed:${guildId}`);
    return typeof at === 'string' ? at : null;
  }

  /** The bot is back in the server: its data stays. One read when there was nothing to cancel. */
  async cancelGuildRemoval(guildId: string): Promise<boolean> {
    if ((await this.guildRemovedAt(guildId)) === null) return false;
    return this.lock.withLock(`guild:${guildId}`, async () => {
      const had = (await this.guildRemovedAt(guildId)) !== null;
      await this.forgetRemoval(guildId);
      return had;
    });
  }

  /** Servers the bot was removed from whose data is waiting to be erased, with when. */
  async guildRemovals(): Promise<Array<{ guildId: string; at: string }>> {
    const found: Array<{ guildId: string; at: string }> = [];
    for (const guildId of await this.readIds('removals')) {
      const at = await this.guildRemovedAt(guildId);
      if (at !== null) found.push({ guildId, at });
    }
    return found;
  }

  /**
   * Erases a server's data if the bot was removed from it before `removedBefore`, checked under the server's lock so
   * a re-add (cancelGuildRemoval) and the erasure never cross. Null when it is not due (or was cancelled).
   */
  async eraseRemovedGuild(guildId: string, removedBefore: string): Promise<Subscription[] | null> {
    return this.lock.withLock(`guild:${guildId}`, async () => {
      const at = await this.guildRemovedAt(guildId);
      if (at === null) {
        // A listing with no record behind it (a crash between the two writes) is tidied away.
        await this.forgetRemoval(guildId);
        return null;
      }
      if (at >= removedBefore) return null;
      return this.eraseGuildLocked(guildId);
    });
  }

  private async eraseGuildLocked(guildId: string): Promise<Subscription[]> {
    const ids = await this.readIds(`guild:${guildId}`);
    const removed = await this.readMany(ids);
    for (const channelId of ids) {
      await this.subscriptions.delete(`sub:${channelId}`);
      await this.removeFromIndex(channelId);
    }
    // A member's erasure forgets them on the notice list even if their subscription is already gone.
    const member = guildId.startsWith('user:') ? [dmTarget(guildId.slice('user:'.length)).channelId] : [];
    await this.forgetDmNotices([...ids, ...member]);
    await this.subscriptions.delete(`guild:${guildId}`);
    await this.forgetRemoval(guildId);
    return removed;
  }

  private async forgetRemoval(guildId: string): Promise<void> {
    await this.subscriptions.delete(`removed:${guildId}`);
    await this.lock.withLock('removals', async () => {
      const listed = await this.readIds('removals');
      if (listed.includes(guildId)) await this.subscriptions.set('removals', listed.filter((id) => id !== guildId));
    });
  }

  // The `dm-notices` list. Telling a member why their DM subscription was switched off is checked after every command
  // they run; reading their subscription for that each time cost a store read per command. The list names everyone
  // who may be owed the notice. A member is added before the record that owes it is written (so a crash between the
  // two leaves a name too many, never one too few) and is taken off only once their record owes nothing. Each store
  // reads the list at most every DM_NOTICES_REFRESH_MS, and knows its own additions at once.

  /**
   * Whether the member may be owed the notice that their DM subscription was switched off: false means they are not
   * (as of at most DM_NOTICES_REFRESH_MS ago); true means their subscription is to be read to find out.
   */
  mayOweDmNotice(userId: string): Promise<boolean> {
    // Not an async function: this runs after every command, and nearly always answers from the copy.
    const known = this.dmNotices;
    if (known && this.now().getTime() - known.readAt < DM_NOTICES_REFRESH_MS) return Promise.resolve(known.users.has(userId));
    this.dmNoticesReading ??= this.readDmNotices().finally(() => {
      this.dmNoticesReading = null;
    });
    return this.dmNoticesReading.then((users) => users.has(userId));
  }

  /** Takes the member off `dm-notices` unless their subscription (read again, under the list's lock) still owes it. */
  async settleDmNotice(userId: string): Promise<void> {
    await this.lock.withLock(DM_NOTICES_KEY, async () => {
      if (owesDmNotice(await this.get(dmTarget(userId).channelId))) return;
      await this.changeDmNotices((users) => users.delete(userId));
    });
  }

  private async readDmNotices(): Promise<Set<string>> {
    const readAt = this.now().getTime();
    const listed = await this.subscriptions.get(DM_NOTICES_KEY);
    // A store written before the list existed gets it built once, from its DM subscriptions.
    const users = new Set(isStringArray(listed) ? listed : await this.lock.withLock(DM_NOTICES_KEY, () => this.storedDmNotices()));
    this.dmNotices = { users, readAt };
    return users;
  }

  /** The list as stored, built first on a store written before it existed; called under the list's lock. */
  private async storedDmNotices(): Promise<string[]> {
    const listed = await this.subscriptions.get(DM_NOTICES_KEY);
    if (isStringArray(listed)) return listed;
    const dmChannels = (await this.indexedChannelIds()).filter((channelId) => dmUserOf(channelId) !== null);
    const owed = (await this.readMany(dmChannels)).filter(owesDmNotice).flatMap((subscription) => dmUserOf(subscription.channelId) ?? []);
    await this.subscriptions.set(DM_NOTICES_KEY, owed);
    return owed;
  }

  /** Adds the members these records owe the notice to `dm-notices`; called before the records are written. */
  private async noteDmNotices(subscriptions: readonly Subscription[]): Promise<void> {
    const owed = subscriptions.filter(owesDmNotice).flatMap((subscription) => dmUserOf(subscription.channelId) ?? []);
    if (owed.length === 0) return;
    await this.lock.withLock(DM_NOTICES_KEY, () =>
      this.changeDmNotices((users) => {
        const before = users.size;
        for (const userId of owed) users.add(userId);
        return users.size > before;
      }),
    );
  }

  /** Takes the members of these DM channels off `dm-notices` (their subscription was removed). */
  private async forgetDmNotices(channelIds: readonly string[]): Promise<void> {
    const gone = channelIds.flatMap((channelId) => dmUserOf(channelId) ?? []);
    if (gone.length === 0) return;
    await this.lock.withLock(DM_NOTICES_KEY, () =>
      this.changeDmNotices((users) => gone.map((userId) => users.delete(userId)).includes(true)),
    );
  }

  /** Read-modify-write of `dm-notices` (under its lock); `change` says whether it changed anything. */
  private async changeDmNotices(change: (users: Set<string>) => boolean): Promise<void> {
    const readAt = this.now().getTime();
    const users = new Set(await this.storedDmNotices());
    if (change(users)) await this.subscriptions.set(DM_NOTICES_KEY, [...users]);
    this.dmNotices = { users, readAt };
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
    this.logger?.error({ key, issue: parsed.error.issues[0]?.message }, 'stored delivery record is damaged; left out');
    return null;
  }
}
