import {
  AttachmentBuilder,
  ButtonStyle,
  ChannelType,
  ComponentType,
  InteractionContextType,
  MessageFlags,
  PermissionFlagsBits,
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
  type APIEmbed,
  type AutocompleteInteraction,
  type BaseInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type InteractionEditReplyOptions,
  type InteractionReplyOptions,
  type JSONEncodable,
} from 'discord.js';
import type {
  AutocompleteChoice,
  AutocompleteContext,
  ButtonContext,
  ButtonSpec,
  ChannelRef,
  CommandContext,
  CommandOptions,
  InvocationContext,
  Invoker,
  OutgoingFile,
  OutgoingMessage,
} from '../interactions.ts';
import { botPermissionsIn } from './bot-permissions.ts';
import { clip } from './embeds.ts';

/** What the router needs beyond the commands' view, to report a failure without destroying a good answer. */
export interface TrackedResponses {
  /** A real answer (not just a deferral) has reached the member. */
  readonly answered: boolean;
  /** Sends a new message after the answer, leaving the answer alone. */
  followUp(message: OutgoingMessage): Promise<void>;
}

/**
 * The command, button and autocomplete contexts over discord.js interactions.
 *
 * Where an answer goes depends on what the interaction has already been sent:
 * - nothing yet: `respond` replies (callback type 4), `update` replaces the button's message (type 7);
 * - a deferred or sent reply: `respond` edits it (PATCH @original); an ephemeral answer to a public reply deletes it
 *   and is sent as an ephemeral follow-up, since Discord cannot turn a public message private;
 * - a deferred update or an update of the button's message: `update` edits that message (PATCH @original) and
 *   `respond` sends a follow-up message.
 */

const BUTTONS_PER_ROW = 5;
const MAX_ROWS = 5;
const MAX_CHOICES = 25;
const BUTTON_LABEL_LIMIT = 80;
const CHOICE_TEXT_LIMIT = 100;

type Acknowledgement =
  /** Nothing sent yet. */
  | { kind: 'none' }
  /** A reply of ours (deferred or sent) is the original response. */
  | { kind: 'reply'; ephemeral: boolean }
  /** The original response is the message the button sits on (deferred update or update). */
  | { kind: 'component' }
  /** The original reply was deleted to make way for an ephemeral follow-up; later answers are follow-ups. */
  | { kind: 'gone' };

export function channelKind(type: ChannelType): ChannelRef['kind'] {
  if (type === ChannelType.GuildText) return 'text';
  if (type === ChannelType.GuildAnnouncement) return 'announcement';
  return 'other';
}

const CONTEXTS: Record<InteractionContextType, InvocationContext> = {
  [InteractionContextType.Guild]: 'guild',
  [InteractionContextType.BotDM]: 'bot_dm',
  [InteractionContextType.PrivateChannel]: 'private_channel',
};

export function invokerOf(interaction: BaseInteraction): Invoker {
  const context = interaction.context === null ? (interaction.guildId ? 'guild' : 'bot_dm') : CONTEXTS[interaction.context];
  return {
    userId: interaction.user.id,
    guildId: interaction.guildId,
    channelId: interaction.channelId ?? '',
    canManageChannels: interaction.memberPermissions?.has(PermissionFlagsBits.ManageChannels) ?? false,
    canManageGuild: interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild) ?? false,
    context,
    // The client has the Guilds intent, so every server the bot is in is cached; one only a user install reaches is not.
    botInGuild: interaction.guildId !== null && interaction.guild !== null,
  };
}

/** A method, not an own property: the data stays what it was to look at (and to compare in tests). */
const SENT_AS_IS = {
  toJSON(this: object) {
    return { ...this };
  },
};

/**
 * Marks data already in the API's own form to be sent as it is. discord.js runs plain objects in a payload through
 * its jsonTransformer (toSnakeCase: lodash's snakeCase on every key, all the way down) but sends a JSONEncodable's
 * toJSON() unchanged; in bench:commands' profile that re-keying of our embeds was a large part of each reply's cost,
 * as was building and validating buttons with discord.js's builders.
 */
export function sentAsIs<T extends object>(data: T): T & JSONEncodable<T> {
  return Object.assign(Object.create(SENT_AS_IS) as JSONEncodable<T>, data);
}

