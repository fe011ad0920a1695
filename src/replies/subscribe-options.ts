import { parseIsoDate } from '../wotd/dates.ts';
import { checkPauseUntil, EVERY_DAY, MAX_PAUSE_DAYS, parseDays, WEEKDAYS, WEEKENDS, type Weekday } from '../schedule/post-rules.ts';
import { checkIntro, INTRO_PLACEHOLDERS, parseColour } from '../schedule/post-shape.ts';
import {
  DEFAULT_SETTINGS,
  settingsOf,
  type SettingName,
  type SubscribeRequest,
  type SubscriptionOverview,
} from '../schedule/subscription-service.ts';
import { POST_STYLES, type Subscription } from '../schedule/subscription.ts';
import { localDateOf } from '../schedule/zoned-time.ts';
import { discordTime } from './admin-replies.ts';
import type { CommandOptions } from './interactions.ts';
import { CATALOG_LOCALES, catalogLocaleOf, SOURCE_LOCALE, type CatalogLocale } from './i18n/locales.ts';
import { CATALOGS, type MessageKey, type Translate } from './i18n/translate.ts';
import { quoteInput } from './messages.ts';
import { parseSchedule } from './schedule-options.ts';
import { readLookOptions } from './look-options.ts';
import { changesText, pauseState, settingChanges, settingsSummary, type Mentions } from './subscribe-replies.ts';
import { addDays } from '../wotd/dates.ts';
import { readWebhookOptions } from './webhook-options.ts';

/** Reading /wotd-subscribe's options into a request that changes only what was given, and the answer to it. */

/** The names `reset` takes: the command's own option names, in English or in any catalog's words for them. */
const RESETTABLE: ReadonlyArray<{ key: MessageKey; setting: SettingName }> = [
  { key: 'option.time.name', setting: 'time' },
  { key: 'option.timezone.name', setting: 'timeZone' },
  { key: 'option.role.name', setting: 'roleId' },
  { key: 'option.style.name', setting: 'style' },
  { key: 'option.thread.name', setting: 'openThread' },
  { key: 'option.publish.name', setting: 'publish' },
  { key: 'option.days.name', setting: 'days' },
  { key: 'option.notices.name', setting: 'noticeChannelId' },
  { key: 'option.colour.name', setting: 'colour' },
  { key: 'option.intro.name', setting: 'intro' },
  { key: 'option.parts.name', setting: 'parts' },
  { key: 'option.dateStyle.name', setting: 'dateStyle' },
  { key: 'option.language.name', setting: 'language' },
  { key: 'option.quiz.name', setting: 'quiz' },
  { key: 'option.forumtag.name', setting: 'forumTag' },
  { key: 'option.pin.name', setting: 'pin' },
  { key: 'option.webhookName.name', setting: 'webhookName' },
  { key: 'option.webhookAvatar.name', setting: 'webhookAvatar' },
];

/** Case and accents aside: `rôle`, `Role` and `role` are one name. */
function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLocaleLowerCase();
}

/** A word every catalog has, folded, mapped to what it means: `role`, `rolle`, `rôle`, `ロール` → roleId. */
function wordsOf<T>(entries: ReadonlyArray<{ key: MessageKey; value: T }>): ReadonlyMap<string, T> {
  const words = new Map<string, T>();
  for (const { key, value } of entries) {
    for (const catalog of CATALOG_LOCALES) {
      const word = CATALOGS[catalog][key];
      if (word) words.set(fold(word), value);
    }
  }
  return words;
}

const RESET_WORDS = wordsOf<'all' | SettingName>([
  { key: 'subscribe.reset.all', value: 'all' },
  ...RESETTABLE.map(({ key, setting }) => ({ key, value: setting })),
]);

type Fields = Omit<SubscribeRequest, 'guildId' | 'channelId' | 'channelName' | 'userId' | 'roleId'>;

/**
 * The settings given (a setting not given is left undefined, so the saved one stays), the reset, pause and skip;
 * or the message that says which option is wrong and how to write it. The role is read by the command (it must not
 * be @everyone).
 */
