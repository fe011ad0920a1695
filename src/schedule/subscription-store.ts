import type { Logger } from '../config/logger.ts';
import type { StoredEntry } from '../store/scan.ts';
import { storeCheck, type StoreLocation } from '../store/open-store.ts';
import type { StoreCheck } from '../store/store-watch.ts';
import type { IsoDate } from '../wotd/dates.ts';
import type { DueIndex, DueMove, IndexedState } from '../store/due-index.ts';
import type { DeliveryReading, DeliveryRecord, Subscription } from './subscription.ts';
import { DeliveryRecords } from './subscription-store/delivery-records.ts';
import { KeptChannelSettings } from './subscription-store/kept-channel-settings.ts';
import { DmNoticeList } from './subscription-store/dm-notice-list.ts';
import { DueEntries } from './subscription-store/due-entries.ts';
import { GuildErasure } from './subscription-store/guild-erasure.ts';
import { PruningRecords } from './subscription-store/pruning-records.ts';
import type { RecordNamespaces, RestoreOutcome } from './subscription-store/record-namespaces.ts';
import { openRecordNamespaces, type OpenSubscriptionStoreOptions } from './subscription-store/open-record-namespaces.ts';

export type { OpenSubscriptionStoreOptions } from './subscription-store/open-record-namespaces.ts';
import { SubscriptionIndex } from './subscription-store/subscription-index.ts';
import { SubscriptionReader } from './subscription-store/subscription-reads.ts';
import { SubscriptionWriter, type UpsertResult } from './subscription-store/subscription-writes.ts';

/**
 * Subscriptions and delivery records in their own Keyv namespaces. This class opens them and hands each kind of
 * record to its part in subscription-store/.
 *
 * Keys in the `subscriptions` namespace:
 *   sub:<channelId>    one subscription (a channel has at most one)            subscription-reads/-writes.ts
 *   guild:<guildId>    the channel ids subscribed in that server               subscription-writes.ts
 *   index:<n>          shards that together hold every subscribed channel id   subscription-index.ts
 *   retired:<day>, deliveries-pruned   what the pruning of delivery records keeps  pruning-records.ts
 *   dm-notices         members whose DM subscription may owe them a "switched off" notice   dm-notice-list.ts
 *   removed:<guildId>, removals   servers the bot was removed from, waiting to be erased      guild-erasure.ts
 * so listing everything reads the index shards and the subscriptions they name, and nothing else.
 * The `deliveries` namespace holds one record per channel and service day: <channelId>:<day> (delivery-records.ts).
 * Beside them, the due-time index (src/store/due-index.ts, due-entries.ts): each subscription's next instant to be
 * looked at, which the scheduler reads instead of every subscription.
 *
 * Keyv has no transactions: every change is a read-modify-write done under a lock (see src/store/lock.ts),
 * per server for a subscription and its server's list, then per shard for the index. Locks are always taken
 * in that order. On SQLite or memory they are in-process, shared by every store opened on the same URL in this
 * process, and so on PostgreSQL in one process; on Redis, and on PostgreSQL in cluster mode (`lockRedisUrl`), they
 * are Redis locks, so several processes can change the same store.
 */

export class SubscriptionStore {
  private readonly index: SubscriptionIndex;
  private readonly reader: SubscriptionReader;
  private readonly dmNotices: DmNoticeList;
  private readonly pruning: PruningRecords;
  private readonly writer: SubscriptionWriter;
  private readonly erasure: GuildErasure;
  private readonly deliveries: DeliveryRecords;
  private readonly dueEntries: DueEntries;
  private readonly channelSettings: KeptChannelSettings;
  private closed: Promise<void> | null = null;

  private constructor(
    private readonly parts: RecordNamespaces,
    dueIndex: DueIndex,
  ) {
    const { subscriptions, deliveries, lock, now, logger } = parts;
    this.dueEntries = new DueEntries(dueIndex, deliveries);
    this.index = new SubscriptionIndex(subscriptions, lock);
    this.reader = new SubscriptionReader(subscriptions, this.index, logger);
    this.dmNotices = new DmNoticeList(subscriptions, lock, now, this.reader, this.index);
    this.pruning = new PruningRecords(subscriptions, lock);
    this.channelSettings = new KeptChannelSettings((channelId) => this.reader.get(channelId));
    this.writer = new SubscriptionWriter(parts, this.reader, this.index, this.dmNotices, this.pruning, this.dueEntries, this.channelSettings);
    this.erasure = new GuildErasure(subscriptions, lock, this.reader, this.index, this.dmNotices, this.dueEntries, this.channelSettings);
    this.deliveries = new DeliveryRecords(deliveries, logger, this.dueEntries);
  }

