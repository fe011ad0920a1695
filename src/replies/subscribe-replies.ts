import type { IsoDate } from '../wotd/dates.ts';
import { pausedAt, WEEKDAYS, WEEKENDS, type Weekday } from '../schedule/post-rules.ts';
import type { SubscriptionSettings } from '../schedule/subscription-service.ts';
import type { Subscription } from '../schedule/subscription.ts';
import { colourText } from '../schedule/post-shape.ts';
import { localDateOf } from '../schedule/zoned-time.ts';
import { clip, escapeText } from './embeds.ts';
import { catalogLocaleOf } from './i18n/locales.ts';
import type { MessageKey, Translate } from './i18n/translate.ts';
import { languageName } from './subscription-text.ts';
import { dateStyleText, partsText } from './look-options.ts';
import { POST_PARTS } from '../schedule/post-look.ts';
import { webhookIdentityText, webhookSummary } from './webhook-options.ts';

/**
 * What /wotd-subscribe and /wotd-subscriptions say about a subscription's settings, days, pause and skip, in the
 * reader's language: the summary, what changed from what to what, and the state line.
 */

/** Monday 2024-01-01: the reference week for weekday names. */
const REFERENCE_MONDAY = Date.UTC(2024, 0, 1);

function weekdayName(day: Weekday, locale: string): string {
  return new Intl.DateTimeFormat(catalogLocaleOf(locale), { weekday: 'short', timeZone: 'UTC' }).format(REFERENCE_MONDAY + (day - 1) * 86_400_000);
}

/** `every day`, `on weekdays`, `at weekends` or `on Mon, Wed and Fri`, in the reader's language. */
export function daysPhrase(days: readonly Weekday[], t: Translate, locale: string | undefined): string {
  const key = days.join(',');
  if (days.length === 7) return t('subscribe.days', { kind: 'every', list: '' });
  if (key === WEEKDAYS.join(',')) return t('subscribe.days', { kind: 'weekdays', list: '' });
  if (key === WEEKENDS.join(',')) return t('subscribe.days', { kind: 'weekends', list: '' });
  const catalog = catalogLocaleOf(locale);
  const list = new Intl.ListFormat(catalog, { type: 'conjunction', style: 'long' }).format(days.map((day) => weekdayName(day, catalog)));
  return t('subscribe.days', { kind: 'list', list });
}

