import type { APIApplicationCommandOption, RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.ts';
import { CATALOG_LOCALES, DISCORD_LOCALES } from '../../src/replies/i18n/locales.ts';

/** Discord's rule for chat-input command and option names (application-commands documentation). */
const NAME_RULE = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

/** Every Discord locale the bot writes, besides the default (English). */
const LOCALES = CATALOG_LOCALES.filter((catalog) => catalog !== 'en').flatMap((catalog) => [...DISCORD_LOCALES[catalog]]);

interface Named {
  name: string;
  name_localizations?: Partial<Record<string, string | null>> | null;
  description: string;
  description_localizations?: Partial<Record<string, string | null>> | null;
  options?: APIApplicationCommandOption[];
}

function nameProblems(where: string, name: string): string[] {
  const problems: string[] = [];
  if (!NAME_RULE.test(name)) problems.push(`${where}: "${name}" breaks Discord's name pattern`);
  if (name !== name.toLocaleLowerCase()) problems.push(`${where}: "${name}" is not lower case`);
  return problems;
}

/** A command or option level: its own names and descriptions in every locale, then its options, unique per locale. */
function check(where: string, item: Named, problems: string[]): void {
  problems.push(...nameProblems(where, item.name));
  for (const locale of LOCALES) {
    const name = item.name_localizations?.[locale];
    const description = item.description_localizations?.[locale];
    if (!name) problems.push(`${where}: no ${locale} name`);
    else problems.push(...nameProblems(`${where} [${locale}]`, name));
    if (!description) problems.push(`${where}: no ${locale} description`);
    else if (description.length > 100) problems.push(`${where} [${locale}]: description of ${description.length} characters`);
  }
  const options = item.options ?? [];
  for (const locale of ['default', ...LOCALES]) {
    const names = options.map((option) => (locale === 'default' ? option.name : (option.name_localizations?.[locale as 'de'] ?? option.name)));
    const twice = names.filter((name, index) => names.indexOf(name) !== index);
    if (twice.length > 0) problems.push(`${where} [${locale}]: option names used twice: ${twice.join(', ')}`);
  }
  for (const option of options) {
    check(`${where} ${option.name}`, option as Named, problems);
    if ('choices' in option && option.choices) {
      for (const choice of option.choices) {
        for (const locale of LOCALES) {
          const name = choice.name_localizations?.[locale as 'de'];
          if (!name || name.length > 100) problems.push(`${where} ${option.name} choice ${choice.name}: no fitting ${locale} name`);
        }
      }
    }
  }
}

describe('command localizations', () => {
  it('names every command, option and choice, with its description, in every supported Discord locale, by Discord\'s rules', () => {
    const problems: string[] = [];
    for (const command of commands) check(`/${command.data.name}`, command.data.toJSON() as RESTPostAPIChatInputApplicationCommandsJSONBody & Named, problems);
    expect(problems).toEqual([]);
  });

  it('gives no two commands one name in any locale', () => {
    for (const locale of ['default', ...LOCALES]) {
      const names = commands.map((command) => {
        const json = command.data.toJSON();
        return locale === 'default' ? json.name : (json.name_localizations?.[locale as 'de'] ?? json.name);
      });
      expect(new Set(names).size, locale).toBe(names.length);
    }
  });
});
