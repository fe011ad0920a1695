import type { DateStyle } from '../schedule/post-look.ts';
import type { IsoDate } from '../wotd/dates.ts';
import { catalogLocaleOf, SOURCE_LOCALE } from './i18n/locales.ts';
import { longDate, shortDate } from './i18n/formats.ts';

/** A post's date in a subscription's date style and language; without a style, as posts always wrote it. */

const numeric = new Map<string, Intl.DateTimeFormat>();

/**
 * The language's numeric date: 27/11/2026 in British English (11/27/2026 for en-US), 27.11.2026 in German,
 * 2026/11/27 in Japanese.
 */
function numericDate(day: IsoDate, locale: string | undefined): string {
  const catalog = catalogLocaleOf(locale);
  const tag = catalog === SOURCE_LOCALE ? (locale?.toLowerCase() === 'en-us' ? 'en-US' : 'en-GB') : catalog;
  let format = numeric.get(tag);
  if (!format) {
    format = new Intl.DateTimeFormat(tag, { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' });
    numeric.set(tag, format);
  }
  return format.format(Date.parse(`${day}T00:00:00Z`));
}

/** The footer's date: `style` null keeps today's look (YYYY-MM-DD in English, the language's numeric date elsewhere). */
export function footerDate(day: IsoDate, style: DateStyle | null, locale: string | undefined): string {
  if (style === null) return shortDate(day, locale);
  return styledDate(day, style, locale);
}

/** The intro's {date}: `style` null keeps today's look, YYYY-MM-DD. */
export function introDate(day: IsoDate, style: DateStyle | null, locale: string | undefined): string {
  return style === null ? day : styledDate(day, style, locale);
}

function styledDate(day: IsoDate, style: DateStyle, locale: string | undefined): string {
  if (style === 'iso') return day;
  return style === 'long' ? longDate(day, locale) : numericDate(day, locale);
}
