import type { LocalizationMap } from 'discord.js';
import type {
  AutocompleteChoice,
  AutocompleteContext,
  BotServices,
  ButtonContext,
  ButtonSpec,
  ChannelPermission,
  ChannelRef,
  CommandContext,
  CommandOptions,
  Invoker,
  OutgoingMessage,
  Respondable,
  RoleRef,
  SlashCommand,
} from '../replies/interactions.ts';
import { buttonPrefix } from '../replies/interactions.ts';
import { PERMISSION_NAMES, pendingDmNotice, REQUIRED_PERMISSIONS } from '../replies/admin-replies.ts';
import { runNotingWrites, type WriteTrace } from '../store/store-watch.ts';
import { storeFailureReply } from '../replies/store-failure.ts';
import { commandOptions, optionHelp, parseConsoleLine, subcommandsOf, tokenize, typed, usageOf, type ConsoleOptionValue, type Invocation } from './parse.ts';
import { consoleNames, type ConsoleNames } from './console-names.ts';
import { renderMessage } from './render.ts';
import { ShownMessages, type PostPlace, type ShownMessage } from './shown-messages.ts';
import { dmUserOf } from '../schedule/subscription.ts';
import { terminalText } from '../replies/terminal-text.ts';
import { translatorFor, type Translate } from '../replies/i18n/translate.ts';
import { consoleLocale } from './console-locale.ts';
import { formContext, formPrompt, type PendingForm } from './console-form.ts';
import { buttonPrefix as formPrefix } from '../replies/interactions.ts';

export { consoleLocale } from './console-locale.ts';

export interface ConsoleSessionOptions {
  commands: SlashCommand[];
  services: BotServices;
  /** Where replies go (standard output). */
  write: (text: string) => void;
  /** ANSI styling, for a terminal. */
  color: boolean;
  /** Say so when a command defers, as Discord shows "is thinking…". */
  showThinking: boolean;
  now?: () => Date;
  /** The console's language (see consoleLocale); the environment's when absent. */
  locale?: string | undefined;
}

/** How a message is shown: what made it, and for an updated one, the number it already had (and its place, a post's). */
interface ShowOptions {
  source: string;
  number?: number;
  note?: string;
  post?: PostPlace;
}

/** The one member at the console: in a server the bot is in, allowed to manage its channels and the server. */
const CONSOLE_INVOKER: Invoker = {
  userId: 'console',
  guildId: 'console',
  channelId: 'console',
  canManageChannels: true,
  canManageGuild: true,
  context: 'guild',
  botInGuild: true,
};

function optionsFrom(values: Map<string, ConsoleOptionValue>, subcommand: string | null): CommandOptions {
  const pick = <T>(name: string, test: (value: ConsoleOptionValue) => value is T & ConsoleOptionValue): T | null => {
    const value = values.get(name);
    return value !== undefined && test(value) ? value : null;
  };
  return {
    getString: (name) => pick(name, (value): value is string => typeof value === 'string'),
    getInteger: (name) => pick(name, (value): value is number => typeof value === 'number' && Number.isInteger(value)),
    getBoolean: (name) => pick(name, (value): value is boolean => typeof value === 'boolean'),
    getSubcommand: () => subcommand,
    getChannel: (name) => pick(name, (value): value is ChannelRef => typeof value === 'object' && 'kind' in value),
    getRole: (name) => pick(name, (value): value is RoleRef => typeof value === 'object' && !('kind' in value)),
  };
}

/** One console conversation: reads lines, runs commands and buttons on the console transport, prints replies. */
export class ConsoleSession {
  private readonly shown = new ShownMessages();
  private readonly now: () => Date;
  /** The person at the console, in the console's language (private and public replies alike). */
  private readonly invoker: Invoker;
  private readonly locale: string | undefined;
  private readonly t: Translate;
  /** The names it accepts and shows: the English ones and its language's (`/wotd-verlauf datum:`). */
  private readonly names: ConsoleNames;

