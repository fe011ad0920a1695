import i18next, { type i18n } from 'i18next';
import ICU from 'i18next-icu';
import de from './catalogs/de.json' with { type: 'json' };
import en from './catalogs/en.json' with { type: 'json' };
import es from './catalogs/es.json' with { type: 'json' };
import fr from './catalogs/fr.json' with { type: 'json' };
import ja from './catalogs/ja.json' with { type: 'json' };
import ptBR from './catalogs/pt-BR.json' with { type: 'json' };
import ru from './catalogs/ru.json' with { type: 'json' };
import zhCN from './catalogs/zh-CN.json' with { type: 'json' };
import { SOURCE_LOCALE, catalogLocaleOf, type CatalogLocale } from './locales.ts';
import { PSEUDO_LOCALE, pseudoMessage } from './pseudo.ts';

/** Every message the bot writes has a key in the English catalog, the source the others translate. */
export type MessageKey = keyof typeof en;
export type MessageValues = Record<string, string | number | Date>;
export type Translate = (key: MessageKey, values?: MessageValues) => string;

export const CATALOGS: Readonly<Record<CatalogLocale, Readonly<Record<string, string>>>> = {
  en,
  de,
  es,
  fr,
  'pt-BR': ptBR,
  ru,
  ja,
  'zh-CN': zhCN,
};

let instance: i18n | undefined;

// One instance for the process, initialised synchronously on first use; i18next-icu compiles each message once
// and keeps the compiled form, so a reply formats without parsing.
function messages(): i18n {
  if (instance) return instance;
  const created = i18next.createInstance();
  created.use(ICU).init({
    initAsync: false,
    resources: Object.fromEntries(Object.entries(CATALOGS).map(([locale, catalog]) => [locale, { translation: catalog }])),
    lng: SOURCE_LOCALE,
    fallbackLng: SOURCE_LOCALE,
    supportedLngs: Object.keys(CATALOGS),
    keySeparator: false,
    nsSeparator: false,
    interpolation: { escapeValue: false },
    returnNull: false,
    returnEmptyString: false,
  });
  instance = created;
  return created;
}

const translators = new Map<CatalogLocale, Translate>();

/** The texts of one catalog (any locale string is accepted; unknown ones read English). */
export function translatorFor(locale: string | null | undefined): Translate {
  if (locale === PSEUDO_LOCALE) return pseudo;
  const catalog = catalogLocaleOf(locale);
  let translate = translators.get(catalog);
  if (!translate) {
    const fixed = messages().getFixedT(catalog);
    translate = (key, values) => fixed(key, values);
    translators.set(catalog, translate);
  }
  return translate;
}

const pseudo: Translate = (key, values) => pseudoMessage(en[key], values);
