import {
  ApplicationCommandOptionType,
  type APIApplicationCommandBasicOption,
  type APIApplicationCommandOption,
  type APIApplicationCommandSubcommandOption,
} from 'discord.js';
import type { LocalizationMap } from 'discord.js';
import type { ChannelRef, RoleRef, SlashCommand } from '../replies/interactions.ts';
import { nearestName } from '../config/nearest-name.ts';
import { terminalText } from '../replies/terminal-text.ts';
import { translatorFor, type Translate } from '../replies/i18n/translate.ts';
import { ENGLISH_NAMES, type ConsoleNames } from './console-names.ts';

const ENGLISH = translatorFor('en');

/** An option's value as typed at the console, already checked against the command's definition. */
export type ConsoleOptionValue = string | number | boolean | ChannelRef | RoleRef;

export interface Invocation {
  command: SlashCommand;
  /** The subcommand typed after the command's name, for a command that has them (`/wotd-data export`). */
  subcommand: string | null;
  values: Map<string, ConsoleOptionValue>;
}

/** One line typed at the console. */
export type ConsoleInput =
  | { kind: 'empty' }
  | { kind: 'help' }
  | { kind: 'exit' }
  /** A button by label or number, on message #`message` when given, else on the latest message with buttons. */
  | { kind: 'press'; target: string; message: number | null }
  | { kind: 'command'; invocation: Invocation }
  | { kind: 'error'; message: string };

/** Typed text quoted back in a message: only its start when it is long, control characters made visible. */
export function typed(text: string): string {
  if (text.length <= 40) return terminalText(text);
  return `${terminalText(text.slice(0, /[\ud800-\udbff]/.test(text[39] ?? '') ? 39 : 40))}…`;
}

