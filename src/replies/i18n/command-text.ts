import type { LocalizationMap } from 'discord.js';
import { CATALOG_LOCALES, DISCORD_LOCALES, SOURCE_LOCALE, type CatalogLocale } from './locales.ts';
import { CATALOGS, translatorFor, type MessageKey } from './translate.ts';

/**
 * Commands' names and descriptions in every language: the English text is the definition's own (`setName`,
 * `setDescription`), the others go to Discord as name_localizations and description_localizations, one entry per
 * Discord locale of each catalog, so every member sees the commands in their client's language.
 */

/**
 * A catalog's command text. Names and descriptions have no placeholders, so one without ICU's special characters is
 * taken as it is written: every command is defined at start-up, and compiling some 700 plain texts there showed in
 * the time to ready.
 */
function textIn(catalog: CatalogLocale, key: MessageKey): string {
  const written = CATALOGS[catalog][key] ?? '';
  return /[{}'#]/.test(written) ? translatorFor(catalog)(key) : written;
}

/** A command's text in English, the source and what Discord shows where it has no localization. */
export function commandText(key: MessageKey): string {
  return textIn(SOURCE_LOCALE, key);
}

/** The text in every other catalog, by Discord locale; a catalog without the key is left out (Discord shows English). */
export function localized(key: MessageKey): LocalizationMap {
  const map: Record<string, string> = {};
  for (const catalog of CATALOG_LOCALES) {
    if (catalog === SOURCE_LOCALE) continue;
    if (!CATALOGS[catalog][key]) continue;
    const text = textIn(catalog, key);
    for (const discord of DISCORD_LOCALES[catalog]) map[discord] = text;
  }
  return map as LocalizationMap;
}

interface Nameable<T> {
  setName(name: string): T;
  setNameLocalizations(map: LocalizationMap | null): T;
  setDescription(description: string): T;
  setDescriptionLocalizations(map: LocalizationMap | null): T;
}

/** Sets a command's, subcommand's or option's name and description from the catalogs, in every language. */
export function named<T extends Nameable<T>>(target: T, nameKey: MessageKey, descriptionKey: MessageKey): T {
  return target
    .setName(commandText(nameKey))
    .setNameLocalizations(localized(nameKey))
    .setDescription(commandText(descriptionKey))
    .setDescriptionLocalizations(localized(descriptionKey));
}

/** A choice of a string option, its name in every language; the value is what the command reads. */
export function choice(nameKey: MessageKey, value: string): { name: string; name_localizations: LocalizationMap; value: string } {
  return { name: commandText(nameKey), name_localizations: localized(nameKey), value };
}
