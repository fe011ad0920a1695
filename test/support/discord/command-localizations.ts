import type { FormErrors } from './validation.ts';

/** Names and descriptions of application commands in other languages, checked as Discord checks them. */

type Json = Record<string, unknown>;

/** A chat-input command's or option's name: Discord's own pattern (its application-commands documentation). */
export const NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

/** Discord's locales (https://discord.com/developers/docs/reference#locales): the keys a localization map may have. */
export const DISCORD_LOCALE_CODES: readonly string[] = [
  'id', 'da', 'de', 'en-GB', 'en-US', 'es-ES', 'es-419', 'fr', 'hr', 'it', 'lt', 'hu', 'nl', 'no', 'pl', 'pt-BR', 'ro',
  'fi', 'sv-SE', 'vi', 'tr', 'cs', 'el', 'bg', 'ru', 'uk', 'hi', 'th', 'zh-CN', 'ja', 'zh-TW', 'ko',
];

/** A chat-input name as Discord takes it: 1-32 characters of the allowed classes, lower case where the script has case. */
export function isValidCommandName(name: unknown): name is string {
  return typeof name === 'string' && NAME.test(name) && name === name.toLowerCase();
}

/**
 * name_localizations and description_localizations as Discord checks them: a map keyed by known locales, each name a
 * valid name, each description 1-100 characters. Returns the localized names, by locale, for the uniqueness check.
 */
export function validateLocalizations(
  errors: FormErrors,
  path: (string | number)[],
  value: unknown,
  kind: 'name' | 'description' | 'choice',
): Map<string, string> {
  const names = new Map<string, string>();
  if (value === undefined || value === null) return names;
  if (typeof value !== 'object' || Array.isArray(value)) {
    errors.add(path, 'MODEL_TYPE_CONVERT', 'Only dictionaries may be used in a ModelType');
    return names;
  }
  for (const [locale, text] of Object.entries(value as Json)) {
    if (!DISCORD_LOCALE_CODES.includes(locale)) {
      errors.add([...path, locale], 'BASE_TYPE_CHOICES', `Value must be one of (${DISCORD_LOCALE_CODES.join(', ')}).`);
      continue;
    }
    if (text === null) continue;
    if (kind === 'name') {
      if (!isValidCommandName(text)) errors.add([...path, locale], 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
      else names.set(locale, text);
    } else if (typeof text !== 'string' || text.length < 1 || text.length > 100) {
      errors.add([...path, locale], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
    }
  }
  return names;
}

