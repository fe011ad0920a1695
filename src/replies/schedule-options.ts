import { canonicalTimeZone, formatLocalTime, parseLocalTime } from '../schedule/zoned-time.ts';
import { quoteInput } from './messages.ts';
import { translatorFor, type Translate } from './i18n/translate.ts';

/**
 * The time option's longest value: room for the 12-hour forms people type (7:30 p.m.), so they get the HH:MM hint
 * below rather than Discord's length error.
 */
export const TIME_OPTION_MAX_LENGTH = 10;

/** Validates the time and zone options, with the message a member sees when one is wrong (quoting what was typed, inert). */
export function parseSchedule(
  timeText: string | null,
  zoneText: string | null,
  t: Translate = translatorFor('en'),
): { ok: true; time: string; timeZone: string; zoneNote: string } | { ok: false; message: string } {
  const time = parseLocalTime(timeText ?? '09:00');
  if (!time) {
    const meant = twentyFourHour(timeText ?? '');
    const text = quoteInput(timeText ?? '');
    return { ok: false, message: meant ? t('schedule.badTimeMeant', { text, meant }) : t('schedule.badTime', { text }) };
  }
  const timeZone = canonicalTimeZone(zoneText ?? 'UTC');
  if (!timeZone) return { ok: false, message: t('schedule.badZone', { text: quoteInput(zoneText ?? '') }) };
  // A zone typed under another name (CET, US/Eastern) is stored under its canonical one: say so, after that name.
  // The same city spelt as the runtime's ICU spells it (Asia/Kolkata stored as Asia/Calcutta) is no surprise.
  const typed = (zoneText ?? 'UTC').trim();
  const zoneNote = sameArea(typed, timeZone) ? '' : t('schedule.zoneNote', { typed: quoteInput(typed) });
  return { ok: true, time: formatLocalTime(time), timeZone, zoneNote };
}

/** Whether a typed zone names its canonical one's area (Asia/Kolkata and Asia/Calcutta; not CET or US/Eastern). */
function sameArea(typed: string, canonical: string): boolean {
  if (typed.toLowerCase() === canonical.toLowerCase()) return true;
  const area = (zone: string) => (zone.includes('/') ? zone.slice(0, zone.indexOf('/')).toLowerCase() : null);
  return area(typed) !== null && area(typed) === area(canonical);
}

/**
 * The 24-hour time a time written another common way means (7pm, 7.30pm, 7:30 p.m., 7.30, 19h30), for the hint;
 * null when it is not one of those.
 */
export function twentyFourHour(text: string): string | null {
  const match = /^\s*(\d{1,2})(?:[.:h](\d{2}))?\s*(?:([ap])\.?\s*m\.?)?\s*$/i.exec(text);
  if (!match || (match[2] === undefined && match[3] === undefined)) return null;
  const hour = Number(match[1]);
  const minute = Number(match[2] ?? '0');
  if (minute > 59) return null;
  if (match[3] === undefined) return hour <= 23 ? formatLocalTime({ hour, minute }) : null;
  if (hour < 1 || hour > 12) return null;
  return formatLocalTime({ hour: (hour % 12) + (match[3].toLowerCase() === 'p' ? 12 : 0), minute });
}
