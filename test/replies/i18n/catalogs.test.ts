import { IntlMessageFormat } from 'intl-messageformat';
import { describe, expect, it } from 'vitest';
import { CATALOG_LOCALES } from '../../../src/replies/i18n/locales.ts';
import { CATALOGS, translatorFor, type MessageKey } from '../../../src/replies/i18n/translate.ts';
import { placeholders } from './placeholders.ts';


function parse(message: string, locale: string): IntlMessageFormat {
  // As i18next-icu reads them: `<…>` is text, not a tag.
  return new IntlMessageFormat(message, locale, undefined, { ignoreTag: true });
}

const english = CATALOGS.en as Readonly<Record<MessageKey, string>>;
const keys = Object.keys(english) as MessageKey[];

/** A value for every placeholder, long where the real ones can be long, to measure the longest a message gets. */
const SAMPLE: Record<string, string | number> = {
  count: 1234,
  records: 2,
  days: 3,
  pages: 12,
  page: 11,
  created: 5,
  subscriptions: 5,
  limit: 5,
  max: 8,
  min: 3,
  length: 40,
  kind: 'whole',
  date: '14 September 2025',
  newest: '2025-09-14',
  oldest: '2025-09-07',
};

function sampleValue(name: string): string | number {
  return SAMPLE[name] ?? `<${name}:${'x'.repeat(40)}>`;
}

/** Discord's limit for where a message ends up, by its key; anything else is message content (2,000). */
function limitOf(key: string): number {
  if (key.startsWith('button.')) return 80;
  if (key.startsWith('command.') && key.endsWith('.name')) return 32;
  if (key.startsWith('option.') && key.endsWith('.name')) return 32;
  if (key.startsWith('command.')) return 100;
  // Choice names (styles) and autocomplete choices (languages).
  if (key.startsWith('style.') || (key.startsWith('language.') && key !== 'language.unknown')) return 100;
  if (key === 'daily.threadSuffix') return 60;
  if (key.startsWith('history.title') || key.startsWith('find.title') || key === 'subscriptions.title') return 200;
  return 2000;
}

describe('message catalogs', () => {
  it.each(CATALOG_LOCALES)('%s has every key of the English catalog, and no other', (locale) => {
    expect(Object.keys(CATALOGS[locale]).sort()).toEqual([...keys].sort());
  });

  it.each(CATALOG_LOCALES)('%s: every message is valid ICU with the same placeholders as English', (locale) => {
    const problems: string[] = [];
    for (const key of keys) {
      const message = CATALOGS[locale][key];
      if (message === undefined) continue;
      try {
        const wanted = [...placeholders(parse(english[key], 'en').getAst())].sort();
        const found = [...placeholders(parse(message, locale).getAst())].sort();
        if (JSON.stringify(found) !== JSON.stringify(wanted)) problems.push(`${key}: ${found.join(',')} instead of ${wanted.join(',')}`);
      } catch (error) {
        problems.push(`${key}: ${String(error)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it.each(CATALOG_LOCALES)('%s: every message, formatted with long values, keeps within where Discord shows it', (locale) => {
    const t = translatorFor(locale);
    const over: string[] = [];
    for (const key of keys) {
      const values = Object.fromEntries([...placeholders(parse(english[key], 'en').getAst())].map((name) => [name, sampleValue(name)]));
      const text = t(key, values);
      // Discord counts UTF-16 code units, as String#length does.
      if (text.length === 0 || text.length > limitOf(key)) over.push(`${key} (${text.length})`);
      if (text.includes('{') && !english[key].includes("'{")) over.push(`${key}: a placeholder was left unfilled: ${text}`);
    }
    expect(over).toEqual([]);
  });

  it('a catalog without a message falls back to English for that message alone', () => {
    expect(translatorFor('ko')('button.older')).toBe('Older');
    expect(translatorFor('de')('button.older')).toBe('Älter');
  });
});