export function readSubscribeOptions(
  options: CommandOptions,
  existing: Subscription | null,
  t: Translate,
  locale: string | undefined,
  now: Date,
): { ok: true; request: Fields; zoneNote: string } | { ok: false; message: string } {
  const base = existing ? settingsOf(existing) : DEFAULT_SETTINGS;
  const timeText = options.getString('time');
  const zoneText = options.getString('timezone');
  const schedule = parseSchedule(timeText ?? base.time, zoneText ?? base.timeZone, t);
  if (!schedule.ok) return schedule;
  const request: Fields = {};
  if (timeText !== null) request.time = schedule.time;
  if (zoneText !== null) request.timeZone = schedule.timeZone;

  const style = options.getString('style');
  const knownStyle = POST_STYLES.find((candidate) => candidate === style);
  if (knownStyle) request.style = knownStyle;
  const thread = options.getBoolean('thread');
  if (thread !== null) request.openThread = thread;
  const publish = options.getBoolean('publish');
  if (publish !== null) request.publish = publish;
  const pin = options.getBoolean('pin');
  if (pin !== null) request.pin = pin;

  const notices = options.getChannel('notices');
  if (notices) request.noticeChannelId = notices.id;

  const colourText = options.getString('colour');
  if (colourText !== null) {
    const colour = parseColour(colourText);
    if (colour === null) return { ok: false, message: t('subscribe.error.colour', { typed: quoteInput(colourText) }) };
    request.colour = colour;
  }

  const intro = options.getString('intro');
  if (intro !== null) {
    const problem = checkIntro(intro);
    if (problem?.problem === 'too_long') return { ok: false, message: t('subscribe.error.introLong', { limit: problem.limit, length: intro.length }) };
    if (problem?.problem === 'line_break') return { ok: false, message: t('subscribe.error.introLine') };
    if (problem?.problem === 'unknown_placeholder') {
      return { ok: false, message: t('subscribe.error.introPlaceholder', { name: quoteInput(problem.name), names: INTRO_PLACEHOLDERS.map((name) => `{${name}}`).join(t('common.listSeparator')) }) };
    }
    // An intro of spaces only is none.
    request.intro = intro.trim() === '' ? null : intro.trim();
  }

  const look = readLookOptions(options, t);
  if (!look.ok) return look;
  if (look.parts) request.parts = look.parts;
  if (look.dateStyle) request.dateStyle = look.dateStyle;
  const webhook = readWebhookOptions(options, t);
  if (!webhook.ok) return webhook;
  Object.assign(request, webhook.fields);

  const daysText = options.getString('days');
  if (daysText !== null) {
    const days = readDays(daysText, t, locale);
    if (!days) return { ok: false, message: t('subscribe.error.days', { typed: quoteInput(daysText) }) };
    request.days = days;
  }

  const resetText = options.getString('reset');
  if (resetText !== null) {
    const reset = parseReset(resetText);
    if (!reset) {
      const names = RESETTABLE.map(({ key }) => t(key)).join(t('common.listSeparator'));
      return { ok: false, message: t('subscribe.error.reset', { typed: quoteInput(resetText), all: t('subscribe.reset.all'), names }) };
    }
    request.reset = reset;
  }

  const pause = options.getBoolean('pause');
  const untilText = options.getString('until');
  if (untilText !== null) {
    if (pause === false) return { ok: false, message: t('subscribe.error.untilResume') };
    const until = parseIsoDate(untilText.trim());
    const zone = request.timeZone ?? base.timeZone;
    const today = localDateOf(now, zone);
    if (!until) return { ok: false, message: t('subscribe.error.until', { typed: quoteInput(untilText), example: addDays(today, 7) }) };
    const problem = checkPauseUntil(until, today);
    if (problem === 'past') return { ok: false, message: t('subscribe.error.untilPast', { day: until, today, zone }) };
    if (problem === 'too_far') return { ok: false, message: t('subscribe.error.untilFar', { days: MAX_PAUSE_DAYS, latest: addDays(today, MAX_PAUSE_DAYS) }) };
    request.pause = { until };
  } else if (pause === true) {
    request.pause = { until: null };
  } else if (pause === false) {
    request.pause = 'resume';
  }

  const skip = options.getBoolean('skip');
  if (skip !== null) request.skipNext = skip;
  return { ok: true, request, zoneNote: zoneText !== null ? schedule.zoneNote : '' };
}

const DAY_WORDS: ReadonlyArray<{ key: MessageKey; days: readonly Weekday[] }> = [
  { key: 'subscribe.daysWord.every', days: EVERY_DAY },
  { key: 'subscribe.daysWord.weekdays', days: WEEKDAYS },
  { key: 'subscribe.daysWord.weekends', days: WEEKENDS },
];

/** Monday 2024-01-01: the reference week for weekday names. */
const REFERENCE_MONDAY = Date.UTC(2024, 0, 1);
const dayNames = new Map<CatalogLocale, ReadonlyMap<string, Weekday>>();

