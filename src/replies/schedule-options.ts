import { canonicalTimeZone, formatLocalTime, parseLocalTime } from '../schedule/zoned-time.ts';
import { quoteInput } from './messages.ts';
import { translatorFor, type Translate } from './i18n/translate.ts';

/** Validates the time and zone options, with the message a member sees when one is wrong (quoting what was typed, inert). */
export function parseSchedule(
  timeText: string | null,
  zoneText: string | null,
  t: Translate = translatorFor('en'),
): { ok: true; time: string; timeZone: string } | { ok: false; message: string } {
  const time = parseLocalTime(timeText ?? '09:00');
  if (!time) return { ok: false, message: t('schedule.badTime', { text: quoteInput(timeText ?? '') }) };
  const timeZone = canonicalTimeZone(zoneText ?? 'UTC');
  if (!timeZone) return { ok: false, message: t('schedule.badZone', { text: quoteInput(zoneText ?? '') }) };
  return { ok: true, time: formatLocalTime(time), timeZone };
}
