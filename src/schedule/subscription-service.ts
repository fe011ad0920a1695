import { addDays, type IsoDate } from '../wotd/dates.ts';
import { currentSlot, dueSlot, nextPostTime, nextSlot, slotFor } from './due.ts';
import { POST_PARTS, storedParts, type DateStyle, type PostPart } from './post-look.ts';
import { EVERY_DAY, storedDays, type Weekday } from './post-rules.ts';
import { dmTarget, owesDmNotice, postStyleOf, type DeliveryReading, type ForumTag, type PostStyle, type Subscription } from './subscription.ts';
import type { SubscriptionStore } from './subscription-store.ts';
import type { UpsertResult } from './subscription-store/subscription-writes.ts';
import { knownTimeZones } from './zoned-time.ts';

/** What the admin commands ask of subscriptions; both transports hand commands the same one. */

/** The settings an admin chooses; any left out of a request keep their saved value (or the default, for a new one). */
export interface SubscriptionSettings {
  /** HH:MM, already validated with parseLocalTime. */
  time: string;
  /** A canonical IANA name, already validated with canonicalTimeZone. */
  timeZone: string;
  roleId: string | null;
  style: PostStyle;
  /** A thread on each post. */
  openThread: boolean;
  /** Publish each post to following servers, in an announcement channel. */
  publish: boolean;
  /** The days of the week it posts on (all seven: every day). */
  days: Weekday[];
  /** The posts' language, a Discord locale; null: the server's preferred locale at posting time, else English. */
  language: string | null;
  /** Each post a quiz (src/learning/). */
  quiz: boolean;
  /** Where the admin is told when posting stops and a DM cannot reach them (a channel of the same server), or none. */
  noticeChannelId: string | null;
  /** The embed's colour, 0xRRGGBB, or null for the bot's accent. */
  colour: number | null;
  /** A line above the embed with {word}, {date} and {role}, already checked (post-shape.ts), or null. */
  intro: string | null;
  /** The parts the embed shows besides the word (post-look.ts). */
  parts: PostPart[];
  /** How the post writes its date; null: today's look. */
  dateStyle: DateStyle | null;
  /** The tag each forum post gets (forum and media channels), or none. */
  forumTag: ForumTag | null;
  /** Pin each post and unpin the previous one (not in forums). */
  pin: boolean;
  /** The name posts show, through the bot's own webhook in the channel (webhook-identity.ts), or null: as the bot. */
  webhookName: string | null;
  /** The https avatar URL shown with that name, or null: the webhook's default. */
  webhookAvatar: string | null;
}

export type SettingName = keyof SubscriptionSettings;

export const DEFAULT_SETTINGS: Readonly<SubscriptionSettings> = {
  time: '09:00',
  timeZone: 'UTC',
  roleId: null,
  style: 'full',
  openThread: false,
  publish: false,
  days: [...EVERY_DAY],
  language: null,
  quiz: false,
  noticeChannelId: null,
  colour: null,
  intro: null,
  parts: [...POST_PARTS],
  dateStyle: null,
  forumTag: null,
  pin: false,
  webhookName: null,
  webhookAvatar: null,
};

/**
 * A subscribe command: the settings given (a setting left undefined was not given; `roleId: null` was given as "no
 * role"), the ones to reset, and a pause or skip.
 */
export interface SubscribeRequest extends Partial<SubscriptionSettings> {
  guildId: string;
  channelId: string;
  channelName: string;
  userId: string;
  /** The member's client language (a Discord locale): the notices about this subscription are written in it. */
  userLocale?: string;
  /** The channel is a forum or media channel (each day a new post there); not a setting: what the channel is. */
  forum?: boolean;
  /** Settings put back to their defaults (unless given): `all`, or the named ones. */
  reset?: 'all' | SettingName[];
  /** Pause (until the local day given, or until resumed), or resume. Left out: as it was. */
  pause?: { until: IsoDate | null } | 'resume';
  /** true: skip the next post; false: post it after all. */
  skipNext?: boolean;
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
  /** Each DM also says how many saved words are due for review. */
  review?: boolean;
}

/** DM subscriptions a member may have: one, changed by subscribing again. */
export const DM_SUBSCRIPTIONS_PER_USER = 1;

