import type { IsoDate } from '../wotd/dates.ts';

/**
 * Wall-clock arithmetic in IANA time zones with nothing but Intl.
 * A post time is a local "HH:MM"; these helpers turn (local day, HH:MM, zone) into an instant and back.
 */

export interface LocalTime {
  hour: number;
  minute: number;
}

const TIME_PATTERN = /^(\d{1,2}):(\d{2})$/;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** "9:05" or "09:05" → {hour: 9, minute: 5}; null for anything that is not a time of day. */
export function parseLocalTime(text: string): LocalTime | null {
  const match = TIME_PATTERN.exec(text.trim());
  if (!match) return null;
  const hour = Number(match[1]);
  const minute = Number(match[2]);
  if (hour > 23 || minute > 59) return null;
  return { hour, minute };
}

export function formatLocalTime(time: LocalTime): string {
  return `${String(time.hour).padStart(2, '0')}:${String(time.minute).padStart(2, '0')}`;
}

/** One formatter per zone name; Intl accepts a zone in any case, so the names are capped, not just the zones. */
const formatters = new Map<string, Intl.DateTimeFormat>();
const MAX_FORMATTERS = 2_000;

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    if (formatters.size >= MAX_FORMATTERS) formatters.clear();
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The canonical spelling of an IANA zone name ("europe/london" → "Europe/London"), or null when Intl does not know it. */
export function canonicalTimeZone(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > 64) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: trimmed }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

let zoneList: string[] | null = null;

/** Every zone name this runtime knows, UTC first. */
export function knownTimeZones(): string[] {
  zoneList ??= ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];
  return zoneList;
}

/** Two digits of `text` at `at` as a number (en-US writes every field but the year with two). */
function twoDigits(text: string, at: number): number {
  return (text.charCodeAt(at) - 48) * 10 + (text.charCodeAt(at + 1) - 48);
}

/** The wall clock in `timeZone` at `instant`, asked of Intl and written as if it were UTC (milliseconds). */
function intlWallClockMs(instant: number, timeZone: string): number {
  const formatter = formatterFor(timeZone);
  const date = new Date(instant);
  const text = formatter.format(date);
  const subSecond = (instant % 1000 + 1000) % 1000;
  // The common case, read without allocating: "MM/DD/YYYY, HH:MM:SS".
  if (text.length === 20 && text.charCodeAt(10) === 44) {
    const year = Number(text.slice(6, 10));
    return Date.UTC(year, twoDigits(text, 0) - 1, twoDigits(text, 3), twoDigits(text, 12), twoDigits(text, 15), twoDigits(text, 18)) + subSecond;
  }
  // Other years (fewer or more digits, or an era): read the parts one by one.
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(date)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const wall = new Date(Date.UTC(2000, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0));
  wall.setUTCFullYear(parts.year ?? 1970);
  return wall.getTime() + subSecond;
}

function intlOffsetMs(instant: number, timeZone: string): number {
  return intlWallClockMs(instant, timeZone) - instant;
}

/**
 * A zone's offsets over one UTC year: the offset at its first instant and each change after it.
 * Intl has no transition API, so the year is sampled every SAMPLE_MS and each difference is searched to the second
 * (every transition in tzdata is on a whole second). A change of offset that is undone within SAMPLE_MS would be
 * missed: the shortest periods since 1970 are Morocco's Ramadan months, about 30 days, and the generated property in
 * test/schedule/zoned-time-all-zones.test.ts scans every zone independently, every four days, from 2019-12 to 2038-01.
 */
interface YearOffsets {
  first: number;
  changes: Array<{ at: number; offset: number }>;
  max: number;
}

interface ZoneTables {
  years: Map<number, YearOffsets>;
  /** Per year: the largest offset of the years after it up to LAST_RULE_YEAR (see laterYearsMaxOffset). */
  laterMax: Map<number, number>;
}

const SAMPLE_MS = 14 * DAY_MS;
const SECOND_MS = 1000;
const HOUR_MS = 3_600_000;
/** Per zone, this many years of tables, then that zone's are cleared (a subscription only needs a few). */
const MAX_YEARS_PER_ZONE = 400;
const zoneTables = new Map<string, ZoneTables>();