  static async open(where: string | StoreLocation, logger?: Logger, options: OpenSubscriptionStoreOptions = {}): Promise<SubscriptionStore> {
    const { parts, dueIndex } = await openRecordNamespaces(typeof where === 'string' ? { url: where } : where, logger, options);
    return new SubscriptionStore(parts, dueIndex);
  }

  close(): Promise<void> {
    const { subscriptions, deliveries, lock } = this.parts;
    this.closed ??= Promise.all([subscriptions.disconnect(), deliveries.disconnect(), lock.close(), this.dueEntries.index.close()]).then(() => undefined);
    return this.closed;
  }

  /**
   * One read that rejects when the store cannot be read (a health check). It asks the store directly: through Keyv,
   * a failed read on SQLite comes back as "nothing stored".
   */
  async ping(): Promise<void> {
    await this.parts.subscriptions.store.get('health-check');
  }

  /** Each store this one is made of (subscriptions, deliveries, and on Redis its locks), for /healthz and the metrics. */
  storeChecks(): StoreCheck[] {
    const { subscriptions, deliveries, lock } = this.parts;
    return [storeCheck(subscriptions), storeCheck(deliveries), ...(lock.watch ? [lock.watch] : [])];
  }

  // --- Subscriptions

  get(channelId: string): Promise<Subscription | null> {
    return this.reader.get(channelId);
  }

  /** The language of the channel's subscription, read again at most every few seconds (see KeptChannelSettings). */
  readonly languageOf = (channelId: string): Promise<string | undefined> => this.channelSettings.languageOf(channelId);
  /** Whether the channel's subscription asks for the daily quiz, read again at most every few seconds (the same way). */
  readonly quizOn = (channelId: string): Promise<boolean> => this.channelSettings.quizOn(channelId);
  readonly cachedLanguageOf = (channelId: string): { language: string | undefined } | undefined => this.channelSettings.cached(channelId);

  listGuild(guildId: string): Promise<Subscription[]> {
    return this.reader.listGuild(guildId);
  }

  listAll(): Promise<Subscription[]> {
    return this.reader.listAll();
  }

  /** Every subscription, a few hundred at a time: for a pass over all of them that keeps little of each. */
  pages(): AsyncGenerator<Subscription[]> {
    return this.reader.pages();
  }

  /** Every channel id in the index: each subscription's, damaged ones included. */
  indexedChannelIds(): Promise<string[]> {
    return this.index.channelIds();
  }

  /** The same, a part at a time (a pass over every channel that need not hold them all at once). */
  indexedChannelIdPages(): AsyncGenerator<string[]> {
    return this.index.channelIdPages();
  }

  /**
   * Creates or replaces the channel's subscription. `build` gets what is stored now (or null) and returns the new
   * record; a new one is refused when the server already has `limit` that count toward it (see countsTowardLimit).
   */
  upsert(guildId: string, channelId: string, limit: number, build: (existing: Subscription | null) => Subscription): Promise<UpsertResult> {
    return this.writer.upsert(guildId, channelId, limit, build);
  }

  /**
   * Creates or replaces many subscriptions at once, with no per-server limit: for seeding a large store (bench:fanout
   * writes 100,000 this way). Each server's list and each index shard is read and written once per call instead of
   * once per subscription, under the same locks as upsert.
   */
  putMany(subscriptions: readonly Subscription[]): Promise<void> {
    return this.writer.putMany(subscriptions);
  }

  /**
   * Removes a subscription on an admin's request; returns what was removed. Its delivery records stay until the
   * retention prunes them (so subscribing again the same day does not post that day's word twice): the channel is
   * listed under the day's `retired:` key for that.
   */
  remove(guildId: string, channelId: string): Promise<Subscription | null> {
    return this.writer.remove(guildId, channelId);
  }

  /** Read-modify-write of one subscription; `change` returns the new record, or null to leave it as it is. */
  update(channelId: string, change: (current: Subscription) => Subscription | null): Promise<Subscription | null> {
    return this.writer.update(channelId, change);
  }

