import { addDays, type IsoDate } from '../wotd/dates.ts';
import { currentSlot, nextPostTime, slotFor } from './due.ts';
import { dmTarget, owesDmNotice, postStyleOf, type DeliveryReading, type PostStyle, type Subscription } from './subscription.ts';
import type { SubscriptionStore } from './subscription-store.ts';
import type { UpsertResult } from './subscription-store/subscription-writes.ts';
import { knownTimeZones } from './zoned-time.ts';

/** What the admin commands ask of subscriptions; both transports hand commands the same one. */

export interface SubscribeRequest {
  guildId: string;
  channelId: string;
  channelName: string;
  /** HH:MM, already validated with parseLocalTime. */
  time: string;
  /** A canonical IANA name, already validated with canonicalTimeZone. */
  timeZone: string;
  roleId: string | null;
  userId: string;
  /** Default full. */
  style?: PostStyle;
  /** A thread on each post (default no). */
  openThread?: boolean;
  /** Publish each post to following servers, in an announcement channel (default no). */
  publish?: boolean;
  /** The posts' language, a Discord locale (default: none, so the server's preferred locale at posting time). */
  language?: string;
  /** Make each post a quiz (default no; see src/learning/). */
  quiz?: boolean;
}

export interface SubscriptionOverview {
  subscription: Subscription;
  /** Null when disabled. */
  nextPostAt: Date | null;
  /** Today's post time has passed and the post is still owed: it goes out at the next minute's tick. */
  dueNow: boolean;
  /** Today's delivery, when there is one. */
  lastDelivery: DeliveryReading | null;
}

/** A member's subscription of their own DMs. */
export interface DmSubscribeRequest {
  userId: string;
  time: string;
  timeZone: string;
  style?: PostStyle;
  /** The DMs' language, a Discord locale: the member's own when they subscribed, unless they chose one. */
  language?: string;
}

/** DM subscriptions a member may have: one, changed by subscribing again. */
export const DM_SUBSCRIPTIONS_PER_USER = 1;

export interface SubscriptionService {
  readonly limit: number;
  subscribe(request: SubscribeRequest): Promise<UpsertResult>;
  unsubscribe(guildId: string, channelId: string): Promise<Subscription | null>;
  list(guildId: string): Promise<SubscriptionOverview[]>;
  subscribeDm(request: DmSubscribeRequest): Promise<UpsertResult>;
  unsubscribeDm(userId: string): Promise<Subscription | null>;
  /** The member's DM subscription with its next post, or null. */
  dm(userId: string): Promise<SubscriptionOverview | null>;
  /**
   * The member's DM subscription when it was switched off and they have not been told yet; it is marked as told, so
   * each switch-off is reported once. Null otherwise; in the common case without reading the store (see
   * SubscriptionStore.mayOweDmNotice).
   */
  takeDmNotice(userId: string): Promise<Subscription | null>;
  /** The language a channel's subscription was given, for the public replies there; undefined when it has none. */
  languageOf?(channelId: string): Promise<string | undefined>;
}

export interface ServiceOptions {
  store: SubscriptionStore;
  limit: number;
  now?: () => Date;
}

export function createSubscriptionService(options: ServiceOptions): SubscriptionService {
  const { store, limit } = options;
  const now = options.now ?? (() => new Date());

  return {
    limit,

    async subscribe(request) {
      const at = now().toISOString();
      return store.upsert(request.guildId, request.channelId, limit, (existing) => subscriptionRecord(request, existing, at));
    },

    unsubscribe(guildId, channelId) {
      return store.remove(guildId, channelId);
    },

    async list(guildId) {
      const instant = now();
      const subscriptions = await store.listGuild(guildId);
      const overviews: SubscriptionOverview[] = [];
      for (const subscription of subscriptions) overviews.push(await overviewOf(store, subscription, instant));
      return overviews.sort((a, b) => a.subscription.channelName.localeCompare(b.subscription.channelName));
    },

    async languageOf(channelId) {
      return (await store.get(channelId))?.language;
    },
    async subscribeDm(request) {
      const at = now().toISOString();
      const { guildId, channelId } = dmTarget(request.userId);
      const channelRequest: SubscribeRequest = { ...request, guildId, channelId, channelName: 'DM', roleId: null };
      return store.upsert(guildId, channelId, DM_SUBSCRIPTIONS_PER_USER, (existing) => subscriptionRecord(channelRequest, existing, at));
    },

    unsubscribeDm(userId) {
      const { guildId, channelId } = dmTarget(userId);
      return store.remove(guildId, channelId);
    },

    async dm(userId) {
      const subscription = await store.get(dmTarget(userId).channelId);
      return subscription ? overviewOf(store, subscription, now()) : null;
    },

    async takeDmNotice(userId) {
      if (!(await store.mayOweDmNotice(userId))) return null;
      let told: Subscription | null = null;
      await store.update(dmTarget(userId).channelId, (current) => {
        if (!owesDmNotice(current)) return null;
        told = current;
        return { ...current, disabledNoticeAt: now().toISOString() };
      });
      await store.settleDmNotice(userId);
      return told;
    },
  };
}

