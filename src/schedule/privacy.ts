import type { Logger } from '../config/logger.ts';
import { addDays, utcDateOf, type IsoDate } from '../wotd/dates.ts';
import { dmTarget, type DeliveryRecord, type Subscription } from './subscription.ts';
import type { SubscriptionStore } from './subscription-store.ts';

/**
 * What the bot keeps about a member and a server, handed over (export) or erased (forget), and the erasure of a
 * server's data some days after the bot was removed from it.
 *
 * The bot stores, per subscription: the server, channel (name and id), time, zone, role, style, who created it and
 * when, and its status; per post: a delivery record (day, state, nonce, message id, error). A member's own data is
 * their DM subscription with its delivery records, and their id as the creator of server subscriptions. The word
 * cache holds only the service's public words.
 */

/** Days a server's data is kept after the bot is removed from it (re-adding the bot in time keeps it). */
export const SERVER_DATA_RETENTION_DAYS = 30;

/** The most days back a subscription's delivery records are looked for (older ones are pruned by retention). */
const MAX_HISTORY_DAYS = 400;

export interface MemberData {
  id: string;
  dmSubscription: Subscription | null;
  dmDeliveries: DeliveryRecord[];
  /** Server subscriptions that name the member as their creator. */
  serverSubscriptionsCreated: Array<Pick<Subscription, 'guildId' | 'channelId' | 'channelName' | 'createdAt'>>;
  /** Those the member changed last (`configuredBy`): they are told, by DM, when one stops posting. */
  serverSubscriptionsLastConfigured: Array<Pick<Subscription, 'guildId' | 'channelId' | 'channelName'> & { configuredAt: string }>;
}

export interface ServerData {
  id: string;
  subscriptions: Subscription[];
  deliveries: DeliveryRecord[];
  /** When the bot was removed from the server, if its data is waiting to be erased. */
  removedAt: string | null;
}

export interface DataExport {
  exportedAt: string;
  /** What the file holds, in the member's language: written by the replies layer (left empty here). */
  about: string;
  member: MemberData;
  server?: ServerData;
  /** What the other parts of the bot keep about the member (the learning loop's saved words, answers, streaks). */
  learning?: unknown;
}

/**
 * Another part of the bot that keeps personal data (the learning loop): exported and erased with the rest, and a
 * removed server's part erased with its subscriptions.
 */
export interface PersonalDataPart {
  exportMember(userId: string): Promise<unknown>;
  /** Returns how many records went. */
  forgetMember(userId: string): Promise<number>;
  forgetServer(guildId: string): Promise<number>;
}

/**
 * What a server's export shows in place of the id of a subscription's creator who is not the member exporting: the
 * server's data is the admin's to see, but who set each subscription up is that other member's.
 */
export const ANOTHER_MEMBER = 'another member';

/**
 * Service days that may still have delivery records: from the day after the last pruned one (never more than
 * MAX_HISTORY_DAYS back) to tomorrow. Not bounded by a subscription's creation: a channel or member that
 * unsubscribed and subscribed again, or unsubscribed for good, keeps the earlier records until they are pruned.
 */
async function daysWithRecords(store: SubscriptionStore, now: Date): Promise<IsoDate[]> {
  const last = addDays(utcDateOf(now), 1);
  const floor = addDays(last, -MAX_HISTORY_DAYS);
  const pruned = await store.deliveryPruneMark();
  const first = pruned !== null && pruned >= floor ? addDays(pruned, 1) : floor;
  const days: IsoDate[] = [];
  for (let day = first; day <= last; day = addDays(day, 1)) days.push(day);
  return days;
}

export class PrivacyService {
  private learning: PersonalDataPart | null = null;