  /** Every subscription of a server, changed together (e.g. disabled when the bot leaves it). */
  updateGuild(guildId: string, change: (current: Subscription) => Subscription | null): Promise<Subscription[]> {
    return this.writer.updateGuild(guildId, change);
  }

  // --- The due-time index (see subscription-store/due-entries.ts and next-due.ts)

  /** The entries due at or before `at`, earliest first, a page at a time, each with its subscription (null: none). */
  async *due(at: Date, pageSize = 500): AsyncGenerator<Array<{ channelId: string; dueAt: number; subscription: Subscription | null }>> {
    for await (const page of this.dueEntries.index.due(at.getTime(), pageSize)) {
      const found = new Map((await this.reader.readMany(page.map((entry) => entry.channelId))).map((subscription) => [subscription.channelId, subscription]));
      yield page.map((entry) => ({ ...entry, subscription: found.get(entry.channelId) ?? null }));
    }
  }

  /** Compare-and-set moves of due-time entries (see DueIndex.move). */
  moveDue(moves: readonly DueMove[]): Promise<void> {
    return this.dueEntries.index.move(moves);
  }

  /** Gives a channel's entry from its subscription as stored now, under its server's lock (none: the entry goes). */
  reindex(channelId: string): Promise<void> {
    return this.writer.reindex(channelId);
  }

  /** Subscriptions per state, as the index counts them (no subscription is read). */
  countByState(): Promise<Record<IndexedState, number>> {
    return this.dueEntries.counts();
  }

  /** The index itself: for building it, checking it and copying it. */
  dueIndex(): DueIndex {
    return this.dueEntries.index;
  }

  // --- Delivery records

  /** The channel's delivery record of a day; one stored but unreadable comes back as `damaged` (see DamagedDelivery). */
  async getDelivery(channelId: string, day: IsoDate): Promise<DeliveryReading | null> {
    const [record] = await this.deliveries.getMany([channelId], day);
    return record ?? null;
  }

  /** Delivery records for many channels on one day, in the same order (null where there is none, `damaged` where unreadable). */
  getDeliveries(channelIds: string[], day: IsoDate): Promise<Array<DeliveryReading | null>> {
    return this.deliveries.getMany(channelIds, day);
  }

  /**
   * With `move`, the channel's due-time entry moves in the same write (only if it is still at `move.from`); see
   * DeliveryRecords.put for null and none.
   */
  putDelivery(record: DeliveryRecord, move?: DueMove | null): Promise<void> {
    return this.deliveries.put(record, move);
  }

  /** The readable delivery records these channels have on these days, channel by channel, oldest day first. */
  getDeliveriesOn(channelIds: string[], days: IsoDate[]): Promise<DeliveryRecord[]> {
    return this.deliveries.getOn(channelIds, days);
  }

  /** Deletes the given channels' records of one day; returns how many there were. */
  deleteDeliveries(channelIds: string[], day: IsoDate): Promise<number> {
    return this.deliveries.deleteOn(channelIds, [day]);
  }

  /** Deletes the delivery records of these channels on these days; returns how many there were. */
  deleteDeliveriesOn(channelIds: string[], days: IsoDate[]): Promise<number> {
    return this.deliveries.deleteOn(channelIds, days);
  }

  /** Deletes delivery records by key, in batches; returns how many existed. */
  deleteDeliveryKeys(keys: string[]): Promise<number> {
    return this.deliveries.deleteKeys(keys);
  }

  /** Every delivery record's key, in pages, without reading the records. */
  deliveryKeys(): AsyncGenerator<string[]> {
    return this.deliveries.keys();
  }

  // --- Copying the store (cli/migrate-store.ts)

  /** Every subscription record, valid or damaged, as [key, value] pages. */
  subscriptionRecords(): AsyncGenerator<StoredEntry[]> {
    return this.reader.records();
  }

  /** Every delivery record, valid or damaged, as [key, value] pages. */
  deliveryRecords(): AsyncGenerator<StoredEntry[]> {
    return this.deliveries.records();
  }

