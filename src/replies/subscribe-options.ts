import { parseIsoDate } from '../wotd/dates.ts';
import { checkPauseUntil, MAX_PAUSE_DAYS, parseDays } from '../schedule/post-rules.ts';
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
import { translatorFor, type Translate } from './i18n/translate.ts';
import { quoteInput } from './messages.ts';
import { parseSchedule } from './schedule-options.ts';
import { changesText, pauseState, settingChanges, settingsSummary, type Mentions } from './subscribe-replies.ts';
import { addDays } from '../wotd/dates.ts';

/** Reading /wotd-subscribe's options into a request that changes only what was given, and the answer to it. */

const english = translatorFor('en');

/** The option descriptions Discord shows (in English; their translations are the catalogs' `subscribe.option.*`). */
export const SUBSCRIBE_OPTION_TEXT = {
  days: english('subscribe.option.days'),
  pause: english('subscribe.option.pause'),
  until: english('subscribe.option.until'),
  skip: english('subscribe.option.skip'),
  reset: english('subscribe.option.reset'),
  notices: english('subscribe.option.notices'),
  colour: english('subscribe.option.colour'),
  intro: english('subscribe.option.intro'),
};

/** The names `reset` takes: the command's own option names. */
const RESETTABLE: Readonly<Record<string, SettingName>> = {
  time: 'time',
  timezone: 'timeZone',
  role: 'roleId',
  style: 'style',
  thread: 'openThread',
  publish: 'publish',
  days: 'days',
  notices: 'noticeChannelId',
  colour: 'colour',
  intro: 'intro',
};

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
  now: Date,
): { ok: true; request: Fields } | { ok: false; message: string } {
  const base = existing ? settingsOf(existing) : DEFAULT_SETTINGS;
  const timeText = options.getString('time');
  const zoneText = options.getString('timezone');
  const schedule = parseSchedule(timeText ?? base.time, zoneText ?? base.timeZone);
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
      return { ok: false, message: t('subscribe.error.introPlaceholder', { name: quoteInput(problem.name), names: INTRO_PLACEHOLDERS.map((name) => `{${name}}`).join(', ') }) };
    }
    // An intro of spaces only is none.
    request.intro = intro.trim() === '' ? null : intro.trim();
  }

  const daysText = options.getString('days');
  if (daysText !== null) {
    const days = parseDays(daysText);
    if (!days) return { ok: false, message: t('subscribe.error.days', { typed: quoteInput(daysText) }) };
    request.days = days;
  }

  const resetText = options.getString('reset');
  if (resetText !== null) {
    const reset = parseReset(resetText);
    if (!reset) return { ok: false, message: t('subscribe.error.reset', { typed: quoteInput(resetText), names: Object.keys(RESETTABLE).join(', ') }) };
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
  return { ok: true, request };
}

/** `all`, or names of settings (`role,days`). Null for anything else. */
function parseReset(text: string): 'all' | SettingName[] | null {
  const typed = text.trim().toLowerCase();
  if (typed === 'all') return 'all';
  const parts = typed.split(/[\s,]+/).filter(Boolean);
  if (parts.length === 0) return null;
  const names: SettingName[] = [];
  for (const part of parts) {
    const name = RESETTABLE[part];
    if (!name) return null;
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
  const parts = [t('subscribe.done', { outcome, channel: input.where, summary: settingsSummary(settings, t, locale, mentions) })];
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