/** Splits a line on spaces, keeping "quoted text" (or 'quoted text') together, quotes removed. */
export function tokenize(line: string, t: Translate = ENGLISH): { tokens: string[] } | { error: string } {
  const tokens: string[] = [];
  let current = '';
  let started = false;
  let quote: '"' | "'" | null = null;
  for (const char of line) {
    if (quote) {
      if (char === quote) quote = null;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      started = true;
    } else if (/\s/.test(char)) {
      if (started) tokens.push(current);
      current = '';
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (quote) return { error: quote === '"' ? t('console.parse.doubleQuote') : t('console.parse.singleQuote') };
  if (started) tokens.push(current);
  return { tokens };
}

/** A command's subcommands (`export`, `forget` of /wotd-data), with their descriptions; empty for most commands. */
export function subcommandsOf(command: SlashCommand): APIApplicationCommandSubcommandOption[] {
  const options: APIApplicationCommandOption[] = command.data.toJSON().options ?? [];
  return options.filter((option): option is APIApplicationCommandSubcommandOption => option.type === ApplicationCommandOptionType.Subcommand);
}

function optionsOf(command: SlashCommand, subcommand: string | null = null): APIApplicationCommandBasicOption[] {
  const top: APIApplicationCommandOption[] = command.data.toJSON().options ?? [];
  const options = subcommand === null ? top : (subcommandsOf(command).find((sub) => sub.name === subcommand)?.options ?? []);
  return options.filter(
    (option): option is APIApplicationCommandBasicOption =>
      option.type !== ApplicationCommandOptionType.Subcommand && option.type !== ApplicationCommandOptionType.SubcommandGroup,
  );
}

/** The command's name as the console shows it, `/wotd-history` (`/wotd-verlauf` at a German console). */
export function commandName(command: SlashCommand, names: ConsoleNames = ENGLISH_NAMES): string {
  return `/${names.shown(command.data.toJSON())}`;
}

/** The subcommand (its English name, as the command reads it) as the console shows it. */
function subcommandName(command: SlashCommand, subcommand: string, names: ConsoleNames): string {
  const sub = subcommandsOf(command).find((candidate) => candidate.name === subcommand);
  return sub ? names.shown(sub) : subcommand;
}

/**
 * "date:…" or "[date:…]" for each option, as `help` shows them; `/wotd-data export|forget` for subcommands. Names
 * are the console's language's, as its texts write them.
 */
export function usageOf(command: SlashCommand, subcommand: string | null = null, names: ConsoleNames = ENGLISH_NAMES): string {
  const subcommands = subcommandsOf(command);
  const head = commandName(command, names);
  if (subcommand === null && subcommands.length > 0) return `${head} ${subcommands.map((sub) => names.shown(sub)).join('|')}`;
  const parts = optionsOf(command, subcommand).map((option) => (option.required ? `${names.shown(option)}:…` : `[${names.shown(option)}:…]`));
  return [head, ...(subcommand === null ? [] : [subcommandName(command, subcommand, names)]), ...parts].join(' ');
}

/** A command's options for `help`, by the names the console shows. */
export function optionHelp(
  command: SlashCommand,
  subcommand: string | null = null,
  names: ConsoleNames = ENGLISH_NAMES,
): Array<{ name: string; description: string; description_localizations?: LocalizationMap | null }> {
  return optionsOf(command, subcommand).map((option) => ({
    name: names.shown(option),
    description: option.description,
    description_localizations: option.description_localizations ?? null,
  }));
}

/** The options the console reads after a command (and its subcommand), as the definition has them. */
export function commandOptions(command: SlashCommand, subcommand: string | null = null): APIApplicationCommandBasicOption[] {
  return optionsOf(command, subcommand);
}

function readValue(label: string, option: APIApplicationCommandBasicOption, raw: string, t: Translate, names: ConsoleNames): ConsoleOptionValue | { error: string } {
  switch (option.type) {
    case ApplicationCommandOptionType.String: {
      if (option.min_length !== undefined && raw.length < option.min_length) {
        return { error: t('console.value.tooShort', { option: label, min: option.min_length }) };
      }
      if (option.max_length !== undefined && raw.length > option.max_length) {
        return { error: t('console.value.tooLong', { option: label, max: option.max_length, length: raw.length }) };
      }
      if (option.choices) {
        // A choice by its value, or by the name Discord shows for it, in English or the console's language.
        const chosen = option.choices.find((choice) => choice.value === raw) ?? names.find(option.choices, raw);
        if (chosen) return chosen.value;
        return { error: t('console.value.choices', { option: label, choices: option.choices.map((choice) => names.shown(choice)).join(', ') }) };
      }
      return raw;
    }
    case ApplicationCommandOptionType.Integer:
    case ApplicationCommandOptionType.Number: {
      const whole = option.type === ApplicationCommandOptionType.Integer;
      const pattern = whole ? /^[+-]?\d+$/ : /^[+-]?(\d+\.?\d*|\.\d+)$/;
      const value = Number(raw);
      const min = option.min_value;
      const max = option.max_value;
      const range =
        min !== undefined && max !== undefined
          ? t('console.value.range', { min, max })
          : min !== undefined
            ? t('console.value.atLeast', { min })
            : max !== undefined
              ? t('console.value.atMost', { max })
              : '';
      const kind = whole ? 'whole' : 'number';
      if (!pattern.test(raw) || !Number.isFinite(value) || (whole && !Number.isSafeInteger(value))) {
        return { error: t('console.value.notNumber', { option: label, kind, range, given: `“${typed(raw)}”` }) };
      }
      if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
        return { error: t('console.value.notNumber', { option: label, kind, range, given: typed(raw) }) };
      }
      return value;
    }
    case ApplicationCommandOptionType.Boolean: {
      const lowered = raw.toLowerCase();
      if (['true', 'yes', 'on'].includes(lowered)) return true;
      if (['false', 'no', 'off'].includes(lowered)) return false;
      return { error: t('console.value.boolean', { option: label, given: typed(raw) }) };
    }
    case ApplicationCommandOptionType.Channel: {
      const name = raw.replace(/^#/, '');
      if (name === '') return { error: t('console.value.channel', { option: label }) };
      return { id: name, name, kind: 'text' } satisfies ChannelRef;
    }
    case ApplicationCommandOptionType.Role: {
      const name = raw.replace(/^@/, '');
      if (name === '') return { error: t('console.value.role', { option: label }) };
      return { id: name, name } satisfies RoleRef;
    }
    default:
      return { error: t('console.value.unsupported', { option: label }) };
  }
}

/** " Did you mean <prefix><name>?" for the known name nearest to a mistyped one, or nothing when none is near. */
function didYouMean(mistyped: string, names: readonly string[], t: Translate, prefix = ''): string {
  const nearest = nearestName(mistyped, names);
  return nearest === null ? '' : ` ${t('console.parse.didYouMean', { name: `${prefix}${nearest}` })}`;
}

/** Reads a slash command as typed in Discord: `/wotd-find word:"two words" …`. */
export function parseInvocation(tokens: string[], commands: SlashCommand[], t: Translate = ENGLISH, names: ConsoleNames = ENGLISH_NAMES): ConsoleInput {
  const [head = '', ...rest] = tokens;
  const name = head.slice(1);
  const definitions = commands.map((candidate) => candidate.data.toJSON());
  const found = names.find(definitions, name);
  const command = found && commands[definitions.indexOf(found)];
  if (!command) {
    const known = definitions.map((definition) => `/${names.shown(definition)}`).join(', ');
    const hint = didYouMean(name.toLowerCase(), names.all(definitions), t, '/');
    return { kind: 'error', message: t('console.parse.noCommand', { command: typed(head), hint, known }) };
  }
  const shownCommand = commandName(command, names);
  const subcommands = subcommandsOf(command);
  let subcommand: string | null = null;
  if (subcommands.length > 0) {
    const shownNames = subcommands.map((sub) => names.shown(sub));
    const chosen = names.find(subcommands, rest[0] ?? '');
    if (!chosen) {
      const hint = didYouMean((rest[0] ?? '').toLowerCase(), names.all(subcommands), t);
      const given = rest[0] === undefined ? '' : ` ${t('console.parse.notOneOfThem', { given: typed(rest[0]) })}${hint}`;
      const example = `${shownCommand} ${shownNames[0] ?? ''}`;
      return { kind: 'error', message: t('console.parse.needsSubcommand', { command: shownCommand, names: shownNames.join(', '), given, example }) };
    }
    subcommand = chosen.name;
    rest.shift();
  }
  const options = optionsOf(command, subcommand);
  const values = new Map<string, ConsoleOptionValue>();
  for (const token of rest) {
    const colon = token.indexOf(':');
    if (colon <= 0) {
      const example = options[0] ? ` ${t('console.parse.suchAs', { option: `${names.shown(options[0])}:…` })}` : '';
      return { kind: 'error', message: t('console.parse.notAnOption', { token: typed(token), example, usage: usageOf(command, subcommand, names) }) };
    }
    const optionName = token.slice(0, colon).toLowerCase();
    const option = names.find(options, optionName);
    if (!option) {
      const shownNames = options.map((candidate) => names.shown(candidate));
      const known = options.length > 0 ? t('console.parse.itsOptions', { names: shownNames.join(', ') }) : t('console.parse.noOptions');
      const hint = didYouMean(optionName, names.all(options), t);
      return { kind: 'error', message: t('console.parse.noSuchOption', { command: shownCommand, option: typed(optionName), hint, known }) };
    }
    const label = `${shownCommand} ${names.shown(option)}`;
    if (values.has(option.name)) return { kind: 'error', message: t('console.parse.givenTwice', { option: label }) };
    const value = readValue(label, option, token.slice(colon + 1), t, names);
    if (typeof value === 'object' && 'error' in value) return { kind: 'error', message: value.error };
    values.set(option.name, value);
  }
  const missing = options.filter((option) => option.required && !values.has(option.name));
  if (missing.length > 0) {
    return {
      kind: 'error',
      message: t('console.parse.missing', {
        command: shownCommand,
        required: missing.map((option) => `${names.shown(option)}:…`).join(' '),
        usage: usageOf(command, subcommand, names),
      }),
    };
  }
  return { kind: 'command', invocation: { command, subcommand, values } };
}

/** Reads one console line: a slash command, `press <button>`, `help` or `exit`. */
export function parseConsoleLine(line: string, commands: SlashCommand[], t: Translate = ENGLISH, names: ConsoleNames = ENGLISH_NAMES): ConsoleInput {
  const trimmed = line.trim();
  if (trimmed === '') return { kind: 'empty' };
  const split = tokenize(trimmed, t);
  if ('error' in split) return { kind: 'error', message: split.error };
  const [head = '', ...rest] = split.tokens;
  const word = head.toLowerCase();
  if (head.startsWith('/')) return parseInvocation(split.tokens, commands, t, names);
  if (word === 'help' || word === '?') return { kind: 'help' };
  if (word === 'exit' || word === 'quit') return { kind: 'exit' };
  if (word === 'press') {
    const numbered = /^#(\d{1,9})$/.exec(rest[0] ?? '');
    const message = numbered ? Number(numbered[1]) : null;
    const target = (numbered ? rest.slice(1) : rest).join(' ').trim();
    if (target === '') {
      return {
        kind: 'error',
        message:
          message === null
            ? t('console.parse.pressWhich', { older: t('button.older') })
            : t('console.parse.pressWhichOf', { number: String(message), older: t('button.older') }),
      };
    }
    return { kind: 'press', target, message };
  }
  if (names.find(commands.map((command) => command.data.toJSON()), word)) {
    return { kind: 'error', message: t('console.parse.needsSlash', { command: `/${word}` }) };
  }
  return { kind: 'error', message: t('console.parse.notUnderstood', { text: typed(head) }) };
}
