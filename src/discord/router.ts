import type { AutocompleteInteraction, ButtonInteraction, ChatInputCommandInteraction, Interaction, ModalSubmitInteraction } from 'discord.js';
import type { InteractionObserver } from '../replies/interaction-outcome.ts';
import { buttonPrefix, type BotServices, type ButtonContext, type CommandContext, type ModalContext, type OutgoingMessage, type Respondable, type SlashCommand } from '../replies/interactions.ts';
import type { Logger } from '../config/logger.ts';
import { pendingDmNotice } from '../replies/admin-replies.ts';
import { runNotingWrites, type WriteTrace } from '../store/store-watch.ts';
import { Deadline, DeadlineQueue } from '../replies/deadlines.ts';
import { storeFailureReply } from '../replies/store-failure.ts';
import { translatorFor } from '../replies/i18n/translate.ts';
import { createAutocompleteContext } from './autocomplete-context.ts';
import { createButtonContext } from './button-context.ts';
import { createCommandContext, createModalContext } from './command-context.ts';
import { InteractionWatch } from './interaction-watch.ts';
import type { TrackedResponses } from './sending-hooks.ts';

/** The router's own replies, in English (each member gets them in their own language). */
const ENGLISH = translatorFor('en');
export const SOMETHING_WENT_WRONG = ENGLISH('router.failed');
export const UNKNOWN_COMMAND = ENGLISH('router.unknownCommand');
export const UNKNOWN_BUTTON = ENGLISH('router.unknownButton');
/**
 * A command that has sent nothing this long after it started is deferred (privately) for it, so Discord's 3 s
 * deadline holds whatever it waits on: a locked or slow store, a slow Discord. Commands that may answer publicly
 * defer themselves much sooner (see replies/deliver.ts).
 */
export const SAFETY_DEFER_MS = 1_500;

/** The reply to a command or button that threw: a store's failure says whether anything changed; anything else is ours. */
function failedReply(error: unknown, trace: WriteTrace, locale: string): string {
  const t = translatorFor(locale);
  return storeFailureReply(error, trace, t) ?? t('router.failed');
}

export interface RouterOptions {
  commands: readonly SlashCommand[];
  services: BotServices;
  logger: Logger;
  /** Told once per command, button and autocomplete when it is done: name, outcome, timings (metrics, benchmarks). */
  onInteractionDone?: InteractionObserver;
}

interface LogOnDemand {
  get(): Logger;
}

/**
 * A child logger made only when something is logged: making one per interaction costs more than many answers do.
 * Its bindings too are only read then. An object rather than closures: one allocation per interaction.
 */
class LazyLog<I> implements LogOnDemand {
  private child: Logger | undefined;

  constructor(
    private readonly logger: Logger,
    private readonly interaction: I,
    private readonly bindings: (interaction: I) => Record<string, unknown>,
  ) {}

  get(): Logger {
    return (this.child ??= this.logger.child(this.bindings(this.interaction)));
  }
}

function commandBindings(interaction: ChatInputCommandInteraction): Record<string, unknown> {
  return { interactionId: interaction.id, command: interaction.commandName, guildId: interaction.guildId };
}

function componentBindings(interaction: ButtonInteraction | ModalSubmitInteraction): Record<string, unknown> {
  return { interactionId: interaction.id, [interaction.isButton() ? 'button' : 'modal']: buttonPrefix(interaction.customId), guildId: interaction.guildId };
}

function autocompleteBindings(interaction: AutocompleteInteraction): Record<string, unknown> {
  return { interactionId: interaction.id, command: interaction.commandName, autocomplete: true };
}

/** A command in progress, queued for its safety deferral. */
class SafetyDeferral extends Deadline {
  constructor(
    readonly context: CommandContext & TrackedResponses,
    readonly log: LogOnDemand,
  ) {
    super();
  }
}

/** A command's handler run: a function of its own, so runNotingWrites is handed no new closure per command. */
function execute(command: SlashCommand, context: CommandContext, services: BotServices): Promise<void> {
  return command.execute(context, services);
}

export type InteractionRouter = (interaction: Interaction) => Promise<void>;

