import type { IsoDate } from '../../wotd/dates.ts';
import { SOURCE_LOCALE, catalogLocaleOf, type CatalogLocale } from './locales.ts';
import type { MessageKey, Translate } from './translate.ts';

/**
 * Dates, lists and part-of-speech labels for a catalog's locale, through Intl. The formatters are made once per
 * catalog (making one is what costs), then reused by every reply.
 */

interface Formats {
  longDate: Intl.DateTimeFormat;
  shortDate: Intl.DateTimeFormat | null;
  and: Intl.ListFormat;
  /** Days already written, by kind and day: replies name the same few days again and again. */
  written: Map<string, string>;
}

const formats = new Map<CatalogLocale, Formats>();
/** By the locale string asked for, as translatorFor keeps them; bounded against anything else. */
const byLocale = new Map<string, Formats>();
const LOCALES_REMEMBERED = 256;
const DAYS_REMEMBERED = 4_096;

function formatsOf(locale: string | null | undefined): Formats {
  const asked = locale ?? '';
  const known = byLocale.get(asked);
  if (known) return known;
  const catalog = catalogLocaleOf(locale);
  let found = formats.get(catalog);
  if (!found) {
    // English reads "14 January 2025" (never ambiguous between day and month), as it always has.
    const tag = catalog === SOURCE_LOCALE ? 'en-GB' : catalog;
    found = {
      longDate: new Intl.DateTimeFormat(tag, { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }),
      // English keeps the service's own YYYY-MM-DD in footers and lists; other languages get their usual short date.
      shortDate:
        catalog === SOURCE_LOCALE ? null : new Intl.DateTimeFormat(tag, { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' }),
      and: new Intl.ListFormat(tag, { style: 'long', type: 'conjunction' }),
      written: new Map(),
    };
    formats.set(catalog, found);
  }
  if (byLocale.size < LOCALES_REMEMBERED) byLocale.set(asked, found);
  return found;
}

function written(formats: Formats, key: string, write: () => string): string {
  let text = formats.written.get(key);
  if (text === undefined) {
    text = write();
    if (formats.written.size >= DAYS_REMEMBERED) formats.written.clear();
    formats.written.set(key, text);
  }
  return text;
}

function instantOf(date: IsoDate): Date {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const instant = new Date(Date.UTC(year, month - 1, day));
  instant.setUTCFullYear(year);
  return instant;
}

/** "14 January 2025", "14. Januar 2025", "2025年1月14日": a day as people read it in the locale. */
export function longDate(date: IsoDate, locale?: string | null): string {
  const found = formatsOf(locale);
  return written(found, `L${date}`, () => found.longDate.format(instantOf(date)));
}

/** A day in lists and footers: YYYY-MM-DD in English, the locale's numeric date elsewhere (14.01.2025, 2025/01/14). */
export function shortDate(date: IsoDate, locale?: string | null): string {
  const found = formatsOf(locale);
  const format = found.shortDate;
  return format ? written(found, `S${date}`, () => format.format(instantOf(date))) : date;
}

/** "a, b and c" in the locale's own words and punctuation. */
export function andList(items: readonly string[], locale?: string | null): string {
  return formatsOf(locale).and.format(items);
}

/** The part-of-speech labels the service sends that have a translation; any other is shown as sent. */
const PARTS_OF_SPEECH: Readonly<Record<string, MessageKey>> = {
  noun: 'pos.noun',
  verb: 'pos.verb',
  adjective: 'pos.adjective',
  adverb: 'pos.adverb',
  pronoun: 'pos.pronoun',
  preposition: 'pos.preposition',
  conjunction: 'pos.conjunction',
  interjection: 'pos.interjection',
  phrase: 'pos.phrase',
};

/** A part of speech in the reader's language when it is one we know, else exactly as the service sent it. */
export function partOfSpeech(pos: string, t: Translate): string {
  const key = PARTS_OF_SPEECH[pos.trim().toLowerCase()];
  return key ? t(key) : pos.trim();
}