function tablesOf(timeZone: string): ZoneTables {
  let tables = zoneTables.get(timeZone);
  if (!tables) {
    tables = { years: new Map(), laterMax: new Map() };
    if (zoneTables.size >= MAX_FORMATTERS) zoneTables.clear();
    zoneTables.set(timeZone, tables);
  }
  return tables;
}

/**
 * The first whole second in (lo, hi] where the offset is no longer `before`; lo and hi are whole seconds.
 * Transitions fall on whole hours (UTC) nearly always, so the search narrows to the hour first and tries its end.
 */
function changeBetween(lo: number, hi: number, before: number, timeZone: string): number {
  let step = hi - lo > HOUR_MS ? HOUR_MS : SECOND_MS;
  for (;;) {
    while (hi - lo > step) {
      const mid = lo + Math.floor((hi - lo) / (2 * step)) * step;
      if (intlOffsetMs(mid, timeZone) === before) lo = mid;
      else hi = mid;
    }
    if (step === SECOND_MS) return hi;
    // lo and hi are one step apart, on the same grid: is the change exactly at hi?
    if (intlOffsetMs(hi - SECOND_MS, timeZone) === before) return hi;
    step = SECOND_MS;
  }
}

function offsetsOfYear(year: number, timeZone: string): YearOffsets {
  const { years } = tablesOf(timeZone);
  const known = years.get(year);
  if (known) return known;
  const start = Date.UTC(year, 0, 1);
  const last = Date.UTC(year + 1, 0, 1) - SECOND_MS;
  const first = intlOffsetMs(start, timeZone);
  const changes: YearOffsets['changes'] = [];
  let max = first;
  let at = start;
  let offset = first;
  while (at < last) {
    const next = Math.min(at + SAMPLE_MS, last);
    const sampled = intlOffsetMs(next, timeZone);
    // More than one change may lie between two samples: find them one at a time from the left.
    let from = at;
    while (sampled !== offset) {
      const change = changeBetween(from, next, offset, timeZone);
      offset = intlOffsetMs(change, timeZone);
      changes.push({ at: change, offset });
      max = Math.max(max, offset);
      from = change;
    }
    at = next;
  }
  const table = { first, changes, max };
  if (years.size >= MAX_YEARS_PER_ZONE) years.clear();
  years.set(year, table);
  return table;
}

/** Years kept as tables; instants outside them (never a real subscription's) ask Intl directly. */
const FIRST_TABLE_YEAR = 1000;
const LAST_TABLE_YEAR = 9999;

/** The UTC year of `instant`, or null outside the table years. */
function utcYearOf(instant: number): number | null {
  const year = new Date(instant).getUTCFullYear();
  return year >= FIRST_TABLE_YEAR && year <= LAST_TABLE_YEAR ? year : null;
}

/** Offset from UTC in milliseconds at `instant` (positive east of Greenwich). */
export function utcOffsetMs(instant: number, timeZone: string): number {
  const year = utcYearOf(instant);
  if (year === null) return intlOffsetMs(instant, timeZone);
  const { first, changes } = offsetsOfYear(year, timeZone);
  let offset = first;
  for (const change of changes) {
    if (change.at > instant) break;
    offset = change.offset;
  }
  return offset;
}

/** The wall clock in `timeZone` at `instant`, written as if it were UTC (milliseconds). */
function wallClockMs(instant: number, timeZone: string): number {
  return instant + utcOffsetMs(instant, timeZone);
}

/** The local calendar day in `timeZone` at `instant`. */
export function localDateOf(instant: Date, timeZone: string): IsoDate {
  return new Date(wallClockMs(instant.getTime(), timeZone)).toISOString().slice(0, 10);
}

/** No zone is more than 15 hours from UTC, so every instant whose wall clock reads W lies within this of W. */
const REACH_MS = 16 * 3_600_000;

