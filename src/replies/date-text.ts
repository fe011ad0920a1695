import { addDays, parseAnyDate, type IsoDate } from '../wotd/dates.ts';

/** What a date option said, read the way people type dates. */
export type DateOption =
  | { kind: 'date'; date: IsoDate }
  /** Not a date we can read; `realDay` is false when it has the right shape but names no real day (31-02-2025). */
  | { kind: 'invalid'; text: string; realDay: false | null }
  /** A day after the service's today: its word is not revealed yet. */
  | { kind: 'future'; date: IsoDate };

const DATE_SHAPE = /^(\d{4}-\d{2}-\d{2}|\d{2}-\d{2}-\d{4})$/;

/**
 * Reads a date option: YYYY-MM-DD, DD-MM-YYYY, `today` or `yesterday` (any case, spaces ignored).
 * An absent or blank option means today; today is the service's UTC date.
 */
export function readDateOption(text: string | null, today: IsoDate): DateOption {
  const trimmed = (text ?? '').trim();
  const word = trimmed.toLowerCase();
  if (word === '' || word === 'today') return { kind: 'date', date: today };
  if (word === 'yesterday') return { kind: 'date', date: addDays(today, -1) };
  const date = parseAnyDate(trimmed);
  if (!date) return { kind: 'invalid', text: trimmed, realDay: DATE_SHAPE.test(trimmed) ? false : null };
  if (date > today) return { kind: 'future', date };
  return { kind: 'date', date };
}

/**
 * Days ahead for which a future day's reveal is worth a countdown ("in 5 hours"). Further ahead the honest answer is
 * that the service has no word for it yet: its list may not reach that far, and "revealed in 72 years" promises
 * nothing anyone can use.
 */
export const REVEAL_COUNTDOWN_DAYS = 7;

/** Whether `date`, a day after `today`, is near enough for a countdown to its reveal. */
export function revealedSoon(date: IsoDate, today: IsoDate): boolean {
  return date <= addDays(today, REVEAL_COUNTDOWN_DAYS);
}

const LONG_DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/** "14 January 2025": a date as people read it, never ambiguous between day and month. */
export function describeDate(date: IsoDate): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const instant = new Date(Date.UTC(year, month - 1, day));
  instant.setUTCFullYear(year);
  return LONG_DATE.format(instant);
}

/** The instant a day's word is revealed: midnight UTC at the start of that day. */
export function revealInstant(date: IsoDate): Date {
  return new Date(`${date}T00:00:00.000Z`);
}

/** A Discord timestamp tag, shown in each reader's own time zone (`R` relative, `f` date and time). */
export function discordTimestamp(instant: Date, style: 'R' | 'f' | 'F' | 'D' | 't' = 'R'): string {
  return `<t:${Math.ceil(instant.getTime() / 1000)}:${style}>`;
}