  constructor(private readonly options: ConsoleSessionOptions) {
    this.now = options.now ?? (() => new Date());
    this.locale = 'locale' in options ? options.locale : consoleLocale();
    this.t = translatorFor(this.locale);
    this.names = consoleNames(this.locale);
    this.invoker = { ...CONSOLE_INVOKER, ...(this.locale ? { locale: this.locale, guildLocale: this.locale } : {}) };
  }

  /** A command's or option's description in the console's language, from its Discord localizations. */
  private described(text: string, localizations: LocalizationMap | null | undefined): string {
    const discord = this.names.discord;
    return (discord && localizations?.[discord as keyof LocalizationMap]) || text;
  }

  /** A form waiting for its line (the next one typed). */
  private form: PendingForm | null = null;

  /** Handles one typed line; resolves to false when the member asked to leave. */
  async handleLine(line: string): Promise<boolean> {
    if (this.form) {
      await this.submitForm(this.form, line);
      return true;
    }
    const input = parseConsoleLine(line, this.options.commands, this.t, this.names);
    switch (input.kind) {
      case 'empty':
        return true;
      case 'exit':
        return false;
      case 'help':
        this.print(this.helpText());
        return true;
      case 'error':
        this.print(input.message);
        return true;
      case 'press':
        await this.press(input.target, input.message);
        return true;
      case 'command':
        await this.run(input.invocation, line.trim());
        return true;
    }
  }

  helpText(): string {
    const t = this.t;
    const lines = [t('console.help.title')];
    for (const command of this.options.commands) {
      const subcommands = subcommandsOf(command);
      const entries = subcommands.length > 0 ? subcommands : [null];
      const json = command.data.toJSON();
      for (const entry of entries) {
        const description = entry ? this.described(entry.description, entry.description_localizations) : this.described(json.description, json.description_localizations);
        lines.push(`  ${usageOf(command, entry?.name ?? null, this.names)}`, `      ${description}`);
        for (const option of optionHelp(command, entry?.name ?? null, this.names)) {
          lines.push(`      ${option.name}: ${this.described(option.description, option.description_localizations)}`);
        }
      }
    }
    lines.push(t('console.help.buttons', { older: t('button.older') }), t('console.help.posts'), t('console.help.exit'));
    return lines.join('\n');
  }

  private print(text: string): void {
    this.options.write(`${text}\n\n`);
  }

  private show(message: OutgoingMessage, options: ShowOptions): void {
    const buttons = message.buttons ?? [];
    const number = buttons.length === 0 ? undefined : (options.number ?? this.shown.take());
    const rendered = renderMessage(message, {
      color: this.options.color,
      now: this.now(),
      locale: this.locale,
      ...(number === undefined ? {} : { messageNumber: number }),
    });
    this.print(options.note ? `${options.note}\n${rendered}` : rendered);
    if (number !== undefined) this.shown.add({ number, source: options.source, buttons, ...(options.post ? { post: options.post } : {}) });
  }

  /**
   * A daily post printed at the console (console-poster.ts), so its buttons can be pressed like a reply's: the number
   * it goes by, kept when the post is edited (the quiz's reveal), or undefined when it has no buttons.
   */
  postShown(post: PostPlace & { buttons: ButtonSpec[] }, source: string): number | undefined {
    const earlier = this.shown.byPost(post.messageId);
    if (earlier && post.buttons.length > 0) {
      earlier.buttons = post.buttons;
      return earlier.number;
    }
    if (earlier) this.shown.remove(earlier);
    if (post.buttons.length === 0) return undefined;
    const number = this.shown.take();
    this.shown.add({ number, source, buttons: post.buttons, post: { channelId: post.channelId, messageId: post.messageId } });
    return number;
  }

  /**
   * Who presses a button: the console's member, in the channel of the daily post it sits on (in their DMs for a DM's,
   * outside any server), else where the console's replies are.
   */
  private presser(message: ShownMessage): Invoker {
    const channelId = message.post?.channelId;
    if (channelId === undefined) return this.invoker;
    if (dmUserOf(channelId) === null) return { ...this.invoker, channelId };
    return { ...this.invoker, channelId, guildId: null, context: 'bot_dm', canManageChannels: false, canManageGuild: false, guildLocale: null };
  }

