/** A calendar date written YYYY-MM-DD. Every date inside the bot is one of these. */
export type IsoDate = string;

/** The service's two wire formats: A writes YYYY-MM-DD, B writes DD-MM-YYYY. */
export type Variant = 'A' | 'B';

const ISO_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const DMY_PATTERN = /^(\d{2})-(\d{2})-(\d{4})$/;
const DAY_MS = 86_400_000;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** Whether year-month-day names a real day of the (proleptic Gregorian) calendar, as Date reckons it. */
function isCalendarDay(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  return day <= (month === 2 && isLeapYear(year) ? 29 : (DAYS_IN_MONTH[month - 1] ?? 0));
}

/** The number written by `count` ASCII digits of `text` from `start`, or -1 when one of them is not a digit. */
function digitsAt(text: string, start: number, count: number): number {
  let value = 0;
  for (let i = start; i < start + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/*
 * Read character by character rather than by regular expression and Date: a date option, a cache key's day and a
 * history page's days are read on nearly every command (bench:commands). The patterns above say the same.
 */

/** A YYYY-MM-DD string that names a real calendar day, or null. */
export function parseIsoDate(text: string): IsoDate | null {
  if (text.length !== 10 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return null;
  // Written as it was read: four digits of year, two of month and day are already the IsoDate's own form.
  return isCalendarDay(digitsAt(text, 0, 4), digitsAt(text, 5, 2), digitsAt(text, 8, 2)) ? text : null;
}

/** A DD-MM-YYYY string that names a real calendar day, as an IsoDate, or null. */
export function parseDmyDate(text: string): IsoDate | null {
  if (text.length !== 10 || text.charCodeAt(2) !== 45 || text.charCodeAt(5) !== 45) return null;
  if (!isCalendarDay(digitsAt(text, 6, 4), digitsAt(text, 3, 2), digitsAt(text, 0, 2))) return null;
  return `${text.slice(6, 10)}-${text.slice(3, 5)}-${text.slice(0, 2)}`;
}

/** Either written form, as people type dates: YYYY-MM-DD or DD-MM-YYYY. */
export function parseAnyDate(text: string): IsoDate | null {
  const trimmed = text.trim();
  return parseIsoDate(trimmed) ?? parseDmyDate(trimmed);
}

export function parseWireDate(text: string, variant: Variant): IsoDate | null {
  return variant === 'A' ? parseIsoDate(text) : parseDmyDate(text);
}

/** How the variant writes a date, for messages: YYYY-MM-DD or DD-MM-YYYY. */
export function wireFormat(variant: Variant): string {
  return variant === 'A' ? 'YYYY-MM-DD' : 'DD-MM-YYYY';
}

/** Digits and dashes where the variant puts them, whether or not they name a real day. */
export function hasWireShape(text: string, variant: Variant): boolean {
  return (variant === 'A' ? ISO_PATTERN : DMY_PATTERN).test(text);
}

export function toWireDate(date: IsoDate, variant: Variant): string {
  if (variant === 'A') return date;
  const [year, month, day] = date.split('-');
  return `${day}-${month}-${year}`;
}

/** Which variant wrote this date, or null when it is neither. */
export function detectVariant(text: string): Variant | null {
  if (parseIsoDate(text)) return 'A';
  if (parseDmyDate(text)) return 'B';
  return null;
}

/** The last day written and its instants [from, to): asked for today on every command, it is written once a day. */
let lastDay: { from: number; to: number; date: IsoDate } | undefined;

/** The UTC calendar date of an instant: the service's notion of "today". */
export function utcDateOf(instant: Date): IsoDate {
  const ms = instant.getTime();
  const last = lastDay;
  if (last && ms >= last.from && ms < last.to) return last.date;
  const date = instant.toISOString().slice(0, 10);
  const from = Math.floor(ms / DAY_MS) * DAY_MS;
  lastDay = { from, to: from + DAY_MS, date };
  return date;
}

/** Days since 1970-01-01 of a well-formed day (Howard Hinnant's days_from_civil); Date for anything else. */
function toEpochDay(date: IsoDate): number {
  const year = digitsAt(date, 0, 4);
  const month = digitsAt(date, 5, 2);
  const day = digitsAt(date, 8, 2);
  if (date.length !== 10 || !isCalendarDay(year, month, day)) return toEpochDayByDate(date);
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function toEpochDayByDate(date: IsoDate): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const instant = new Date(Date.UTC(year, month - 1, day));
  instant.setUTCFullYear(year);
  return Math.round(instant.getTime() / DAY_MS);
}

const twoDigits = (value: number): string => (value < 10 ? `0${value}` : String(value));

/**
 * The day so many days after 1970-01-01 (Hinnant's civil_from_days), as Date would write it: days of years 1 to
 * 9999 without one, the rest through Date. Not utcDateOf: its remembered day is today's, which these would replace.
 */
function isoOfEpochDay(epochDay: number): IsoDate {
  const z = epochDay + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (!Number.isSafeInteger(epochDay) || year < 1 || year > 9999) return new Date(epochDay * DAY_MS).toISOString().slice(0, 10);
  return `${String(year).padStart(4, '0')}-${twoDigits(month)}-${twoDigits(day)}`;
}

export function addDays(date: IsoDate, days: number): IsoDate {
  return isoOfEpochDay(toEpochDay(date) + days);
}

/** The `count` days before `date`, newest first (addDays(date, -1), addDays(date, -2), …, read once). */
export function daysBefore(date: IsoDate, count: number): IsoDate[] {
  const start = toEpochDay(date);
  const days: IsoDate[] = [];
  for (let back = 1; back <= count; back++) days.push(isoOfEpochDay(start - back));
  return days;
}

/** Whole days from `from` to `to` (positive when `to` is later). */
export function daysBetween(from: IsoDate, to: IsoDate): number {
  return toEpochDay(to) - toEpochDay(from);
}
