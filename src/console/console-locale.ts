import { translatorFor, type Translate } from '../replies/i18n/translate.ts';

/**
 * The console's language: the CONSOLE_LANGUAGE setting, else the POSIX locale (LC_ALL, LC_MESSAGES, LANG, in that
 * order, as every terminal program reads them). `C` and `POSIX` mean English, as does any language without a catalog.
 */
export function consoleLocale(env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const name of ['CONSOLE_LANGUAGE', 'LC_ALL', 'LC_MESSAGES', 'LANG']) {
    const value = env[name]?.trim();
    if (!value) continue;
    return value === 'C' || value.startsWith('C.') || value === 'POSIX' ? undefined : value;
  }
  return undefined;
}

/** The console's texts in its language. */
export function consoleT(locale: string | undefined = consoleLocale()): Translate {
  return translatorFor(locale);
}
