import { addDays, parseAnyDate, type IsoDate } from '../wotd/dates.ts';
import { longDate } from './i18n/formats.ts';
import { CATALOGS } from './i18n/translate.ts';

/** What a date option said, read the way people type dates. */
export type DateOption =
  | { kind: 'date'; date: IsoDate }
  /** Not a date we can read; `realDay` is false when it has the right shape but names no real day (31-02-2025). */
  | { kind: 'invalid'; text: string; realDay: false | null }
  /** A day after the service's today: its word is not revealed yet. */
  | { kind: 'future'; date: IsoDate };

const DATE_SHAPE = /^(\d{4}-\d{2}-\d{2}|\d{2}-\d{2}-\d{4})$/;

/** A word for today or yesterday as typed: lower case, apostrophes alike, no spaces. */
function dayWord(text: string): string {
  return text.normalize('NFC').toLocaleLowerCase().replace(/[\u2019']/g, "'").replace(/\s+/g, '');
}

/**
 * The words for today and yesterday in every catalog, so a member may type theirs whatever language their client
 * or the server is set to (a German member in a French server may write `heute` or `aujourd’hui`).
 */
const DAY_WORDS: ReadonlyMap<string, 0 | -1> = new Map(
  Object.values(CATALOGS).flatMap((catalog) => {
    const words: Array<[string, 0 | -1]> = [];
    if (catalog['date.word.today']) words.push([dayWord(catalog['date.word.today']), 0]);
    if (catalog['date.word.yesterday']) words.push([dayWord(catalog['date.word.yesterday']), -1]);
    return words;
  }),
);

/**
 * Reads a date option: YYYY-MM-DD, DD-MM-YYYY, `today` or `yesterday`, or those two words in any of the bot's
 * languages (any case, spaces ignored). An absent or blank option means today; today is the service's UTC date.
 */
export function readDateOption(text: string | null, today: IsoDate): DateOption {
  const trimmed = (text ?? '').trim();
  if (trimmed === '') return { kind: 'date', date: today };
  // A date first: it is what members type most, and no word for a day is written in digits (dayWord, which
  // normalizes the text, costs more than the date).
  const date = parseAnyDate(trimmed);
  if (!date) {
    const offset = DAY_WORDS.get(dayWord(trimmed));
    if (offset !== undefined) return { kind: 'date', date: addDays(today, offset) };
    return { kind: 'invalid', text: trimmed, realDay: DATE_SHAPE.test(trimmed) ? false : null };
  }
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

/** "14 January 2025" (in English; the locale's own long date otherwise): never ambiguous between day and month. */
export function describeDate(date: IsoDate, locale?: string | null): string {
  return longDate(date, locale);
}

/** The instant a day's word is revealed: midnight UTC at the start of that day. */
export function revealInstant(date: IsoDate): Date {
  return new Date(`${date}T00:00:00.000Z`);
}

/** A Discord timestamp tag, shown in each reader's own time zone (`R` relative, `f` date and time). */
export function discordTimestamp(instant: Date, style: 'R' | 'f' | 'F' | 'D' | 't' = 'R'): string {
  return `<t:${Math.ceil(instant.getTime() / 1000)}:${style}>`;
}
