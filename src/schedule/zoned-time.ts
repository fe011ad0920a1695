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

/** The wall clock in `timeZone` at `instant`, written as if it were UTC (milliseconds). */
function wallClockMs(instant: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const wall = Date.UTC(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0);
  return wall + (instant % 1000 + 1000) % 1000;
}

/** Offset from UTC in milliseconds at `instant` (positive east of Greenwich). */
export function utcOffsetMs(instant: number, timeZone: string): number {
  return wallClockMs(instant, timeZone) - instant;
}

/** The local calendar day in `timeZone` at `instant`. */
export function localDateOf(instant: Date, timeZone: string): IsoDate {
  return new Date(wallClockMs(instant.getTime(), timeZone)).toISOString().slice(0, 10);
}

/**
 * The instant at which the wall clock in `timeZone` reads `time` on `day`.
 * A time that falls in a daylight-saving gap moves forward by the gap (02:30 on a spring-forward night is 03:30);
 * a time that occurs twice when clocks fall back is its first occurrence. Either way each local day has exactly one.
 */
export function zonedInstant(day: IsoDate, time: LocalTime, timeZone: string): Date {
  const wall = Date.parse(`${day}T00:00:00Z`) + (time.hour * 60 + time.minute) * MINUTE_MS;
  // Offsets a day either side bracket any single transition near this wall time.
  const before = utcOffsetMs(wall - DAY_MS, timeZone);
  const after = utcOffsetMs(wall + DAY_MS, timeZone);
  const candidates = [wall - before, wall - after]
    .filter((instant) => wallClockMs(instant, timeZone) === wall)
    .sort((a, b) => a - b);
  const first = candidates[0];
  if (first !== undefined) return new Date(first);
  // In a gap: read the wall time with the offset in force before the jump, which lands just after it.
  return new Date(wall - before);
}

const maxOffsets = new Map<string, number>();

/**
 * The largest UTC offset `timeZone` uses in the year around `day` (its summer time, if it has one).
 * Sampled every 15 days across ±180 days, which no DST period is short enough to slip between.
 */
export function summerOffsetMs(day: IsoDate, timeZone: string): number {
  const key = `${timeZone}|${day}`;
  let offset = maxOffsets.get(key);
  if (offset === undefined) {
    const noon = Date.parse(`${day}T12:00:00Z`);
    offset = -Infinity;
    for (let step = -12; step <= 12; step += 1) offset = Math.max(offset, utcOffsetMs(noon + step * 15 * DAY_MS, timeZone));
    if (maxOffsets.size > 10_000) maxOffsets.clear();
    maxOffsets.set(key, offset);
  }
  return offset;
}