export interface SubscriptionService {
  readonly limit: number;
  /** The service's clock: replies about pauses and skips read "today" from it, as the service does. */
  now(): Date;
  subscribe(request: SubscribeRequest): Promise<UpsertResult>;
  /** The channel's subscription as saved, or null. */
  current(channelId: string): Promise<Subscription | null>;
  /**
   * The record a request would make of the saved one (for a preview): its settings, pause and skip; nothing saved.
   * `skipDay` is worked out from the saved subscription's next post.
   */
  draft(request: SubscribeRequest): Promise<Subscription>;
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
  /** False when takeDmNotice would surely find nothing, known without waiting on anything (after every command). */
  mayOweDmNoticeNow?(userId: string): boolean;
  /** The language a channel's subscription was given, for the public replies there; undefined when it has none. */
  languageOf?(channelId: string): Promise<string | undefined>;
  /** The same, when it was read recently enough to answer without the store; undefined when it was not. */
  cachedLanguageOf?(channelId: string): { language: string | undefined } | undefined;
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
    now,

    async subscribe(request) {
      const instant = now();
      const skipDay = request.skipNext === true ? await nextPostDay(store, request, instant) : undefined;
      return store.upsert(request.guildId, request.channelId, limit, (existing) =>
        subscriptionRecord(request, existing, instant.toISOString(), skipDay),
      );
    },

    current(channelId) {
      return store.get(channelId);
    },

