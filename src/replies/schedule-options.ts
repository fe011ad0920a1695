import { canonicalTimeZone, formatLocalTime, parseLocalTime } from '../schedule/zoned-time.ts';
import { quoteInput } from './messages.ts';

/** Validates the time and zone options, with the message a member sees when one is wrong (quoting what was typed, inert). */
export function parseSchedule(
  timeText: string | null,
  zoneText: string | null,
): { ok: true; time: string; timeZone: string } | { ok: false; message: string } {
  const time = parseLocalTime(timeText ?? '09:00');
  if (!time) {
    return { ok: false, message: `"${quoteInput(timeText ?? '')}" is not a time of day. Use 24-hour HH:MM, for example 09:00 or 18:30.` };
  }
  const timeZone = canonicalTimeZone(zoneText ?? 'UTC');
  if (!timeZone) {
    return {
      ok: false,
      message: `"${quoteInput(zoneText ?? '')}" is not a time zone I know. Use an IANA name such as Europe/London, America/New_York or UTC (start typing to see suggestions).`,
    };
  }
  return { ok: true, time: formatLocalTime(time), timeZone };
}