  private respondable(source: string, invoker: Invoker = this.invoker): Respondable & { readonly acknowledged: boolean } {
    let acknowledged = false;
    const session = this;
    return {
      invoker,
      get acknowledged() {
        return acknowledged;
      },
      async defer() {
        if (acknowledged) return;
        acknowledged = true;
        if (session.options.showThinking) session.options.write(`${session.t('console.thinking')}\n`);
      },
      async respond(message) {
        acknowledged = true;
        session.show(message, { source });
      },
    };
  }

  private async run(invocation: Invocation, line: string): Promise<void> {
    const base = this.respondable(line);
    let formShown = false;
    const context: CommandContext = {
      commandName: invocation.command.data.name,
      options: optionsFrom(invocation.values, invocation.subcommand),
      invoker: base.invoker,
      get acknowledged() {
        return base.acknowledged || formShown;
      },
      defer: (options) => base.defer(options),
      respond: (message) => base.respond(message),
      // The console stands in for a server where the bot may do everything it needs.
      botPermissionsIn: async () => new Set(Object.keys(PERMISSION_NAMES) as ChannelPermission[]),
      // The person at the console is its server's admin, in every channel alike (CONSOLE_INVOKER).
      memberCanManageChannel: async () => CONSOLE_INVOKER.canManageChannels,
      showModal: async (modal) => {
        const prompt = formPrompt(modal, this.t);
        if (!prompt) return;
        this.form = prompt.pending;
        formShown = true;
        this.print(prompt.text);
      },
    };
    await this.guard(context, () => invocation.command.execute(context, this.options.services));
    const notice = await pendingDmNotice(this.options.services, CONSOLE_INVOKER.userId, this.locale).catch(() => null);
    if (notice) this.show(notice, { source: line });
  }

  private async press(target: string, number: number | null): Promise<void> {
    const found = this.shown.find(target, number, this.t);
    if (typeof found === 'string') {
      this.print(found);
      return;
    }
    const { message, button } = found;
    const label = terminalText(button.label);
    this.options.write(`${this.t('console.press.pressed', { label, number: String(message.number), source: typed(message.source) })}\n`);
    const prefix = buttonPrefix(button.customId);
    const command = this.options.commands.find((candidate) => candidate.button?.prefix === prefix);
    const base = this.respondable(`press #${message.number} ${label}`, this.presser(message));
    let updated = false;
    const session = this;
    const context: ButtonContext = {
      customId: button.customId,
      // A daily post's id, which its handlers check (the quiz's answers are taken on its own post only).
      ...(message.post ? { messageId: message.post.messageId } : {}),
      invoker: base.invoker,
      get acknowledged() {
        return base.acknowledged || updated;
      },
      defer: (options) => base.defer(options),
      respond: (reply) => base.respond(reply),
      async update(replacement) {
        updated = true;
        // Discord edits the message in place; here it is printed again, keeping its number, and its old buttons go.
        session.shown.remove(message);
        const note = session.t('console.press.updated', { number: String(message.number) });
        session.show(replacement, { note, source: message.source, number: message.number, ...(message.post ? { post: message.post } : {}) });
      },
    };
    if (!command?.button) {
      await context.respond({ content: this.t('console.press.stale'), ephemeral: true });
      return;
    }
    const handler = command.button;
    await this.guard(context, () => handler.handle(context, this.options.services));
  }

  /** The line typed for a form, sent back to the command that showed it, as Discord sends a modal's submit. */
  private async submitForm(form: PendingForm, line: string): Promise<void> {
    this.form = null;
    const command = this.options.commands.find((candidate) => candidate.modal?.prefix === formPrefix(form.modal.customId));
    const context = formContext(form, line, this.respondable(form.modal.title), CONSOLE_INVOKER.canManageChannels);
    const handler = command?.modal;
    if (!handler) return context.respond({ content: this.t('console.press.stale'), ephemeral: true });
    await this.guard(context, () => handler.handle(context, this.options.services));
  }