    async draft(request) {
      const instant = now();
      const existing = await store.get(request.channelId);
      const skipDay = request.skipNext === true ? await nextPostDay(store, request, instant) : undefined;
      return subscriptionRecord(request, existing?.guildId === request.guildId ? existing : null, instant.toISOString(), skipDay);
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

    languageOf: (channelId) => store.languageOf(channelId),
    cachedLanguageOf: (channelId) => store.cachedLanguageOf(channelId),
    async subscribeDm(request) {
      const at = now().toISOString();
      const { guildId, channelId } = dmTarget(request.userId);
      // A member's DM subscription is one command's worth of options: those left out take their defaults.
      const channelRequest: SubscribeRequest = {
        guildId,
        channelId,
        channelName: 'DM',
        userId: request.userId,
        time: request.time,
        timeZone: request.timeZone,
        style: request.style ?? 'full',
        ...(request.language ? { language: request.language } : {}),
        reset: 'all',
      };
      return store.upsert(guildId, channelId, DM_SUBSCRIPTIONS_PER_USER, (existing) => ({
        ...subscriptionRecord(channelRequest, existing, at),
        ...(request.review ? { review: true } : {}),
      }));
    },

    unsubscribeDm(userId) {
      const { guildId, channelId } = dmTarget(userId);
      return store.remove(guildId, channelId);
    },

    async dm(userId) {
      const subscription = await store.get(dmTarget(userId).channelId);
      return subscription ? overviewOf(store, subscription, now()) : null;
    },

    mayOweDmNoticeNow: (userId) => store.mayOweDmNoticeNow(userId) !== false,
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

/** The delivery records of the service days around today's slot (yesterday's to the day after tomorrow's). */
async function recordsAround(store: SubscriptionStore, subscription: Subscription, instant: Date): Promise<Map<IsoDate, DeliveryReading | null>> {
  const today = currentSlot(subscription, instant);
  const days = new Set<IsoDate>([-1, 0, 1, 2].map((offset) => slotFor(subscription, addDays(today.localDay, offset)).serviceDay));
  const records = new Map<IsoDate, DeliveryReading | null>();
  for (const day of days) records.set(day, await store.getDelivery(subscription.channelId, day));
  return records;
}

async function overviewOf(store: SubscriptionStore, subscription: Subscription, instant: Date): Promise<SubscriptionOverview> {
  const today = currentSlot(subscription, instant);
  const records = await recordsAround(store, subscription, instant);
  const nextPostAt = nextPostTime(subscription, (day) => records.get(day) ?? null, instant);
  return {
    subscription,
    nextPostAt,
    dueNow: nextPostAt !== null && nextPostAt.getTime() <= instant.getTime(),
    lastDelivery: records.get(today.serviceDay) ?? null,
  };
}

/** The settings a stored subscription has (fields it lacks read as their defaults). */
export function settingsOf(subscription: Subscription): SubscriptionSettings {
  return {
    time: subscription.time,
    timeZone: subscription.timeZone,
    roleId: subscription.roleId,
    style: postStyleOf(subscription),
    openThread: subscription.openThread === true,
    publish: subscription.publish === true,
    days: subscription.days ?? [...EVERY_DAY],
    language: subscription.language ?? null,
    quiz: subscription.quiz === true,
    noticeChannelId: subscription.noticeChannelId ?? null,
    colour: subscription.colour ?? null,
    intro: subscription.intro ?? null,
    parts: subscription.parts ?? [...POST_PARTS],
    dateStyle: subscription.dateStyle ?? null,
    forumTag: subscription.forumTag ?? null,
    pin: subscription.pin === true,
    webhookName: subscription.webhookName ?? null,
    webhookAvatar: subscription.webhookAvatar ?? null,
  };
}

/** The settings a request makes: each given one, else the default where reset, else the saved one, else the default. */
export function requestedSettings(request: SubscribeRequest, existing: Subscription | null): SubscriptionSettings {
  const saved = existing ? settingsOf(existing) : DEFAULT_SETTINGS;
  const reset = request.reset ?? [];
  const pick = <K extends SettingName>(name: K): SubscriptionSettings[K] => {
    const given = request[name];
    if (given !== undefined) return given as SubscriptionSettings[K];
    return reset === 'all' || reset.includes(name) ? DEFAULT_SETTINGS[name] : saved[name];
  };
  return {
    time: pick('time'),
    timeZone: pick('timeZone'),
    roleId: pick('roleId'),
    style: pick('style'),
    openThread: pick('openThread'),
    publish: pick('publish'),
    days: pick('days'),
    language: pick('language'),
    quiz: pick('quiz'),
    noticeChannelId: pick('noticeChannelId'),
    colour: pick('colour'),
    intro: pick('intro'),
    parts: pick('parts'),
    dateStyle: pick('dateStyle'),
    forumTag: pick('forumTag'),
    pin: pick('pin'),
    webhookName: pick('webhookName'),
    webhookAvatar: pick('webhookAvatar'),
  };
}

/**
 * The record a subscribe request makes (or makes of the existing one): active, enabled now, the settings the request
 * gives on top of the saved ones, its pause or resume, and the skipped day (worked out by the caller).
 */
export function subscriptionRecord(request: SubscribeRequest, existing: Subscription | null, at: string, skipDay?: IsoDate): Subscription {
  const settings = requestedSettings(request, existing);
  const days = storedDays(settings.days);
  const parts = storedParts(settings.parts);
  let pause = existing?.pause;
  if (request.pause === 'resume') {
    if (pause && pause.endedAt === undefined) pause = { ...pause, endedAt: at };
  } else if (request.pause) {
    pause = { at, ...(request.pause.until ? { until: request.pause.until } : {}) };
  }
  const skip = request.skipNext === false ? undefined : (skipDay ?? existing?.skipDay);
  return {
    guildId: request.guildId,
    channelId: request.channelId,
    channelName: request.channelName,
    time: settings.time,
    timeZone: settings.timeZone,
    roleId: settings.roleId,
    createdBy: existing?.createdBy ?? request.userId,
    createdAt: existing?.createdAt ?? at,
    enabledAt: at,
    status: { state: 'active' },
    style: settings.style,
    ...(settings.openThread ? { openThread: true } : {}),
    ...(settings.publish ? { publish: true } : {}),
    ...(settings.language !== null ? { language: settings.language } : {}),
    ...(settings.quiz ? { quiz: true } : {}),
    ...(settings.quiz && existing?.quizCloses ? { quizCloses: existing.quizCloses } : {}),
    ...(days ? { days } : {}),
    ...(pause ? { pause } : {}),
    ...(skip ? { skipDay: skip } : {}),
    ...(settings.noticeChannelId ? { noticeChannelId: settings.noticeChannelId } : {}),
    ...(settings.colour !== null ? { colour: settings.colour } : {}),
    ...(settings.intro ? { intro: settings.intro } : {}),
    ...(parts ? { parts } : {}),
    ...(settings.dateStyle ? { dateStyle: settings.dateStyle } : {}),
    ...((request.forum ?? existing?.forum) === true ? { forum: true } : {}),
    ...(settings.forumTag ? { forumTag: settings.forumTag } : {}),
    ...(settings.pin ? { pin: true } : {}),
    ...(settings.webhookName ? { webhookName: settings.webhookName } : {}),
    ...(settings.webhookAvatar ? { webhookAvatar: settings.webhookAvatar } : {}),
    configuredBy: request.userId,
    ...(request.userLocale && request.userLocale.length >= 2 && request.userLocale.length <= 16 ? { configuredLocale: request.userLocale } : {}),
  };
}

/**
 * The local day of the post a "skip the next post" means: the one due now if it is still owed, else the next one
 * ahead, by the saved subscription's rules (or the request's time and zone for a new one). Null when none is ahead.
 */
async function nextPostDay(store: SubscriptionStore, request: SubscribeRequest, instant: Date): Promise<IsoDate | undefined> {
  const existing = await store.get(request.channelId);
  const draft = subscriptionRecord({ ...request, skipNext: false }, existing?.guildId === request.guildId ? existing : null, instant.toISOString());
  const records = await recordsAround(store, draft, instant);
  const record = (day: IsoDate) => records.get(day) ?? null;
  return (dueSlot(draft, record, instant) ?? nextSlot(draft, record, instant))?.localDay;
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
