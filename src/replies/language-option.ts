import type { AutocompleteChoice, CommandContext } from './interactions.ts';
import { CATALOG_LOCALES, DISCORD_LOCALES, type CatalogLocale } from './i18n/locales.ts';
import { CATALOGS, type Translate } from './i18n/translate.ts';
import { userError } from './messages.ts';
import { languageName } from './subscription-text.ts';

/**
 * The `language` option of the subscribe commands: suggested as an admin types, by the language's own name and by
 * the reader's name for it; stored as a Discord locale, the code Discord itself uses.
 */

/** The Discord locale a catalog is stored as (its first: `en-US`, `es-ES`). */
function storedLocale(catalog: CatalogLocale): string {
  return DISCORD_LOCALES[catalog][0] ?? catalog;
}

function fold(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLocaleLowerCase().trim();
}

/** What a language is called in its own catalog ("Deutsch") and by the reader ("German"). */
function namesOf(catalog: CatalogLocale, t: Translate): { own: string; reader: string } {
  // Named in a list, so with a capital where the language's own name has none in a sentence (español, français).
  const named = CATALOGS[catalog][`language.${catalog}`] ?? catalog;
  const own = `${named.charAt(0).toLocaleUpperCase(catalog)}${named.slice(1)}`;
  const reader = languageName(catalog, t);
  return { own, reader: `${reader.charAt(0).toLocaleUpperCase()}${reader.slice(1)}` };
}

/** Up to 25 languages whose name (in either form) or code starts with, or holds, what was typed. */
export function suggestLanguages(typed: string, t: Translate): AutocompleteChoice[] {
  const query = fold(typed);
  const starts: AutocompleteChoice[] = [];
  const holds: AutocompleteChoice[] = [];
  for (const catalog of CATALOG_LOCALES) {
    const { own, reader } = namesOf(catalog, t);
    const name = own === reader ? own : `${own} (${reader})`;
    const choice = { name, value: storedLocale(catalog) };
    const words = [fold(own), fold(reader), catalog.toLowerCase(), ...DISCORD_LOCALES[catalog].map((code) => code.toLowerCase())];
    if (query === '' || words.some((word) => word.startsWith(query))) starts.push(choice);
    else if (words.some((word) => word.includes(query))) holds.push(choice);
  }
  return [...starts, ...holds].slice(0, 25);
}

/**
 * The Discord locale an option names: a suggestion's value (`de`, `es-419`) or a language's name in any catalog
 * (`Deutsch`, `German`); null for anything else, which the command refuses rather than guess.
 */
export function readLanguageOption(text: string): string | null {
  const query = fold(text);
  if (query === '') return null;
  for (const catalog of CATALOG_LOCALES) {
    const codes = [catalog, ...DISCORD_LOCALES[catalog]];
    const exact = codes.find((code) => code.toLowerCase() === query.replace('_', '-'));
    if (exact) return exact === catalog ? storedLocale(catalog) : exact;
  }
  for (const catalog of CATALOG_LOCALES) {
    const named = CATALOG_LOCALES.some((reader) => fold(CATALOGS[reader][`language.${catalog}`] ?? '') === query);
    if (named) return storedLocale(catalog);
  }
  // A choice's whole name, "Deutsch (German)", as a client may send it back when a suggestion was not picked.
  const own = query.split(' (')[0] ?? '';
  const byOwn = CATALOG_LOCALES.find((catalog) => fold(CATALOGS[catalog][`language.${catalog}`] ?? '') === own);
  return byOwn ? storedLocale(byOwn) : null;
}

/**
 * The `language` option of /wotd-subscribe and /wotd-subscribe-me as a Discord locale: null when it was left out;
 * undefined once the member has been told that what they typed is not a language the bot writes.
 */
export async function languageOrRefuse(context: CommandContext, t: Translate): Promise<{ language: string | null } | undefined> {
  const typed = context.options.getString('language');
  if (typed === null || typed.trim() === '') return { language: null };
  const language = readLanguageOption(typed);
  if (language) return { language };
  await context.respond(userError(t('language.unknown', { text: quoteLanguage(typed) })));
  return undefined;
}

/** What was typed, quoted in the refusal without markdown or mentions, and short. */
function quoteLanguage(text: string): string {
  return text.replace(/[`*_~|\\<>@]/g, '').slice(0, 32);
}