export type ButtonRow = APIActionRowComponent<APIButtonComponentWithCustomId> & JSONEncodable<APIActionRowComponent<APIButtonComponentWithCustomId>>;

export function buttonRows(buttons: ButtonSpec[] | undefined): ButtonRow[] {
  const rows: ButtonRow[] = [];
  const specs = (buttons ?? []).slice(0, BUTTONS_PER_ROW * MAX_ROWS);
  for (let start = 0; start < specs.length; start += BUTTONS_PER_ROW) {
    const components = specs.slice(start, start + BUTTONS_PER_ROW).map(
      (spec): APIButtonComponentWithCustomId => ({
        type: ComponentType.Button,
        custom_id: spec.customId,
        label: clip(spec.label, BUTTON_LABEL_LIMIT),
        style: spec.style === 'primary' ? ButtonStyle.Primary : spec.style === 'danger' ? ButtonStyle.Danger : ButtonStyle.Secondary,
        disabled: spec.disabled ?? false,
      }),
    );
    rows.push(sentAsIs({ type: ComponentType.ActionRow, components }));
  }
  return rows;
}

function embedsAsIs(embeds: APIEmbed[]): Array<APIEmbed & JSONEncodable<APIEmbed>> {
  return embeds.map(sentAsIs);
}

function allowedMentionsOf(message: OutgoingMessage): { parse: []; roles: string[] } {
  return { parse: [], roles: message.mentionRoleIds ?? [] };
}

/** A new message (reply or follow-up): only what the message has. */
export function newMessagePayload(message: OutgoingMessage): InteractionReplyOptions {
  const payload: InteractionReplyOptions = { allowedMentions: allowedMentionsOf(message) };
  if (message.content !== undefined) payload.content = message.content;
  if (message.embeds !== undefined) payload.embeds = embedsAsIs(message.embeds);
  if (message.buttons !== undefined && message.buttons.length > 0) payload.components = buttonRows(message.buttons);
  if (message.files !== undefined && message.files.length > 0) payload.files = attachmentsOf(message.files);
  if (message.ephemeral) payload.flags = MessageFlags.Ephemeral;
  return payload;
}

function attachmentsOf(files: OutgoingFile[]): AttachmentBuilder[] {
  return files.map((file) => new AttachmentBuilder(Buffer.from(file.text, 'utf8'), { name: file.name }));
}

/** A replacement of an existing message: whatever the new message lacks is cleared. */
export function replacementPayload(message: OutgoingMessage): InteractionEditReplyOptions {
  const payload: InteractionEditReplyOptions = {
    content: message.content ?? '',
    embeds: embedsAsIs(message.embeds ?? []),
    components: buttonRows(message.buttons),
    allowedMentions: allowedMentionsOf(message),
  };
  // Only answers that come after a deferral carry files (the export), so the message replaced never has any.
  if (message.files !== undefined && message.files.length > 0) payload.files = attachmentsOf(message.files);
  return payload;
}

type RepliableInteraction = ChatInputCommandInteraction | ButtonInteraction;

/** Shared bookkeeping of what has been sent for one interaction. */
class Responder {
  ack: Acknowledgement = { kind: 'none' };
  answered = false;
  /** Deferrals and answers go out one at a time: two must never race to be the interaction's first response. */
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly interaction: RepliableInteraction) {}

  get acknowledged(): boolean {
    return this.ack.kind !== 'none';
  }

  private inTurn<T>(send: () => Promise<T>): Promise<T> {
    const next = this.last.then(send, send);
    this.last = next.catch(() => undefined);
    return next;
  }

  /** Defers unless something was sent already (by the time its turn comes). */
  deferReply(ephemeral: boolean): Promise<void> {
    return this.inTurn(async () => {
      if (this.acknowledged) return;
      await this.interaction.deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {});
      this.ack = { kind: 'reply', ephemeral };
    });
  }

  respond(message: OutgoingMessage): Promise<void> {
    return this.inTurn(() => this.respondNow(message));
  }

  private async respondNow(message: OutgoingMessage): Promise<void> {
    const ack = this.ack;
    switch (ack.kind) {
      case 'none':
        await this.interaction.reply(newMessagePayload(message));
        this.ack = { kind: 'reply', ephemeral: message.ephemeral ?? false };
        break;
      case 'reply':
        if (message.ephemeral && !ack.ephemeral) {
          await this.interaction.deleteReply();
          this.ack = { kind: 'gone' };
          await this.interaction.followUp(newMessagePayload(message));
          break;
        }
        await this.interaction.editReply(replacementPayload(message));
        break;
      case 'component':
      case 'gone':
        await this.interaction.followUp(newMessagePayload(message));
        break;
    }
    this.answered = true;
  }

  followUp(message: OutgoingMessage): Promise<void> {
    return this.inTurn(async () => {
      if (this.ack.kind === 'none') {
        await this.respondNow(message);
        return;
      }
      await this.interaction.followUp(newMessagePayload(message));
    });
  }
}

