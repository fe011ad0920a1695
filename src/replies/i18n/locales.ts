/**
 * The languages the bot's own texts are written in, and how Discord's locales map to them. Any other locale falls
 * back to English, per message (a catalog that lacks a key falls back too).
 */
export const CATALOG_LOCALES = ['en', 'de', 'es', 'fr', 'pt-BR', 'ru', 'ja', 'zh-CN'] as const;
export type CatalogLocale = (typeof CATALOG_LOCALES)[number];

export const SOURCE_LOCALE: CatalogLocale = 'en';

/** Discord's locale codes (https://discord.com/developers/docs/reference#locales) for each catalog. */
export const DISCORD_LOCALES: Readonly<Record<CatalogLocale, readonly string[]>> = {
  en: ['en-US', 'en-GB'],
  de: ['de'],
  es: ['es-ES', 'es-419'],
  fr: ['fr'],
  'pt-BR': ['pt-BR'],
  ru: ['ru'],
  ja: ['ja'],
  'zh-CN': ['zh-CN'],
};

const BY_DISCORD_LOCALE: ReadonlyMap<string, CatalogLocale> = new Map(
  CATALOG_LOCALES.flatMap((catalog) => DISCORD_LOCALES[catalog].map((discord) => [discord.toLowerCase(), catalog] as const)),
);

export function isCatalogLocale(value: string): value is CatalogLocale {
  return (CATALOG_LOCALES as readonly string[]).includes(value);
}

/**
 * The catalog for a Discord locale (`es-419`), a catalog name (`pt-BR`) or a POSIX locale (`de_DE.UTF-8`);
 * English for anything else, including nothing.
 */
export function catalogLocaleOf(locale: string | null | undefined): CatalogLocale {
  if (!locale) return SOURCE_LOCALE;
  const tag = locale.split('.')[0]!.replace('_', '-').toLowerCase();
  const exact = BY_DISCORD_LOCALE.get(tag);
  if (exact) return exact;
  const exactCatalog = CATALOG_LOCALES.find((catalog) => catalog.toLowerCase() === tag);
  if (exactCatalog) return exactCatalog;
  // Another region of a language whose catalog names none reads that catalog (de-AT → de, fr_CA → fr); a catalog
  // written for one region serves only it (zh-TW is not zh-CN's script, pt-PT not Brazil's usage).
  const language = tag.split('-')[0]!;
  return CATALOG_LOCALES.find((catalog) => catalog === language) ?? SOURCE_LOCALE;
}