async function overviewOf(store: SubscriptionStore, subscription: Subscription, instant: Date): Promise<SubscriptionOverview> {
  const today = currentSlot(subscription, instant);
  const days = new Set<IsoDate>([-1, 0, 1, 2].map((offset) => slotFor(subscription, addDays(today.localDay, offset)).serviceDay));
  const records = new Map<IsoDate, DeliveryReading | null>();
  for (const day of days) records.set(day, await store.getDelivery(subscription.channelId, day));
  const nextPostAt = nextPostTime(subscription, (day) => records.get(day) ?? null, instant);
  return {
    subscription,
    nextPostAt,
    dueNow: nextPostAt !== null && nextPostAt.getTime() <= instant.getTime(),
    lastDelivery: records.get(today.serviceDay) ?? null,
  };
}

/** The record a subscribe request makes (or makes of the existing one): active, enabled now. */
export function subscriptionRecord(request: SubscribeRequest, existing: Subscription | null, at: string): Subscription {
  return {
    guildId: request.guildId,
    channelId: request.channelId,
    channelName: request.channelName,
    time: request.time,
    timeZone: request.timeZone,
    roleId: request.roleId,
    createdBy: existing?.createdBy ?? request.userId,
    createdAt: existing?.createdAt ?? at,
    enabledAt: at,
    status: { state: 'active' },
    style: request.style ?? 'full',
    ...(request.openThread === true ? { openThread: true } : {}),
    ...(request.publish === true ? { publish: true } : {}),
    ...(request.language ? { language: request.language } : {}),
    ...(request.quiz === true ? { quiz: true } : {}),
  };
}

/** A setting that subscribing again changed, from what to what; the replies say each one. */
export type SubscriptionChange =
  | { setting: 'time' | 'timeZone'; from: string; to: string }
  | { setting: 'role'; from: string | null; to: string | null }
  | { setting: 'style'; from: PostStyle; to: PostStyle }
  | { setting: 'thread' | 'publish' | 'quiz'; from: boolean; to: boolean }
  | { setting: 'language'; from: string | null; to: string | null };

/** What subscribing again changed of `previous`, in the order the command's options come. */
export function subscriptionChanges(previous: Subscription, next: Subscription): SubscriptionChange[] {
  const changes: SubscriptionChange[] = [];
  if (previous.time !== next.time) changes.push({ setting: 'time', from: previous.time, to: next.time });
  if (previous.timeZone !== next.timeZone) changes.push({ setting: 'timeZone', from: previous.timeZone, to: next.timeZone });
  if (previous.roleId !== next.roleId) changes.push({ setting: 'role', from: previous.roleId, to: next.roleId });
  if (postStyleOf(previous) !== postStyleOf(next)) changes.push({ setting: 'style', from: postStyleOf(previous), to: postStyleOf(next) });
  const thread = { from: previous.openThread === true, to: next.openThread === true };
  if (thread.from !== thread.to) changes.push({ setting: 'thread', ...thread });
  const publish = { from: previous.publish === true, to: next.publish === true };
  if (publish.from !== publish.to) changes.push({ setting: 'publish', ...publish });
  const language = { from: previous.language ?? null, to: next.language ?? null };
  if (language.from !== language.to) changes.push({ setting: 'language', ...language });
  const quiz = { from: previous.quiz === true, to: next.quiz === true };
  if (quiz.from !== quiz.to) changes.push({ setting: 'quiz', ...quiz });
  return changes;
}

/** IANA zones for autocomplete: those whose name (or any part after a slash) starts with the typed text, then those that merely contain it. */
export function suggestTimeZones(typed: string, max: number): string[] {
  const query = typed.trim().toLowerCase().replace(/\s+/g, '_');
  const zones = knownTimeZones();
  if (query === '') return zones.slice(0, max);
  const starts: string[] = [];
  const contains: string[] = [];
  for (const zone of zones) {
    const lower = zone.toLowerCase();
    if (lower.startsWith(query) || lower.split('/').some((part) => part.startsWith(query))) starts.push(zone);
    else if (lower.includes(query)) contains.push(zone);
  }
  return [...starts, ...contains].slice(0, max);
}
