import {
  ApplicationCommandOptionType,
  type APIApplicationCommandBasicOption,
  type APIApplicationCommandOption,
  type APIApplicationCommandSubcommandOption,
} from 'discord.js';
import type { ChannelRef, RoleRef, SlashCommand } from '../replies/interactions.ts';
import { nearestName } from '../config/nearest-name.ts';
import { terminalText } from '../replies/terminal-text.ts';

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
export function tokenize(line: string): { tokens: string[] } | { error: string } {
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
  if (quote) return { error: `A ${quote === '"' ? 'double' : 'single'} quote is not closed.` };
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

/** "date:…" or "[date:…]" for each option, as `help` shows them; `/wotd-data export|forget` for subcommands. */
export function usageOf(command: SlashCommand, subcommand: string | null = null): string {
  const subcommands = subcommandsOf(command);
  if (subcommand === null && subcommands.length > 0) return `/${command.data.name} ${subcommands.map((sub) => sub.name).join('|')}`;
  const parts = optionsOf(command, subcommand).map((option) => (option.required ? `${option.name}:…` : `[${option.name}:…]`));
  return [`/${command.data.name}`, ...(subcommand === null ? [] : [subcommand]), ...parts].join(' ');
}

export function optionHelp(command: SlashCommand, subcommand: string | null = null): Array<{ name: string; description: string }> {
  return optionsOf(command, subcommand).map((option) => ({ name: option.name, description: option.description }));
}

function readValue(commandName: string, option: APIApplicationCommandBasicOption, raw: string): ConsoleOptionValue | { error: string } {
  const label = `/${commandName} ${option.name}`;
  switch (option.type) {
    case ApplicationCommandOptionType.String: {
      if (option.min_length !== undefined && raw.length < option.min_length) {
        return { error: `${label} needs at least ${option.min_length} characters.` };
      }
      if (option.max_length !== undefined && raw.length > option.max_length) {
        return { error: `${label} can be at most ${option.max_length} characters long; that was ${raw.length}.` };
      }
      if (option.choices && !option.choices.some((choice) => choice.value === raw)) {
        return { error: `${label} must be one of: ${option.choices.map((choice) => choice.value).join(', ')}.` };
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
        min !== undefined && max !== undefined ? ` from ${min} to ${max}` : min !== undefined ? ` of at least ${min}` : max !== undefined ? ` of at most ${max}` : '';
      const expected = `${label} must be ${whole ? 'a whole number' : 'a number'}${range}`;
      if (!pattern.test(raw) || !Number.isFinite(value) || (whole && !Number.isSafeInteger(value))) {
        return { error: `${expected}; “${typed(raw)}” is not.` };
      }
      if ((min !== undefined && value < min) || (max !== undefined && value > max)) return { error: `${expected}; ${typed(raw)} is not.` };
      return value;
    }
    case ApplicationCommandOptionType.Boolean: {
      const lowered = raw.toLowerCase();
      if (['true', 'yes', 'on'].includes(lowered)) return true;
      if (['false', 'no', 'off'].includes(lowered)) return false;
      return { error: `${label} must be true or false; “${typed(raw)}” is neither.` };
    }
    case ApplicationCommandOptionType.Channel: {
      const name = raw.replace(/^#/, '');
      if (name === '') return { error: `${label} needs a channel name, such as #general.` };
      return { id: name, name, kind: 'text' } satisfies ChannelRef;
    }
    case ApplicationCommandOptionType.Role: {
      const name = raw.replace(/^@/, '');
      if (name === '') return { error: `${label} needs a role name, such as @readers.` };
      return { id: name, name } satisfies RoleRef;
    }
    default:
      return { error: `${label} cannot be given at the console.` };
  }
}

/** " Did you mean <prefix><name>?" for the known name nearest to a mistyped one, or nothing when none is near. */
function didYouMean(mistyped: string, names: readonly string[], prefix = ''): string {
  const nearest = nearestName(mistyped, names);
  return nearest === null ? '' : ` Did you mean ${prefix}${nearest}?`;
}

/** Reads a slash command as typed in Discord: `/wotd-find word:"two words" …`. */
export function parseInvocation(tokens: string[], commands: SlashCommand[]): ConsoleInput {
  const [head = '', ...rest] = tokens;
  const name = head.slice(1).toLowerCase();
  const command = commands.find((candidate) => candidate.data.name === name);
  if (!command) {
    const known = commands.map((candidate) => `/${candidate.data.name}`).join(', ');
    const hint = didYouMean(name, commands.map((candidate) => candidate.data.name), '/');
    return { kind: 'error', message: `There is no command ${typed(head)}.${hint} Commands: ${known}. Type help for more.` };
  }
  const subcommands = subcommandsOf(command);
  let subcommand: string | null = null;
  if (subcommands.length > 0) {
    const names = subcommands.map((sub) => sub.name);
    const chosen = (rest[0] ?? '').toLowerCase();
    if (!names.includes(chosen)) {
      const given = rest[0] === undefined ? '' : ` “${typed(rest[0])}” is not one of them.${didYouMean(chosen, names)}`;
      return { kind: 'error', message: `/${command.data.name} needs one of: ${names.join(', ')}.${given} For example: /${command.data.name} ${names[0] ?? ''}` };
    }
    subcommand = chosen;
    rest.shift();
  }
  const options = optionsOf(command, subcommand);
  const values = new Map<string, ConsoleOptionValue>();
  for (const token of rest) {
    const colon = token.indexOf(':');
    if (colon <= 0) {
      const example = options[0] ? ` such as ${options[0].name}:…` : '';
      return { kind: 'error', message: `“${typed(token)}” is not an option: write options as name:value${example}. Try: ${usageOf(command, subcommand)}` };
    }
    const optionName = token.slice(0, colon).toLowerCase();
    const option = options.find((candidate) => candidate.name === optionName);
    if (!option) {
      const names = options.map((candidate) => candidate.name);
      const known = options.length > 0 ? `Its options: ${names.join(', ')}.` : 'It takes no options.';
      return { kind: 'error', message: `/${command.data.name} has no option “${typed(optionName)}”.${didYouMean(optionName, names)} ${known}` };
    }
    if (values.has(option.name)) return { kind: 'error', message: `/${command.data.name} ${option.name} is given twice.` };
    const value = readValue(command.data.name, option, token.slice(colon + 1));
    if (typeof value === 'object' && 'error' in value) return { kind: 'error', message: value.error };
    values.set(option.name, value);
  }
  const missing = options.filter((option) => option.required && !values.has(option.name));
  if (missing.length > 0) {
    return {
      kind: 'error',
      message: `/${command.data.name} needs ${missing.map((option) => `${option.name}:…`).join(' ')}. Try: ${usageOf(command, subcommand)}`,
    };
  }
  return { kind: 'command', invocation: { command, subcommand, values } };
}

/** Reads one console line: a slash command, `press <button>`, `help` or `exit`. */
export function parseConsoleLine(line: string, commands: SlashCommand[]): ConsoleInput {
  const trimmed = line.trim();
  if (trimmed === '') return { kind: 'empty' };
  const split = tokenize(trimmed);
  if ('error' in split) return { kind: 'error', message: split.error };
  const [head = '', ...rest] = split.tokens;
  const word = head.toLowerCase();
  if (head.startsWith('/')) return parseInvocation(split.tokens, commands);
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
            ? 'Press which button? For example: press Older (or press 1), on the latest message with buttons.'
            : `Press which button of message #${message}? For example: press #${message} Older (or press #${message} 1).`,
      };
    }
    return { kind: 'press', target, message };
  }
  if (commands.some((command) => command.data.name === word)) {
    return { kind: 'error', message: `Slash commands start with a slash: /${word}. Type help for more.` };
  }
  return { kind: 'error', message: `“${typed(head)}” is not something I understand. Type a slash command such as /wotd, or help.` };
}
