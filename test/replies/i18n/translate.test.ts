import i18next, { type i18n } from 'i18next';
import ICU from 'i18next-icu';
import { IntlMessageFormat } from 'intl-messageformat';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { CATALOG_LOCALES, catalogLocaleOf } from '../../../src/replies/i18n/locales.ts';
import { CATALOGS, translatorFor, type MessageKey, type MessageValues } from '../../../src/replies/i18n/translate.ts';
import { placeholders } from './placeholders.ts';

/**
 * The translator compiles each message once and formats it with intl-messageformat directly. i18next with
 * i18next-icu, which it replaced (its every call cost more than many replies), is the reference: every message of
 * every catalog reads the same through both, with values of each kind, with none, and with a value missing.
 */


function reference(): i18n {
  const instance = i18next.createInstance();
  void instance.use(ICU).init({
    initAsync: false,
    resources: Object.fromEntries(Object.entries(CATALOGS).map(([locale, catalog]) => [locale, { translation: { ...catalog } }])),
    lng: 'en',
    fallbackLng: 'en',
    supportedLngs: Object.keys(CATALOGS),
    keySeparator: false,
    nsSeparator: false,
    interpolation: { escapeValue: false },
    returnNull: false,
    returnEmptyString: false,
  });
  return instance;
}

const english = CATALOGS.en as Readonly<Record<MessageKey, string>>;
const keys = Object.keys(english) as MessageKey[];
const names = new Map(keys.map((key) => [key, [...placeholders(new IntlMessageFormat(english[key], 'en', undefined, { ignoreTag: true }).getAst())]]));

/** Value sets for a message's placeholders: numbers for plurals (0, 1, 2, 21, 1234.5), texts, a date, none, one left out. */
function valueSets(key: MessageKey): Array<MessageValues | undefined> {
  const own = names.get(key) ?? [];
  const all = (value: (name: string) => string | number | Date): MessageValues => Object.fromEntries(own.map((name) => [name, value(name)]));
  const sets: Array<MessageValues | undefined> = [undefined, {}];
  for (const number of [0, 1, 2, 21, 1234.5]) sets.push(all(() => number));
  sets.push(all((name) => `<${name}> it's {x} #`));
  sets.push(all((name) => (name === 'kind' || name === 'style' ? 'other' : name)));
  sets.push(all(() => new Date(Date.UTC(2025, 0, 14))));
  if (own.length > 1) sets.push(Object.fromEntries(own.slice(1).map((name) => [name, 3])));
  return sets;
}

describe('translatorFor', () => {
  const i18n = reference();

  it.each([...CATALOG_LOCALES, 'ko', 'de-AT', 'es-419'])('%s: every message reads as i18next with i18next-icu formats it', (locale) => {
    const t = translatorFor(locale);
    const fixed = i18n.getFixedT(catalogLocaleOf(locale));
    const differ: string[] = [];
    let compared = 0;
    for (const key of keys) {
      // The first set compiles the message; the others, and the first again, read what was kept.
      const sets = valueSets(key);
      for (const [at, values] of [...sets, sets[0]].entries()) {
        const ours = t(key, values);
        const theirs = fixed(key, values);
        compared += 1;
        // A Date in a plain placeholder gives an array of parts, through both.
        if (!isDeepStrictEqual(ours, theirs)) differ.push(`${key} (set ${at}, ${JSON.stringify(values)}): ${JSON.stringify(ours)} against ${JSON.stringify(theirs)}`);
      }
    }
    expect(differ.slice(0, 10)).toEqual([]);
    expect(compared).toBeGreaterThan(keys.length * 9);
  });

  it('gives the same translator for the same catalog, whatever locale string names it', () => {
    expect(translatorFor('de')).toBe(translatorFor('de-AT'));
    expect(translatorFor('es-419')).toBe(translatorFor('es-ES'));
    expect(translatorFor(undefined)).toBe(translatorFor('ko'));
    expect(translatorFor('fr')).not.toBe(translatorFor('en'));
  });
});