  constructor(
    private readonly store: SubscriptionStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The learning loop's data, exported and erased with the rest from now on. */
  include(part: PersonalDataPart): void {
    this.learning = part;
  }

  /** Everything stored about the member, and about the server when given (the caller checked they may see it). */
  async exportData(userId: string, guildId: string | null): Promise<DataExport> {
    const now = this.now();
    const days = await daysWithRecords(this.store, now);
    const dmChannel = dmTarget(userId).channelId;
    const dm = await this.store.get(dmChannel);
    const all = await this.store.listAll();
    const created = all.filter((item) => item.createdBy === userId && !item.channelId.startsWith('dm:'));
    // Each subscription keeps who changed it last (told when it stops posting, admin-notices.ts): their id is the
    // member's data as much as its creator's.
    const configured = all.filter((item) => item.configuredBy === userId && !item.channelId.startsWith('dm:'));
    const data: DataExport = {
      exportedAt: now.toISOString(),
      about: '',
      member: {
        id: userId,
        dmSubscription: dm,
        // Looked for even without a subscription: /wotd-unsubscribe-me leaves the records until they are pruned.
        dmDeliveries: await this.store.getDeliveriesOn([dmChannel], days),
        serverSubscriptionsCreated: created.map(({ guildId: server, channelId, channelName, createdAt }) => ({ guildId: server, channelId, channelName, createdAt })),
        serverSubscriptionsLastConfigured: configured.map(({ guildId: server, channelId, channelName, enabledAt }) => ({
          guildId: server,
          channelId,
          channelName,
          configuredAt: enabledAt,
        })),
      },
    };
    if (this.learning) data.learning = await this.learning.exportMember(userId);
    if (guildId !== null) {
      const subscriptions = await this.store.listGuild(guildId);
      data.server = {
        id: guildId,
        subscriptions: subscriptions.map((item) => {
          const shown = item.createdBy === userId || item.createdBy === '' ? item : { ...item, createdBy: ANOTHER_MEMBER };
          if (shown.configuredBy === undefined || shown.configuredBy === userId) return shown;
          // Another member's client language is theirs, as their id is.
          const { configuredLocale: _theirs, ...others } = shown;
          return { ...others, configuredBy: ANOTHER_MEMBER };
        }),
        deliveries: await this.store.getDeliveriesOn(subscriptions.map((item) => item.channelId), days),
        removedAt: await this.store.guildRemovedAt(guildId),
      };
    }
    return data;
  }

  /**
   * Erases the member's data: their DM subscription and its delivery records (those of an earlier one too), and
   * their id from the server subscriptions they created (which belong to the servers and stay). Returns what changed.
   */
  async forgetMember(
    userId: string,
  ): Promise<{ dmSubscription: boolean; dmDeliveries: number; serverSubscriptionsAnonymised: number; learningRecords: number }> {
    const learningRecords = this.learning ? await this.learning.forgetMember(userId) : 0;
    const days = await daysWithRecords(this.store, this.now());
    const { guildId, channelId } = dmTarget(userId);
    const dm = await this.store.eraseGuild(guildId);
    const dmDeliveries = await this.store.deleteDeliveriesOn([channelId], days);
    // The `retired:` lists name the member's DM channel (so their id) until its records are pruned; they are gone now.
    await this.store.unretire(channelId, days);
    let anonymised = 0;
    for (const item of await this.store.listAll()) {
      if (item.createdBy !== userId && item.configuredBy !== userId) continue;
      const changed = await this.store.update(item.channelId, (current) => {
        if (current.createdBy !== userId && current.configuredBy !== userId) return null;
        // Notices then go to the subscription's notice channel only (admin-notices.ts).
        const { configuredBy, configuredLocale, ...rest } = current;
        return {
          ...rest,
          createdBy: current.createdBy === userId ? '' : current.createdBy,
          ...(configuredBy === userId ? {} : { configuredBy, ...(configuredLocale ? { configuredLocale } : {}) }),
        };
      });
      if (changed) anonymised += 1;
    }
    return { dmSubscription: dm.length > 0, dmDeliveries, serverSubscriptionsAnonymised: anonymised, learningRecords };
  }

  /** Erases a server's data: its subscriptions and their delivery records. Returns how many subscriptions went. */
  async forgetServer(guildId: string): Promise<number> {
    await this.learning?.forgetServer(guildId);
    const removed = await this.store.eraseGuild(guildId);
    await this.store.deleteDeliveriesOn(removed.map((item) => item.channelId), await daysWithRecords(this.store, this.now()));
    return removed.length;
  }

  /**
   * Erases the data of every server the bot was removed from more than SERVER_DATA_RETENTION_DAYS ago. Safe to run
   * anywhere and often: each erasure re-checks under the server's lock, so a re-add in between keeps the data.
   */
  async sweepRemovedServers(logger?: Logger): Promise<number> {
    const now = this.now();
    const cutoff = new Date(now.getTime() - SERVER_DATA_RETENTION_DAYS * 86_400_000).toISOString();
    let erased = 0;
    let days: IsoDate[] | undefined;
    for (const { guildId, at } of await this.store.guildRemovals()) {
      if (at >= cutoff) continue;
      const removed = await this.store.eraseRemovedGuild(guildId, cutoff);
      if (removed === null) continue;
      await this.learning?.forgetServer(guildId);
      days ??= await daysWithRecords(this.store, now);
      await this.store.deleteDeliveriesOn(removed.map((item) => item.channelId), days);
      erased += 1;
      logger?.info({ guildId, removedAt: at, subscriptions: removed.length }, 'erased the data of a server the bot left');
    }
    return erased;
  }
}
