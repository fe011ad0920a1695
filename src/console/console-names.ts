import type { LocalizationMap } from 'discord.js';
import { commandText, localized } from '../replies/i18n/command-text.ts';
import { catalogLocaleOf, DISCORD_LOCALES, SOURCE_LOCALE } from '../replies/i18n/locales.ts';
import type { MessageKey } from '../replies/i18n/translate.ts';

/** What Discord names in every language: a command, a subcommand, an option or a choice, as its definition has it. */
export interface Named {
  name: string;
  name_localizations?: LocalizationMap | null;
}

/**
 * The names the console goes by: the definitions' own (English) names, and besides them those of the console's
 * language, the very name_localizations Discord shows a member of that language. The catalogs' texts mention the
 * commands by those names (`/wotd-verlauf`, `datum:`), so a console in that language accepts them, completes them
 * and shows them; the English names keep working everywhere.
 */
export class ConsoleNames {
  /** `discord`: the Discord locale whose localizations are read; null for the English names alone. */
  constructor(readonly discord: string | null) {}

  /** The name in the console's language, or the English one where the definition has none for it. */
  shown(entry: Named): string {
    if (this.discord === null) return entry.name;
    return entry.name_localizations?.[this.discord as keyof LocalizationMap] || entry.name;
  }

  /** The name a catalog key gives (`command.wotd-history.name`), as the console shows it: the one `named()` defines. */
  ofKey(key: MessageKey): string {
    return this.shown({ name: commandText(key), name_localizations: localized(key) });
  }

  /** The entry `typed` names, any case: an English name first, then one in the console's language. */
  find<T extends Named>(entries: readonly T[], typed: string): T | undefined {
    const wanted = typed.toLowerCase();
    return entries.find((entry) => entry.name.toLowerCase() === wanted) ?? entries.find((entry) => this.shown(entry).toLowerCase() === wanted);
  }

  /** Every name the entries go by, the console language's first (so a tie in "Did you mean" goes to them). */
  all(entries: readonly Named[]): string[] {
    return [...new Set([...entries.map((entry) => this.shown(entry)), ...entries.map((entry) => entry.name)])];
  }

  /**
   * The names to complete `begun` with: those of the console's language that start with it, else the English ones
   * that do, so the list shows each entry once and `/wotd-h` still finds `/wotd-history` at a German console.
   */
  completing(entries: readonly Named[], begun: string, prefix = '', suffix = ''): string[] {
    const fitting = (names: string[]) => names.map((name) => `${prefix}${name}${suffix}`).filter((name) => name.startsWith(begun));
    const own = fitting(entries.map((entry) => this.shown(entry)));
    return own.length > 0 ? own : fitting(entries.map((entry) => entry.name));
  }
}

/** The names of a console in `locale` (a catalog name, a Discord or POSIX locale; nothing for English). */
export function consoleNames(locale: string | null | undefined): ConsoleNames {
  const catalog = catalogLocaleOf(locale);
  return new ConsoleNames(catalog === SOURCE_LOCALE ? null : (DISCORD_LOCALES[catalog][0] ?? null));
}

export const ENGLISH_NAMES = new ConsoleNames(null);