/** A language's names for the days of the week, short and long, folded and without a closing dot: `mo`, `montag`. */
function dayNamesOf(catalog: CatalogLocale): ReadonlyMap<string, Weekday> {
  let names = dayNames.get(catalog);
  if (!names) {
    const found = new Map<string, Weekday>();
    for (const weekday of ['short', 'long'] as const) {
      const format = new Intl.DateTimeFormat(catalog, { weekday, timeZone: 'UTC' });
      for (let day = 1; day <= 7; day += 1) found.set(fold(format.format(REFERENCE_MONDAY + (day - 1) * 86_400_000)).replace(/\.$/, ''), day as Weekday);
    }
    names = found;
    dayNames.set(catalog, names);
  }
  return names;
}

/**
 * The `days` option, in English (`weekdays`, `mon,wed,fri`) or in the member's language (`werktags`, `mo,mi,fr`,
 * `月,水,金`): the words the catalog gives for every day, weekdays and weekends, or day names as Intl writes them,
 * short or long (a long one may be cut to three letters or more). Null for anything else.
 */
function readDays(text: string, t: Translate, locale: string | undefined): Weekday[] | null {
  const english = parseDays(text);
  if (english) return english;
  const typed = fold(text).trim().replace(/\s+/g, ' ');
  const word = DAY_WORDS.find(({ key }) => fold(t(key)) === typed);
  if (word) return [...word.days];
  const catalog = catalogLocaleOf(locale);
  if (catalog === SOURCE_LOCALE) return null;
  const names = dayNamesOf(catalog);
  const parts = typed.split(/[\s,、，;]+/).filter(Boolean);
  if (parts.length === 0 || parts.length > 7) return null;
  const days = new Set<Weekday>();
  for (const part of parts) {
    const name = part.replace(/\.$/, '');
    const prefixed = name.length >= 3 ? [...new Set([...names].filter(([full]) => full.startsWith(name)).map(([, day]) => day))] : [];
    const day = names.get(name) ?? (prefixed.length === 1 ? prefixed[0] : undefined) ?? singleEnglishDay(part);
    if (day === undefined) return null;
    days.add(day);
  }
  return [...days].sort((a, b) => a - b);
}

function singleEnglishDay(part: string): Weekday | undefined {
  const days = parseDays(part);
  return days?.length === 1 ? days[0] : undefined;
}

/** `all`, or names of settings (`role,days`, `rolle, tage`). Null for anything else. */
function parseReset(text: string): 'all' | SettingName[] | null {
  const parts = fold(text).split(/[\s,、，]+/).filter(Boolean);
  if (parts.length === 0) return null;
  const names: SettingName[] = [];
  for (const part of parts) {
    const name = RESET_WORDS.get(part);
    if (name === undefined) return null;
    if (name === 'all') return parts.length === 1 ? 'all' : null;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

export interface SubscribeAnswerInput {
  subscription: Subscription;
  previous: Subscription | null;
  overview: SubscriptionOverview | undefined;
  /** The channel as the reply names it. */
  where: string;
  locale: string | undefined;
  t: Translate;
  mentions: Mentions;
  now: Date;
  /** What a zone typed under another name means (", which is what CET means"), said after the stored zone. */
  zoneNote?: string;
}

/**
 * "Subscribed #words: the word of the day on weekdays at 07:30 (Europe/Paris). Next post: …", or for a subscription
 * that existed, "Updated …" with what changed from what to what (or that nothing did), then its pause or skip.
 */
export function subscribeAnswer(input: SubscribeAnswerInput): string {
  const { subscription, previous, overview, t, locale, mentions } = input;
  const { now } = input;
  const settings = settingsOf(subscription);
  const outcome = previous === null ? 'new' : previous.status.state !== 'active' ? 'reenabled' : 'updated';
  const parts = [t('subscribe.done', { outcome, channel: input.where, summary: settingsSummary(settings, t, locale, mentions, input.zoneNote) })];
  if (previous) {
    const changes = settingChanges({ settings: settingsOf(previous), subscription: previous }, { settings, subscription }, now, t, locale, mentions);
    parts.push(changesText(changes, outcome === 'reenabled', t));
  }
  const state = pauseState(subscription, now, t, locale);
  if (state) parts.push(t('subscribe.state', { state }));
  if (overview?.dueNow) parts.push(t('subscribe.dueNow'));
  else if (overview?.nextPostAt) parts.push(t('subscribe.next', { when: discordTime(overview.nextPostAt) }));
  return parts.join(' ');
}

