import type { AutocompleteInteraction, ButtonInteraction, ChatInputCommandInteraction, Interaction } from 'discord.js';
import type { BotServices, OutgoingMessage, Respondable, SlashCommand } from '../interactions.ts';
import type { Logger } from '../logger.ts';
import { createAutocompleteContext, createButtonContext, createCommandContext, type TrackedResponses } from './contexts.ts';

export const SOMETHING_WENT_WRONG =
  'Sorry, something went wrong on my side while handling that. Please try again in a moment.';
export const UNKNOWN_COMMAND = 'I do not know that command any more. Its list may be out of date; try again in a minute.';
export const UNKNOWN_BUTTON = 'This button no longer works. Run the command again for a fresh one.';

export interface RouterOptions {
  commands: readonly SlashCommand[];
  services: BotServices;
  logger: Logger;
  /** Told about every command, button and autocomplete once handled; for measuring (bench:commands). */
  onInteractionDone?: (timing: InteractionTiming) => void;
}

/** How one interaction went, with performance.now() instants. */
export interface InteractionTiming {
  interactionId: string;
  kind: 'command' | 'button' | 'autocomplete';
  /** The command's name, or the button's custom-id prefix. */
  name: string;
  /** failed: the handler threw or left the member unanswered; unknown: nothing handles it. */
  outcome: 'answered' | 'failed' | 'unknown';
  /** When discord.js handed the interaction to the router. */
  receivedAt: number;
  /** When the first callback (reply, deferral, update or choices) was handed to discord.js to send; undefined when none was. */
  firstResponseAt: number | undefined;
  doneAt: number;
}

/** What a handler tells the timing observer. */
interface Report {
  outcome: InteractionTiming['outcome'];
  responses?: { readonly firstCallbackAt: number | undefined };
}

/** A child logger made only when something is logged: making one per interaction costs more than many answers do. */
function lazyChild(logger: Logger, bindings: Record<string, unknown>): () => Logger {
  let child: Logger | undefined;
  return () => (child ??= logger.child(bindings));
}

export type InteractionRouter = (interaction: Interaction) => Promise<void>;

/** The part of a button's custom id before the first ':' names the command that handles it. */
export function buttonPrefix(customId: string): string {
  const colon = customId.indexOf(':');
  return colon === -1 ? customId : customId.slice(0, colon);
}

/**
 * One entry point for every interaction: chat-input commands by name, buttons by custom-id prefix, autocomplete by
 * command name. A handler that throws is logged and the member gets a kind private message instead of Discord's
 * "This interaction failed"; the router never throws.
 */