/** The offsets in force from `from` to `to`: the pieces [start, end) of time each with one offset, in order. */
function piecesBetween(from: number, to: number, timeZone: string): Array<{ start: number; end: number; offset: number }> {
  const pieces: Array<{ start: number; end: number; offset: number }> = [];
  let start = from;
  let offset = utcOffsetMs(from, timeZone);
  const firstYear = utcYearOf(from);
  const lastYear = utcYearOf(to);
  if (firstYear !== null && lastYear !== null) {
    for (let year = firstYear; year <= lastYear; year += 1) {
      for (const change of offsetsOfYear(year, timeZone).changes) {
        if (change.at <= from || change.at >= to) continue;
        pieces.push({ start, end: change.at, offset });
        start = change.at;
        offset = change.offset;
      }
    }
  }
  pieces.push({ start, end: to, offset });
  return pieces;
}

/** Local `day` at `time`, written as if it were UTC (milliseconds). */
function wallOf(day: IsoDate, time: LocalTime): number {
  return Date.parse(`${day}T00:00:00Z`) + (time.hour * 60 + time.minute) * MINUTE_MS;
}

/**
 * The first instant at which the wall clock in `timeZone` reads `time` on `day` or later.
 * So a time that falls in a gap is the first instant after the gap (02:30 on a night that jumps from 02:00 to 03:00
 * is 03:00; 23:30 on a night that jumps from 23:00 to 00:00 is that midnight, on the next local day), and a time that
 * occurs twice is its first occurrence. Exact for any zone and date Intl knows: no assumption about how far apart
 * the zone's changes are.
 */
export function zonedInstant(day: IsoDate, time: LocalTime, timeZone: string): Date {
  return new Date(firstInstantAtOrAfter(wallOf(day, time), timeZone));
}

function firstInstantAtOrAfter(wall: number, timeZone: string): number {
  for (const { start, end, offset } of piecesBetween(wall - REACH_MS, wall + REACH_MS, timeZone)) {
    // Within a piece the wall clock runs from start + offset to end + offset.
    if (end + offset > wall) return Math.max(start, wall - offset);
  }
  return wall + REACH_MS;
}

/** Whether `day` happens at all in `timeZone` (Pacific/Apia skipped 2011-12-30 when it crossed the date line). */
export function localDayExists(day: IsoDate, timeZone: string): boolean {
  const start = firstInstantAtOrAfter(wallOf(day, { hour: 0, minute: 0 }), timeZone);
  return localDateOf(new Date(start), timeZone) === day;
}

/** Every offset up to the end of this year is known to tzdata's rules; after it, a zone repeats a yearly pattern. */
const LAST_RULE_YEAR = 2040;

/** The largest offset of the years after `year` up to LAST_RULE_YEAR (or just the next one, past it). */
function laterYearsMaxOffset(year: number, timeZone: string): number {
  const { laterMax } = tablesOf(timeZone);
  let max = laterMax.get(year);
  if (max === undefined) {
    max = year + 1 >= LAST_RULE_YEAR ? offsetsOfYear(year + 1, timeZone).max : Math.max(offsetsOfYear(year + 1, timeZone).max, laterYearsMaxOffset(year + 1, timeZone));
    if (laterMax.size >= MAX_YEARS_PER_ZONE) laterMax.clear();
    laterMax.set(year, max);
  }
  return max;
}

/**
 * The largest UTC offset `timeZone` uses from `day` on (from 16 hours before its UTC midnight, which every instant of
 * the local day follows): its summer time if it has one, or the higher offset of a rule it will switch to. Looking
 * only forward makes it never grow from one day to the next, so it is a fixed point to count service days from.
 */
export function highestOffsetFromMs(day: IsoDate, timeZone: string): number {
  const from = Date.parse(`${day}T00:00:00Z`) - REACH_MS;
  const year = utcYearOf(from);
  if (year === null) return utcOffsetMs(from, timeZone);
  const { changes } = offsetsOfYear(year, timeZone);
  let max = utcOffsetMs(from, timeZone);
  for (const change of changes) if (change.at > from) max = Math.max(max, change.offset);
  return Math.max(max, laterYearsMaxOffset(year, timeZone));
}