  /**
   * Writes a subscription record read from another store under the same key, replacing what is there. A valid
   * one joins its server's list and the index as upsert would, with no limit; a damaged one is written as it
   * was and listed nowhere, as in the store it came from. Doing it twice changes nothing.
   */
  restoreSubscription(key: string, value: unknown): Promise<RestoreOutcome> {
    return this.writer.restore(key, value);
  }

  /** Writes a delivery record read from another store under the same key, replacing what is there. */
  restoreDelivery(key: string, value: unknown): Promise<RestoreOutcome> {
    return this.deliveries.restore(key, value);
  }

  // --- Pruning of delivery records (the policy is in delivery-retention.ts)

  /** The newest service day whose delivery records have all been pruned; null before the first pruning. */
  deliveryPruneMark(): Promise<IsoDate | null> {
    return this.pruning.pruneMark();
  }

  /** Null makes the next pruning scan every record once (after records were copied in from elsewhere). */
  setDeliveryPruneMark(day: IsoDate | null): Promise<void> {
    return this.pruning.setPruneMark(day);
  }

  /** Adds channels to the `retired:<day>` list: their records are pruned with everyone's until that day is. */
  retire(channelIds: string[], day: IsoDate): Promise<void> {
    return this.pruning.retire(channelIds, day);
  }

  /** Takes a channel off the `retired:<day>` lists of `days` (its records were erased, so pruning need not look for them). */
  unretire(channelId: string, days: IsoDate[]): Promise<void> {
    return this.pruning.unretire(channelId, days);
  }

  /** The channels retired on each of `days`, in the same order. */
  retiredOn(days: IsoDate[]): Promise<string[][]> {
    return this.pruning.retiredOn(days);
  }

  /** Every day with a `retired:` list, found by scanning this namespace's keys (for the rare full pass). */
  retiredDays(): Promise<IsoDate[]> {
    return this.pruning.retiredDays();
  }

  forgetRetired(days: IsoDate[]): Promise<void> {
    return this.pruning.forgetRetired(days);
  }

  // --- Erasure (privacy)

  /**
   * Removes every subscription of a server (or a member's `user:<id>` DM one), the server's list and their index
   * entries, and any record of the bot's removal; returns what was removed. Their delivery records are left to
   * deleteDeliveries, which needs the days.
   */
  eraseGuild(guildId: string): Promise<Subscription[]> {
    return this.erasure.eraseGuild(guildId);
  }

  /** Notes when the bot was removed from a server that has subscriptions here (the first removal counts); false when it has none. */
  markGuildRemoved(guildId: string, at: string): Promise<boolean> {
    return this.erasure.markRemoved(guildId, at);
  }

  /** When the bot was removed from the server, if its data is waiting to be erased. */
  guildRemovedAt(guildId: string): Promise<string | null> {
    return this.erasure.removedAt(guildId);
  }

  /** The bot is back in the server: its data stays. One read when there was nothing to cancel. */
  cancelGuildRemoval(guildId: string): Promise<boolean> {
    return this.erasure.cancelRemoval(guildId);
  }

  /** Servers the bot was removed from whose data is waiting to be erased, with when. */
  guildRemovals(): Promise<Array<{ guildId: string; at: string }>> {
    return this.erasure.removals();
  }

  /**
   * Erases a server's data if the bot was removed from it before `removedBefore`, checked under the server's lock so
   * a re-add (cancelGuildRemoval) and the erasure never cross. Null when it is not due (or was cancelled).
   */
  eraseRemovedGuild(guildId: string, removedBefore: string): Promise<Subscription[] | null> {
    return this.erasure.eraseRemoved(guildId, removedBefore);
  }

  // --- The `dm-notices` list (see dm-notice-list.ts)

  /**
   * Whether the member may be owed the notice that their DM subscription was switched off: false means they are not
   * (as of at most DM_NOTICES_REFRESH_MS ago); true means their subscription is to be read to find out.
   */
  mayOweDmNotice(userId: string): Promise<boolean> {
    return this.dmNotices.mayOwe(userId);
  }
  /** The same answer when the list's copy is fresh, at once; undefined when it is to be read again. */
  readonly mayOweDmNoticeNow = (userId: string): boolean | undefined => this.dmNotices.mayOweNow(userId);

  /** Takes the member off `dm-notices` unless their subscription (read again, under the list's lock) still owes it. */
  settleDmNotice(userId: string): Promise<void> {
    return this.dmNotices.settle(userId);
  }
}
