import { z } from 'zod';
import { addDays, type IsoDate } from '../wotd/dates.ts';
import { isoDateSchema } from '../wotd/entry.ts';
import { localDateOf } from './zoned-time.ts';

/**
 * Which local days a subscription posts on, beyond its time and zone: the days of the week it chose, a pause (until
 * resumed or until a date) and one skipped post. Pure functions of the stored subscription, a slot and the time:
 * due.ts applies them, so everything that asks due.ts when a post is owed (the scheduler, the overview, a due-time
 * index) follows them.
 *
 * A day that is not chosen, paused or skipped has no post at all: it is not "missed", so nothing is caught up for it.
 */

/** ISO weekdays: 1 Monday … 7 Sunday. */
export type Weekday = 1 | 2 | 3 | 4 | 5 | 6 | 7;

export const WEEKDAY_NAMES = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type WeekdayName = (typeof WEEKDAY_NAMES)[number];

export const EVERY_DAY: readonly Weekday[] = [1, 2, 3, 4, 5, 6, 7];
export const WEEKDAYS: readonly Weekday[] = [1, 2, 3, 4, 5];
export const WEEKENDS: readonly Weekday[] = [6, 7];

export const weekdaysSchema = z
  .array(z.number().int().min(1).max(7))
  .min(1)
  .max(7)
  .transform((days) => [...new Set(days)].sort((a, b) => a - b) as Weekday[]);

/**
 * A pause: posts whose instant falls at or after `at` are not made, until it ends: at `endedAt` (resumed), or with
 * the local day `until` (the first day that posts again), or never. A pause that ended stays recorded, so the
 * posts it covered are not caught up after a resume the same day.
 */
export const pauseSchema = z.object({
  at: z.string(),
  until: isoDateSchema.optional(),
  endedAt: z.string().optional(),
});
export type Pause = z.output<typeof pauseSchema>;

export interface PostRules {
  /** Absent: every day. */
  days?: Weekday[] | undefined;
  pause?: Pause | undefined;
  /** The local day whose post is skipped once. */
  skipDay?: IsoDate | undefined;
  timeZone: string;
}

export function weekdayOf(day: IsoDate): Weekday {
  const sunday0 = new Date(`${day}T00:00:00Z`).getUTCDay();
  return (sunday0 === 0 ? 7 : sunday0) as Weekday;
}

export function postsOnWeekday(rules: Pick<PostRules, 'days'>, day: IsoDate): boolean {
  return rules.days === undefined || rules.days.includes(weekdayOf(day));
}

/** Whether a pause covers a post made at `postAt` for local day `localDay`. */
export function pauseCovers(pause: Pause | undefined, localDay: IsoDate, postAt: Date): boolean {
  if (!pause) return false;
  const at = Date.parse(pause.at);
  if (!Number.isFinite(at) || postAt.getTime() < at) return false;
  if (pause.endedAt !== undefined) {
    const ended = Date.parse(pause.endedAt);
    return !Number.isFinite(ended) || postAt.getTime() < ended;
  }
  return pause.until === undefined || localDay < pause.until;
}

/** Whether the subscription is paused at `now` (so it posts nothing now), and until which local day if it says. */
export function pausedAt(rules: PostRules, now: Date): { until: IsoDate | null } | null {
  const { pause } = rules;
  if (!pause || pause.endedAt !== undefined) return null;
  if (pause.until !== undefined && localDateOf(now, rules.timeZone) >= pause.until) return null;
  return { until: pause.until ?? null };
}

/** Whether the slot of `localDay`, posted at `postAt`, is one the subscription posts. */
export function postsSlot(rules: PostRules, slot: { localDay: IsoDate; postAt: Date }): boolean {
  if (!postsOnWeekday(rules, slot.localDay)) return false;
  if (rules.skipDay === slot.localDay) return false;
  return !pauseCovers(rules.pause, slot.localDay, slot.postAt);
}

/**
 * How many local days ahead to look for the next post: a week covers any choice of days and a skipped post; a pause
 * until a date adds the days until then. Clamped, so a far date never makes a long loop.
 */
export function lookaheadDays(rules: PostRules, today: IsoDate): number {
  const until = rules.pause?.endedAt === undefined ? rules.pause?.until : undefined;
  const pausedDays = until && until > today ? Math.round((Date.parse(until) - Date.parse(today)) / 86_400_000) : 0;
  return Math.min(pausedDays, MAX_PAUSE_DAYS + 1) + 9;
}

/** The furthest a pause may be set ahead: a year. */
export const MAX_PAUSE_DAYS = 366;

/** The days choice as typed: `every`, `weekdays`, `weekends`, or days like `mon,wed,fri`; null when it is none of those. */
export function parseDays(text: string): Weekday[] | null {
  const typed = text.trim().toLowerCase();
  if (typed === 'every' || typed === 'everyday' || typed === 'every day' || typed === 'daily') return [...EVERY_DAY];
  if (typed === 'weekdays') return [...WEEKDAYS];
  if (typed === 'weekends') return [...WEEKENDS];
  const parts = typed.split(/[\s,]+/).filter(Boolean);
  if (parts.length === 0 || parts.length > 7) return null;
  const days = new Set<Weekday>();
  for (const part of parts) {
    const index = WEEKDAY_NAMES.findIndex((name) => part.length >= 3 && FULL_NAMES[name].startsWith(part));
    if (index === -1) return null;
    days.add((index + 1) as Weekday);
  }
  return [...days].sort((a, b) => a - b);
}

/** `tue`, `tues`, `tuesday`: any prefix of the full name of at least three letters. */
const FULL_NAMES: Record<WeekdayName, string> = {
  mon: 'monday',
  tue: 'tuesday',
  wed: 'wednesday',
  thu: 'thursday',
  fri: 'friday',
  sat: 'saturday',
  sun: 'sunday',
};

/** Stored form: every day is stored as nothing, so a subscription that never chose reads exactly as one that chose every day. */
export function storedDays(days: readonly Weekday[]): Weekday[] | undefined {
  return days.length === 7 ? undefined : [...days];
}

/** `every`, `weekdays`, `weekends` or `mon,wed,fri`. */
export function daysText(days: readonly Weekday[] | undefined): string {
  if (days === undefined || days.length === 7) return 'every';
  const key = days.join(',');
  if (key === WEEKDAYS.join(',')) return 'weekdays';
  if (key === WEEKENDS.join(',')) return 'weekends';
  return days.map((day) => WEEKDAY_NAMES[day - 1]).join(',');
}

/** A pause date as typed (YYYY-MM-DD), checked to be after today and within MAX_PAUSE_DAYS. */
export function checkPauseUntil(day: IsoDate, today: IsoDate): 'past' | 'too_far' | null {
  if (day <= today) return 'past';
  if (day > addDays(today, MAX_PAUSE_DAYS)) return 'too_far';
  return null;
}
