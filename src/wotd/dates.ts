/** A calendar date written YYYY-MM-DD. Every date inside the bot is one of these. */
export type IsoDate = string;

/** The service's two wire formats: A writes YYYY-MM-DD, B writes DD-MM-YYYY. */
export type Variant = 'A' | 'B';

const ISO_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const DMY_PATTERN = /^(\d{2})-(\d{2})-(\d{4})$/;
const DAY_MS = 86_400_000;

function calendarDate(year: number, month: number, day: number): IsoDate | null {
  if (year < 1 || month < 1 || month > 12 || day < 1) return null;
  const probe = new Date(Date.UTC(year, month - 1, day));
  // Date.UTC maps years 0..99 to 1900..1999, so set the full year explicitly.
  probe.setUTCFullYear(year);
  if (probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** A YYYY-MM-DD string that names a real calendar day, or null. */
export function parseIsoDate(text: string): IsoDate | null {
  const match = ISO_PATTERN.exec(text);
  if (!match) return null;
  return calendarDate(Number(match[1]), Number(match[2]), Number(match[3]));
}

/** A DD-MM-YYYY string that names a real calendar day, as an IsoDate, or null. */
export function parseDmyDate(text: string): IsoDate | null {
  const match = DMY_PATTERN.exec(text);
  if (!match) return null;
  return calendarDate(Number(match[3]), Number(match[2]), Number(match[1]));
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

/** The UTC calendar date of an instant: the service's notion of "today". */
/** The last day written and its instants [from, to): asked for today on every command, it is written once a day. */
let lastDay: { from: number; to: number; date: IsoDate } | undefined;

export function utcDateOf(instant: Date): IsoDate {
  const ms = instant.getTime();
  const last = lastDay;
  if (last && ms >= last.from && ms < last.to) return last.date;
  const date = instant.toISOString().slice(0, 10);
  const from = Math.floor(ms / DAY_MS) * DAY_MS;
  lastDay = { from, to: from + DAY_MS, date };
  return date;
}

function toEpochDay(date: IsoDate): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const instant = new Date(Date.UTC(year, month - 1, day));
  instant.setUTCFullYear(year);
  return Math.round(instant.getTime() / DAY_MS);
}

export function addDays(date: IsoDate, days: number): IsoDate {
  return utcDateOf(new Date((toEpochDay(date) + days) * DAY_MS));
}

/** The `count` days before `date`, newest first (addDays(date, -1), addDays(date, -2), …, read once). */
export function daysBefore(date: IsoDate, count: number): IsoDate[] {
  const start = toEpochDay(date);
  return Array.from({ length: count }, (_, i) => utcDateOf(new Date((start - (i + 1)) * DAY_MS)));
}

/** Whole days from `from` to `to` (positive when `to` is later). */
export function daysBetween(from: IsoDate, to: IsoDate): number {
  return toEpochDay(to) - toEpochDay(from);
}