export function createInteractionRouter(options: RouterOptions): InteractionRouter {
  const { services, logger } = options;
  const byName = new Map(options.commands.map((command) => [command.data.name, command]));
  const byPrefix = new Map<string, SlashCommand>();
  for (const command of options.commands) {
    if (command.button) byPrefix.set(command.button.prefix, command);
  }

  /**
   * Answers privately on whichever path is still open: a reply, the place of a deferral, or a follow-up when a real
   * answer was already sent (which is left alone). A failure here is only logged.
   */
  async function answerPrivately(context: Respondable & TrackedResponses, message: OutgoingMessage, log: () => Logger): Promise<void> {
    try {
      if (context.answered) await context.followUp({ ...message, ephemeral: true });
      else await context.respond({ ...message, ephemeral: true });
    } catch (error) {
      log().warn({ err: error, acknowledged: context.acknowledged }, 'could not send the error reply');
    }
  }

  async function handleCommand(interaction: ChatInputCommandInteraction, report: Report): Promise<void> {
    const log = lazyChild(logger, { interactionId: interaction.id, command: interaction.commandName, guildId: interaction.guildId });
    const context = createCommandContext(interaction);
    report.responses = context;
    const command = byName.get(interaction.commandName);
    if (!command) {
      report.outcome = 'unknown';
      log().warn('unknown command');
      await answerPrivately(context, { content: UNKNOWN_COMMAND }, log);
      return;
    }
    const started = performance.now();
    try {
      await command.execute(context, services);
      if (!context.acknowledged) {
        // A handler that forgot to answer would leave the member with "This interaction failed".
        report.outcome = 'failed';
        log().error('command finished without answering');
        await answerPrivately(context, { content: SOMETHING_WENT_WRONG }, log);
        return;
      }
      if (logger.isLevelEnabled('debug')) log().debug({ ms: Math.round(performance.now() - started) }, 'command handled');
    } catch (error) {
      report.outcome = 'failed';
      log().error({ err: error, acknowledged: context.acknowledged }, 'command failed');
      await answerPrivately(context, { content: SOMETHING_WENT_WRONG }, log);
    }
  }

  async function handleButton(interaction: ButtonInteraction, report: Report): Promise<void> {
    const prefix = buttonPrefix(interaction.customId);
    const log = lazyChild(logger, { interactionId: interaction.id, button: prefix, guildId: interaction.guildId });
    const context = createButtonContext(interaction);
    report.responses = context;
    const command = byPrefix.get(prefix);
    if (!command?.button) {
      report.outcome = 'unknown';
      log().warn({ customId: interaction.customId }, 'unknown button');
      await answerPrivately(context, { content: UNKNOWN_BUTTON }, log);
      return;
    }
    try {
      await command.button.handle(context, services);
      if (!context.acknowledged) {
        report.outcome = 'failed';
        log().error({ customId: interaction.customId }, 'button finished without answering');
        await answerPrivately(context, { content: SOMETHING_WENT_WRONG }, log);
        return;
      }
      if (logger.isLevelEnabled('debug')) log().debug('button handled');
    } catch (error) {
      report.outcome = 'failed';
      log().error({ err: error, customId: interaction.customId, acknowledged: context.acknowledged }, 'button failed');
      await answerPrivately(context, { content: SOMETHING_WENT_WRONG }, log);
    }
  }

  async function handleAutocomplete(interaction: AutocompleteInteraction, report: Report): Promise<void> {
    const log = lazyChild(logger, { interactionId: interaction.id, command: interaction.commandName, autocomplete: true });
    const command = byName.get(interaction.commandName);
    try {
      const context = createAutocompleteContext(interaction);
      report.responses = context;
      if (command?.autocomplete) await command.autocomplete(context, services);
      else {
        report.outcome = 'unknown';
        log().warn('autocomplete for a command without it');
      }
    } catch (error) {
      report.outcome = 'failed';
      log().error({ err: error }, 'autocomplete failed');
    }
    // Discord shows "loading options failed" to a member left without an answer; an empty list is kinder.
    if (!interaction.responded) {
      try {
        report.responses = { firstCallbackAt: performance.now() };
        await interaction.respond([]);
      } catch (error) {
        log().warn({ err: error }, 'could not send an empty autocomplete answer');
      }
    }
  }

  const onDone = options.onInteractionDone;
  return async (interaction) => {
    const receivedAt = performance.now();
    const report: Report = { outcome: 'answered' };
    let kind: InteractionTiming['kind'] | undefined;
    try {
      if (interaction.isChatInputCommand()) {
        kind = 'command';
        await handleCommand(interaction, report);
      } else if (interaction.isButton()) {
        kind = 'button';
        await handleButton(interaction, report);
      } else if (interaction.isAutocomplete()) {
        kind = 'autocomplete';
        await handleAutocomplete(interaction, report);
      } else logger.debug({ interactionId: interaction.id, type: interaction.type }, 'ignored an interaction of another kind');
    } catch (error) {
      report.outcome = 'failed';
      logger.error({ err: error, interactionId: interaction.id }, 'interaction routing failed');
    }
    if (!onDone || !kind) return;
    try {
      reportTiming(onDone, interaction, kind, report, receivedAt);
    } catch (error) {
      logger.warn({ err: error, interactionId: interaction.id }, 'the interaction timing observer failed');
    }
  };
}

function reportTiming(
  onDone: (timing: InteractionTiming) => void,
  interaction: Interaction,
  kind: InteractionTiming['kind'],
  report: Report,
  receivedAt: number,
): void {
  const name = interaction.isButton() ? buttonPrefix(interaction.customId) : interaction.isCommand() || interaction.isAutocomplete() ? interaction.commandName : '';
  onDone({
    interactionId: interaction.id,
    kind,
    name,
    outcome: report.outcome,
    receivedAt,
    firstResponseAt: report.responses?.firstCallbackAt,
    doneAt: performance.now(),
  });
}