/**
 * One entry point for every interaction: chat-input commands by name, buttons by custom-id prefix, autocomplete by
 * command name. A handler that throws is logged and the member gets a kind private message instead of Discord's
 * "This interaction failed"; the router never throws.
 */
export function createInteractionRouter(options: RouterOptions): InteractionRouter {
  const { services, logger } = options;
  const byName = new Map(options.commands.map((command) => [command.data.name, command]));
  const byPrefix = new Map<string, SlashCommand>();
  const byModalPrefix = new Map<string, SlashCommand>();
  for (const command of options.commands) {
    if (command.button) byPrefix.set(command.button.prefix, command);
    if (command.modal) byModalPrefix.set(command.modal.prefix, command);
  }

  /**
   * Answers privately on whichever path is still open: a reply, the place of a deferral, or a follow-up when a real
   * answer was already sent (which is left alone). A failure here is only logged.
   */
  async function answerPrivately(context: Respondable & TrackedResponses, message: OutgoingMessage, log: LogOnDemand): Promise<void> {
    try {
      if (context.answered) await context.followUp({ ...message, ephemeral: true });
      else await context.respond({ ...message, ephemeral: true });
    } catch (error) {
      log.get().warn({ err: error, acknowledged: context.acknowledged }, 'could not send the error reply');
    }
  }

  /** A command's safety deferral: due SAFETY_DEFER_MS after the command started, unless it was answered by then. */
  const safetyDeferrals = new DeadlineQueue<SafetyDeferral>(SAFETY_DEFER_MS, ({ context, log }) => {
    if (context.acknowledged) return;
    log.get().warn({ afterMs: SAFETY_DEFER_MS }, 'command is slow to answer; deferring it');
    context.defer({ ephemeral: true }).catch((error: unknown) => log.get().warn({ err: error }, 'could not defer a slow command'));
  });

  async function handleCommand(interaction: ChatInputCommandInteraction, watch?: InteractionWatch): Promise<void> {
    const log = new LazyLog(logger, interaction, commandBindings);
    const context = createCommandContext(interaction, watch);
    const command = byName.get(interaction.commandName);
    if (watch && command) watch.name = command.data.name;
    if (!command) {
      watch?.record('internal_error');
      log.get().warn('unknown command');
      await answerPrivately(context, { content: translatorFor(interaction.locale)('router.unknownCommand') }, log);
      return;
    }
    // The clock is read only for the debug line.
    const debug = logger.isLevelEnabled('debug');
    const started = debug ? performance.now() : 0;
    const safety = new SafetyDeferral(context, log);
    safetyDeferrals.add(safety);
    const trace: WriteTrace = { wrote: false };
    try {
      await runNotingWrites(trace, execute, command, context, services);
      if (!context.acknowledged) {
        // A handler that forgot to answer would leave the member with "This interaction failed".
        watch?.record('internal_error');
        log.get().error('command finished without answering');
        await answerPrivately(context, { content: translatorFor(interaction.locale)('router.failed') }, log);
      } else if (debug) log.get().debug({ ms: Math.round(performance.now() - started) }, 'command handled');
    } catch (error) {
      watch?.record('internal_error');
      log.get().error({ err: error, acknowledged: context.acknowledged }, 'command failed');
      await answerPrivately(context, { content: failedReply(error, trace, interaction.locale) }, log);
    } finally {
      safetyDeferrals.cancel(safety);
    }
    // Nearly always known at once: no member owes the notice (no async step per command for it).
    const subscriptions = services.subscriptions;
    if (subscriptions && subscriptions.mayOweDmNoticeNow?.(interaction.user.id) !== false) await tellPendingNotice(context, interaction.user.id, interaction.locale, log);
  }

  /** After any command, once: why the member's DM subscription was switched off, privately, beside the answer. */
  async function tellPendingNotice(context: Respondable & TrackedResponses, userId: string, locale: string, log: LogOnDemand): Promise<void> {
    try {
      const notice = await pendingDmNotice(services, userId, locale);
      if (notice) await context.followUp(notice);
    } catch (error) {
      log.get().warn({ err: error }, 'could not tell the member why their DM subscription was switched off');
    }
  }

  async function handleButton(interaction: ButtonInteraction, watch?: InteractionWatch): Promise<void> {
    const command = byPrefix.get(buttonPrefix(interaction.customId));
    const handler = command?.button;
    const context = createButtonContext(interaction, watch);
    await handleComponent('button', interaction, context, handler && (() => handler.handle(context, services)), watch);
  }

  /** A form sent back (Discord's modal submit), routed by its custom id's prefix like a button. */
  async function handleModal(interaction: ModalSubmitInteraction, watch?: InteractionWatch): Promise<void> {
    const command = byModalPrefix.get(buttonPrefix(interaction.customId));
    const handler = command?.modal;
    const context = createModalContext(interaction, watch);
    await handleComponent('modal', interaction, context, handler && (() => handler.handle(context, services)), watch);
  }

  async function handleComponent(
    kind: 'button' | 'modal',
    interaction: ButtonInteraction | ModalSubmitInteraction,
    context: (ButtonContext | ModalContext) & TrackedResponses,
    run: (() => Promise<void>) | undefined,
    watch?: InteractionWatch,
  ): Promise<void> {
    const prefix = buttonPrefix(interaction.customId);
    const log = new LazyLog(logger, interaction, componentBindings);
    if (watch) watch.kind = kind;
    if (watch && run) watch.name = prefix;
    if (!run) {
      // A button or form of a message from an older version of the bot: stale, not broken.
      watch?.record('user_error');
      log.get().warn({ customId: interaction.customId }, `unknown ${kind}`);
      await answerPrivately(context, { content: translatorFor(interaction.locale)('router.unknownButton') }, log);
      return;
    }
    const trace: WriteTrace = { wrote: false };
    try {
      await runNotingWrites(trace, run);
      if (!context.acknowledged) {
        watch?.record('internal_error');
        log.get().error({ customId: interaction.customId }, `${kind} finished without answering`);
        await answerPrivately(context, { content: translatorFor(interaction.locale)('router.failed') }, log);
        return;
      }
      if (logger.isLevelEnabled('debug')) log.get().debug(`${kind} handled`);
    } catch (error) {
      watch?.record('internal_error');
      log.get().error({ err: error, customId: interaction.customId, acknowledged: context.acknowledged }, `${kind} failed`);
      await answerPrivately(context, { content: failedReply(error, trace, interaction.locale) }, log);
    }
  }

  async function handleAutocomplete(interaction: AutocompleteInteraction, watch?: InteractionWatch): Promise<void> {
    const log = new LazyLog(logger, interaction, autocompleteBindings);
    const command = byName.get(interaction.commandName);
    if (watch) watch.kind = 'autocomplete';
    if (watch && command?.autocomplete) watch.name = command.data.name;
    try {
      const context = createAutocompleteContext(interaction, watch);
      if (command?.autocomplete) await command.autocomplete(context, services);
      else log.get().warn('autocomplete for a command without it');
    } catch (error) {
      watch?.record('internal_error');
      log.get().error({ err: error }, 'autocomplete failed');
    }
    // Discord shows "loading options failed" to a member left without an answer; an empty list is kinder.
    if (!interaction.responded) {
      try {
        watch?.sending();
        await interaction.respond([]);
        watch?.responded();
      } catch (error) {
        log.get().warn({ err: error }, 'could not send an empty autocomplete answer');
      }
    }
  }

  const observer = options.onInteractionDone;
  return async (interaction) => {
    const watch = observer ? new InteractionWatch(interaction.id, performance.now()) : undefined;
    try {
      if (interaction.isChatInputCommand()) await handleCommand(interaction, watch);
      else if (interaction.isButton()) await handleButton(interaction, watch);
      else if (interaction.isModalSubmit()) await handleModal(interaction, watch);
      else if (interaction.isAutocomplete()) await handleAutocomplete(interaction, watch);
      else {
        logger.debug({ interactionId: interaction.id, type: interaction.type }, 'ignored an interaction of another kind');
        return;
      }
    } catch (error) {
      watch?.record('internal_error');
      logger.error({ err: error, interactionId: interaction.id }, 'interaction routing failed');
    }
    if (observer && watch) {
      try {
        observer(watch.done());
      } catch (error) {
        logger.warn({ err: error, interactionId: interaction.id }, 'the interaction observer failed');
      }
    }
  };
}