/** A local day as the reader writes dates (`Tue, Dec 1, 2026`). */
export function dayText(day: IsoDate, locale: string | undefined): string {
  return new Intl.DateTimeFormat(catalogLocaleOf(locale), { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', timeZone: 'UTC' }).format(
    Date.parse(`${day}T00:00:00Z`),
  );
}

export interface Mentions {
  /** A role as the reader sees it: `<@&id>` on Discord (pinging nobody in a private reply), `@name` at the console. */
  role(roleId: string): string;
  /** A channel as the reader sees it: `<#id>` on Discord, `#name` at the console. */
  channel(channelId: string): string;
}

/** An intro line as a setting's value: quoted, short and inert. */
export function introText(intro: string, t: Translate): string {
  return t('subscribe.value.intro', { intro: escapeText(clip(intro, 60)) });
}

/** The settings, as said after "Subscribed #words:": days, time, zone, style, role, thread, publishing, language, quiz, colour, intro, notices. */
export function settingsSummary(settings: SubscriptionSettings, t: Translate, locale: string | undefined, mentions: Mentions, zoneNote = ''): string {
  const extras = [
    settings.style === 'compact' ? t('subscribe.extra.compact') : '',
    settings.roleId ? t('subscribe.extra.role', { role: mentions.role(settings.roleId) }) : '',
    settings.openThread ? t('subscribe.extra.thread') : '',
    settings.publish ? t('subscribe.extra.publish') : '',
    settings.language ? t('subscribe.extra.language', { language: languageName(settings.language, t) }) : '',
    settings.quiz ? t('subscribe.extra.quiz') : '',
    settings.colour !== null ? t('subscribe.extra.colour', { colour: colourText(settings.colour) }) : '',
    settings.intro !== null ? t('subscribe.extra.intro', { intro: introText(settings.intro, t) }) : '',
    settings.parts.length < POST_PARTS.length ? t('subscribe.extra.parts', { parts: partsText(settings.parts, t) }) : '',
    settings.dateStyle !== null ? t('subscribe.extra.dateStyle', { style: dateStyleText(settings.dateStyle, t) }) : '',
    settings.noticeChannelId ? t('subscribe.extra.notices', { channel: mentions.channel(settings.noticeChannelId) }) : '',
    settings.forumTag ? t('subscribe.extra.forumTag', { tag: escapeText(settings.forumTag.name) }) : '',
    settings.pin ? t('subscribe.extra.pin') : '',
    webhookSummary(settings, t),
  ].join('');
  return t('subscribe.summary', { days: daysPhrase(settings.days, t, locale), time: settings.time, zone: `${settings.timeZone}${zoneNote}`, extras });
}

type Changeable = keyof SubscriptionSettings | 'pause' | 'skip';

const SETTING_KEYS: Record<Changeable, MessageKey> = {
  time: 'subscribe.setting.time',
  timeZone: 'subscribe.setting.timeZone',
  roleId: 'subscribe.setting.role',
  style: 'subscribe.setting.style',
  openThread: 'subscribe.setting.thread',
  publish: 'subscribe.setting.publish',
  days: 'subscribe.setting.days',
  language: 'subscribe.setting.language',
  quiz: 'subscribe.setting.quiz',
  noticeChannelId: 'subscribe.setting.notices',
  colour: 'subscribe.setting.colour',
  intro: 'subscribe.setting.intro',
  parts: 'subscribe.setting.parts',
  dateStyle: 'subscribe.setting.dateStyle',
  forumTag: 'subscribe.setting.forumTag',
  pin: 'subscribe.setting.pin',
  webhookName: 'subscribe.setting.webhookName',
  webhookAvatar: 'subscribe.setting.webhookAvatar',
  pause: 'subscribe.setting.pause',
  skip: 'subscribe.setting.skip',
};

export interface SettingChange {
  setting: Changeable;
  from: string;
  to: string;
}

/** How a pause reads in a change ("none", "until resumed", "until Tue, Dec 1, 2026"). */
function pauseValue(subscription: Subscription, at: Date, t: Translate, locale: string | undefined): string {
  const paused = pausedAt({ timeZone: subscription.timeZone, pause: subscription.pause }, at);
  if (!paused) return t('subscribe.value.none');
  return paused.until ? t('subscribe.value.until', { day: dayText(paused.until, locale) }) : t('subscribe.value.untilResumed');
}

/** Every setting, pause and skip that differs between the saved subscription and the new one, as the reader reads them. */
export function settingChanges(
  previous: { settings: SubscriptionSettings; subscription: Subscription },
  next: { settings: SubscriptionSettings; subscription: Subscription },
  at: Date,
  t: Translate,
  locale: string | undefined,
  mentions: Mentions,
): SettingChange[] {
  const value = (setting: keyof SubscriptionSettings, settings: SubscriptionSettings): string => {
    const raw = settings[setting];
    if (setting === 'days') return daysPhrase(settings.days, t, locale);
    if (setting === 'language') return languageName(settings.language, t);
    if (setting === 'colour') return settings.colour === null ? t('subscribe.value.default') : colourText(settings.colour);
    if (setting === 'intro') return settings.intro === null ? t('subscribe.value.none') : introText(settings.intro, t);
    if (setting === 'parts') return partsText(settings.parts, t);
    if (setting === 'dateStyle') return dateStyleText(settings.dateStyle, t);
    if (setting === 'webhookName') return settings.webhookName === null ? t('subscribe.value.none') : webhookIdentityText(settings.webhookName, null, t);
    if (setting === 'webhookAvatar') return settings.webhookAvatar === null ? t('subscribe.value.default') : `<${settings.webhookAvatar}>`;
    if (setting === 'style') return t(settings.style === 'compact' ? 'subscribe.value.compact' : 'subscribe.value.full');
    if (setting === 'forumTag') return settings.forumTag ? escapeText(settings.forumTag.name) : t('subscribe.value.none');
    if (typeof raw === 'boolean') return t(raw ? 'subscribe.value.on' : 'subscribe.value.off');
    if (raw === null) return t('subscribe.value.none');
    if (setting === 'roleId') return mentions.role(String(raw));
    return setting === 'noticeChannelId' ? mentions.channel(String(raw)) : String(raw);
  };
  const changes: SettingChange[] = [];
  for (const setting of ['time', 'timeZone', 'days', 'roleId', 'style', 'openThread', 'publish', 'colour', 'intro', 'parts', 'dateStyle', 'noticeChannelId', 'language', 'quiz', 'forumTag', 'pin', 'webhookName', 'webhookAvatar'] as const) {
    const from = value(setting, previous.settings);
    const to = value(setting, next.settings);
    if (from !== to) changes.push({ setting, from, to });
  }
  // The pause as it stood just before the change, against the one after (a resume ends it now).
  const pauseFrom = pauseValue(previous.subscription, at, t, locale);
  const pauseTo = pauseValue(next.subscription, at, t, locale);
  if (pauseFrom !== pauseTo) changes.push({ setting: 'pause', from: pauseFrom, to: pauseTo });
  const skipOf = (subscription: Subscription): string =>
    subscription.skipDay && subscription.skipDay >= today(subscription, at) ? dayText(subscription.skipDay, locale) : t('subscribe.value.none');
  const skipFrom = skipOf(previous.subscription);
  const skipTo = skipOf(next.subscription);
  if (skipFrom !== skipTo) changes.push({ setting: 'skip', from: skipFrom, to: skipTo });
  return changes;
}

function today(subscription: Subscription, at: Date): IsoDate {
  return localDateOf(at, subscription.timeZone);
}

/** "Changed: the time from 09:00 to 07:30, the role from none to @readers." or that nothing changed. */
export function changesText(changes: SettingChange[], reEnabled: boolean, t: Translate): string {
  if (changes.length === 0) return t(reEnabled ? 'subscribe.asBefore' : 'subscribe.unchanged');
  const said = changes.map((change) => t('subscribe.change', { setting: t(SETTING_KEYS[change.setting]), from: change.from, to: change.to }));
  return t('subscribe.changed', { changes: said.join(t('subscribe.listSeparator')) });
}

/**
 * The subscription's pause and skip as a status: "paused until Tue, Dec 1, 2026", "paused until resumed",
 * "skipping the post of Sat, Nov 28, 2026"; empty when neither holds at `at`.
 */
export function pauseState(subscription: Subscription, at: Date, t: Translate, locale: string | undefined): string {
  const paused = pausedAt({ timeZone: subscription.timeZone, pause: subscription.pause }, at);
  const parts: string[] = [];
  if (paused) parts.push(paused.until ? t('subscribe.state.pausedUntil', { day: dayText(paused.until, locale) }) : t('subscribe.state.paused'));
  if (subscription.skipDay && subscription.skipDay >= today(subscription, at)) {
    parts.push(t('subscribe.state.skipping', { day: dayText(subscription.skipDay, locale) }));
  }
  return parts.join(t('subscribe.listSeparator'));
}