  /** A fault of ours still gets an answer, never a stack trace. */
  private async guard(context: Respondable, work: () => Promise<void>): Promise<void> {
    const trace: WriteTrace = { wrote: false };
    try {
      await runNotingWrites(trace, work);
      if (!context.acknowledged) this.print(this.t('console.noReply'));
    } catch (error) {
      this.options.services.logger?.error({ err: error }, 'console command failed');
      this.print(storeFailureReply(error, trace, this.t) ?? this.t('common.tryAgain'));
    }
  }

  /**
   * Tab completion: command names, option names, and values from a command's autocomplete. readline inserts what a
   * completion adds to the text it was given, so every completion starts with that text; a lone completion of a
   * whole word (a command, a subcommand, a value) ends with a space, ready for the next option.
   */
  async complete(line: string): Promise<[string[], string]> {
    const [choices, completeOn] = await this.completions(line);
    const fitting = choices.filter((choice) => choice.startsWith(completeOn));
    const only = fitting.length === 1 ? (fitting[0] as string) : null;
    return [only !== null && !only.endsWith(':') && !only.endsWith(' ') ? [`${only} `] : fitting, completeOn];
  }

  private async completions(line: string): Promise<[string[], string]> {
    if (/^\s*press\s/i.test(line)) return this.shown.completePress(line);
    // A value being typed in quotes (word:"ad h) is read as if its quote were closed.
    const open = tokenize(line);
    const split = 'error' in open ? tokenize(`${line}"`) : open;
    if ('error' in split) return [[], line];
    const endsWithSpace = /\s$/.test(line);
    const tokens = split.tokens;
    const names = this.names;
    const definitions = this.options.commands.map((command) => command.data.toJSON());
    if (tokens.length <= 1 && !endsWithSpace) {
      const head = tokens[0] ?? '';
      const words = ['help', 'exit', 'press'].filter((word) => word.startsWith(head));
      return [[...names.completing(definitions, head, '/'), ...words], head];
    }
    const named = tokens[0]?.startsWith('/') ? names.find(definitions, tokens[0].slice(1)) : undefined;
    const command = named && this.options.commands[definitions.indexOf(named)];
    if (!command) return [[], line];
    const current = endsWithSpace ? '' : (tokens.at(-1) ?? '');
    const colon = current.indexOf(':');
    const subcommands = subcommandsOf(command);
    const subcommand = names.find(subcommands, tokens[1] ?? '')?.name ?? null;
    if (subcommands.length > 0 && subcommand === null) return [names.completing(subcommands, current), current];
    if (subcommands.length > 0 && tokens.length === 2 && !endsWithSpace) return [[current], current];
    const options = commandOptions(command, subcommand);
    if (colon < 0) return [names.completing(options, current, '', ':'), current];
    const optionName = current.slice(0, colon);
    const typed = current.slice(colon + 1);
    const option = names.find(options, optionName);
    // A choice by the name Discord shows for it; readline completes against the text as typed, quotes and all.
    const typedRaw = line.slice(line.lastIndexOf(`${optionName}:`));
    const quote = (value: string) => `${optionName}:${/\s/.test(value) ? `"${value}"` : value}`;
    if (option && 'choices' in option && option.choices) {
      const own = option.choices.map((choice) => quote(names.shown(choice))).filter((text) => text.startsWith(typedRaw));
      return [own.length > 0 ? own : option.choices.map((choice) => quote(choice.name)), typedRaw];
    }
    if (!command.autocomplete) return [[], current];
    const choices: AutocompleteChoice[] = [];
    const context: AutocompleteContext = {
      invoker: this.invoker,
      commandName: command.data.name,
      // The command reads its options by their English names, whatever name was typed.
      focused: { name: option?.name ?? optionName, value: typed },
      async respond(given) {
        choices.push(...given);
      },
    };
    try {
      await command.autocomplete(context, this.options.services);
    } catch {
      return [[], current];
    }
    return [choices.map((choice) => quote(choice.value)), typedRaw];
  }
}
