import { IntlMessageFormat } from 'intl-messageformat';
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

/**
 * A message compiled for its catalog's locale: its text when it has no placeholder, else its ICU formatter, and
 * when its placeholders are all plain (`{name}`: no plural, select, number or date), its text in parts.
 */
type Compiled = string | { format: IntlMessageFormat; source: string; parts: PlainPart[] | null; formatted?: Map<string, string> };

/** A piece of a message's text, or the name of the value that goes in its place. */
type PlainPart = string | { name: string };

/**
 * The message for a key in a catalog: the catalog's own, else English's (a missing or empty message falls back),
 * else the key itself. It is formatted with the catalog's locale, for plurals and numbers, even when the text is
 * English's.
 */
function compile(catalog: CatalogLocale, key: string): Compiled {
  const source = CATALOGS[catalog][key] || CATALOGS[SOURCE_LOCALE][key] || key;
  try {
    // `<…>` is text, not a tag.
    const format = new IntlMessageFormat(source, catalog, undefined, { ignoreTag: true });
    const ast = format.getAst();
    // 0: a literal (TYPE in @formatjs/icu-messageformat-parser): the text is the same whatever the values.
    if (ast.every((element) => element.type === 0)) return String(format.format());
    // 1: a plain placeholder, which intl-messageformat fills with the value as a string (see plainFormat).
    const plain = ast.every((element) => element.type === 0 || element.type === 1);
    const parts = plain ? ast.map((element): PlainPart => (element.type === 0 ? element.value : { name: element.value })) : null;
    return { format, source, parts };
  } catch {
    return source;
  }
}

/**
 * One catalog's messages, each compiled on first use and kept: a reply formats without parsing, and a message
 * without placeholders costs a map lookup. Formatting that fails (a value missing) gives the message as written.
 */
function translatorOf(catalog: CatalogLocale): Translate {
  const compiled = new Map<string, Compiled>();
  return (key, values) => {
    let message = compiled.get(key);
    if (message === undefined) {
      message = compile(catalog, key);
      compiled.set(key, message);
    }
    if (typeof message === 'string') return message;
    if (message.parts && values) {
      const text = plainFormat(message.parts, values);
      if (text !== undefined) return text;
    }
    // A plural, select or number reads the same for the same values: formatted once (bench:commands, /wotd-find's title).
    const asKey = values && valuesKey(values);
    const known = asKey === undefined ? undefined : message.formatted?.get(asKey);
    if (known !== undefined) return known;
    let text: string;
    try {
      // As i18next-icu gave it: a Date in a plain placeholder makes the parts an array, as it always has.
      text = message.format.format(values) as string;
    } catch {
      text = message.source;
    }
    if (asKey !== undefined) {
      const formatted = (message.formatted ??= new Map());
      if (formatted.size >= FORMATTED_PER_MESSAGE) formatted.clear();
      formatted.set(asKey, text);
    }
    return text;
  };
}

/** Texts kept per message that needs intl-messageformat, by its values: enough for the counts and kinds in use. */
const FORMATTED_PER_MESSAGE = 64;

/**
 * The values as a key of what a message reads with them, when every value is a string or a number (the type is
 * part of the key: a plural reads "1" and 1 alike, a number format does not); undefined for anything else (a Date,
 * whose text depends on more than its key would say, and -0, which a number format writes as "-0").
 */
function valuesKey(values: MessageValues): string | undefined {
  let key = '';
  for (const name in values) {
    const value = values[name];
    if (typeof value === 'string') key += `${name}:s${value.length}:${value};`;
    else if (typeof value === 'number' && !Object.is(value, -0)) key += `${name}:n${value};`;
    else return undefined;
  }
  return key;
}

/**
 * A message of plain placeholders filled as intl-messageformat fills them when every value is a string or a
 * number (String(value), the parts joined), without its formatToParts per reply; undefined for anything else (a
 * value missing, a Date), which is left to it.
 */
function plainFormat(parts: readonly PlainPart[], values: MessageValues): string | undefined {
  let text = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    if (!(part.name in values)) return undefined;
    const value = values[part.name];
    if (typeof value === 'string') text += value;
    else if (typeof value === 'number') text += String(value);
    else return undefined;
  }
  return text;
}

const byCatalog = new Map<CatalogLocale, Translate>();
/** Translators by the locale string asked for (Discord sends a few dozen); bounded against anything else. */
const byLocale = new Map<string, Translate>();
const LOCALES_REMEMBERED = 256;

/** The texts of one catalog (any locale string is accepted; unknown ones read English). */
export function translatorFor(locale: string | null | undefined): Translate {
  if (locale === PSEUDO_LOCALE) return pseudo;
  const asked = locale ?? '';
  const known = byLocale.get(asked);
  if (known) return known;
  const catalog = catalogLocaleOf(locale);
  let translate = byCatalog.get(catalog);
  if (!translate) {
    translate = translatorOf(catalog);
    byCatalog.set(catalog, translate);
  }
  if (byLocale.size < LOCALES_REMEMBERED) byLocale.set(asked, translate);
  return translate;
}

const pseudo: Translate = (key, values) => pseudoMessage(en[key], values);