function commandOptions(interaction: ChatInputCommandInteraction): CommandOptions {
  const options = interaction.options;
  return {
    getString: (name) => options.getString(name),
    getInteger: (name) => options.getInteger(name),
    getBoolean: (name) => options.getBoolean(name),
    getSubcommand: () => options.getSubcommand(false),
    getChannel: (name) => {
      const channel = options.getChannel(name);
      if (!channel) return null;
      return { id: channel.id, name: channel.name ?? channel.id, kind: channelKind(channel.type) };
    },
    getRole: (name) => {
      const role = options.getRole(name);
      return role ? { id: role.id, name: role.name } : null;
    },
  };
}

/** What command and button contexts share: who asked, and answers tracked by the responder (read live). */
function respondableBase(interaction: RepliableInteraction, responder: Responder) {
  return {
    invoker: invokerOf(interaction),
    get acknowledged() {
      return responder.acknowledged;
    },
    get answered() {
      return responder.answered;
    },
    followUp: (message: OutgoingMessage) => responder.followUp(message),
    respond: (message: OutgoingMessage) => responder.respond(message),
  };
}

export function createCommandContext(interaction: ChatInputCommandInteraction): CommandContext & TrackedResponses {
  const responder = new Responder(interaction);
  // Object.assign onto the base keeps its getters live (a spread would copy their current values).
  return Object.assign(respondableBase(interaction, responder), {
    commandName: interaction.commandName,
    options: commandOptions(interaction),
    botPermissionsIn: (channelId: string) => botPermissionsIn(interaction.guild, channelId),
    async defer(options?: { ephemeral?: boolean }) {
      if (responder.acknowledged) return;
      await responder.deferReply(options?.ephemeral ?? false);
    },
  });
}

export function createButtonContext(interaction: ButtonInteraction): ButtonContext & TrackedResponses {
  const responder = new Responder(interaction);
  return Object.assign(respondableBase(interaction, responder), {
    customId: interaction.customId,
    /** Public: a deferred update of the button's message (the usual case); ephemeral: a private "thinking" reply. */
    async defer(options?: { ephemeral?: boolean }) {
      if (responder.acknowledged) return;
      if (options?.ephemeral) {
        await responder.deferReply(true);
        return;
      }
      await interaction.deferUpdate();
      responder.ack = { kind: 'component' };
    },
    async update(message: OutgoingMessage) {
      switch (responder.ack.kind) {
        case 'none':
              await interaction.update(replacementPayload(message));
          responder.ack = { kind: 'component' };
          responder.answered = true;
          return;
        case 'component':
          await interaction.editReply(replacementPayload(message));
          responder.answered = true;
          return;
        // After a private deferral the button's message is out of reach; the answer goes where the member looks.
        case 'reply':
        case 'gone':
          await responder.respond(message);
          return;
      }
    },
  });
}

export function createAutocompleteContext(
  interaction: AutocompleteInteraction,
): AutocompleteContext {
  const focused = interaction.options.getFocused(true);
  let responded = false;
  return {
    commandName: interaction.commandName,
    invoker: invokerOf(interaction),
    focused: { name: focused.name, value: String(focused.value) },
    async respond(choices: AutocompleteChoice[]) {
      if (responded || interaction.responded) return;
      responded = true;
      await interaction.respond(
        choices
          // A value longer than Discord allows cannot be clipped without changing its meaning, so it is left out.
          .filter((choice) => choice.name.length > 0 && choice.value.length > 0 && choice.value.length <= CHOICE_TEXT_LIMIT)
          .slice(0, MAX_CHOICES)
          .map((choice) => ({ name: clip(choice.name, CHOICE_TEXT_LIMIT), value: choice.value })),
      );
    },
  };
}
