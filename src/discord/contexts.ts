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
  type Guild,
  type GuildBasedChannel,
  type InteractionEditReplyOptions,
  type InteractionReplyOptions,
  type JSONEncodable,
} from 'discord.js';
import type {
  AutocompleteChoice,
  AutocompleteContext,
  ButtonContext,
  ButtonSpec,
  ChannelPermission,
  ChannelRef,
  CommandContext,
  CommandOptions,
  InvocationContext,
  Invoker,
  OutgoingFile,
  OutgoingMessage,
  Respondable,
} from '../replies/interactions.ts';
import { botPermissionsIn, readGuildChannel } from './bot-permissions.ts';
import { memberCanManageChannelIn } from './discord-member-permissions.ts';
import { clip } from '../replies/embeds.ts';

/**
 * Told of everything a context sends, whichever method sends it, without the handler knowing (the router's
 * InteractionWatch). Given to the context when it is made: wrapping a made context's methods in place, as this once
 * did, kept each interaction's objects alive through young-generation collections (bench:commands' GC pauses).
 */
export interface SendingHooks {
  /** Something is about to be handed to discord.js: `message` is what the handler asked to send, if anything. */
  sending(message?: object): void;
  /** discord.js accepted it. */
  responded(): void;
}

/** Runs `send`, telling `hooks` (if any) before and after. */
function watched<T>(hooks: SendingHooks | undefined, message: object | undefined, send: () => Promise<T>): Promise<T> {
  if (!hooks) return send();
  hooks.sending(message);
  return send().then((result) => {
    hooks.responded();
    return result;
  });
}

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

/*
 * The options and contexts below are made once per interaction, so their functions are methods, not arrow-function
 * properties: run through tsx (as `npm start` runs the bot), esbuild's keepNames names every arrow function stored
 * under a property at run time (Object.defineProperty), about half a microsecond each.
 */
function commandOptions(interaction: ChatInputCommandInteraction): CommandOptions {
  const options = interaction.options;
  return {
    getString(name) {
      return options.getString(name);
    },
    getInteger(name) {
      return options.getInteger(name);
    },
    getBoolean(name) {
      return options.getBoolean(name);
    },
    getSubcommand() {
      return options.getSubcommand(false);
    },
    getChannel(name) {
      const channel = options.getChannel(name);
      if (!channel) return null;
      return { id: channel.id, name: channel.name ?? channel.id, kind: channelKind(channel.type) };
    },
    getRole(name) {
      const role = options.getRole(name);
      return role ? { id: role.id, name: role.name } : null;
    },
  };
}

/**
 * What command and button contexts share: who asked, and answers tracked by the responder (read live). Classes, not
 * object literals: a literal's getter is a new closure per interaction, kept in a map of its own in the old
 * generation, and that kept every interaction's objects alive through young-generation collections (bench:commands).
 */
abstract class RespondableContext implements Respondable, TrackedResponses {
  readonly invoker: Invoker;
  protected readonly responder: Responder;

  constructor(
    interaction: RepliableInteraction,
    protected readonly hooks: SendingHooks | undefined,
  ) {
    this.invoker = invokerOf(interaction);
    this.responder = new Responder(interaction);
  }

  get acknowledged(): boolean {
    return this.responder.acknowledged;
  }

  get answered(): boolean {
    return this.responder.answered;
  }

  followUp(message: OutgoingMessage): Promise<void> {
    return watched(this.hooks, message, () => this.responder.followUp(message));
  }

  respond(message: OutgoingMessage): Promise<void> {
    return watched(this.hooks, message, () => this.responder.respond(message));
  }

  abstract defer(options?: { ephemeral?: boolean }): Promise<void>;
}

class DiscordCommandContext extends RespondableContext implements CommandContext {
  readonly commandName: string;
  readonly options: CommandOptions;

  constructor(
    private readonly interaction: ChatInputCommandInteraction,
    hooks: SendingHooks | undefined,
  ) {
    super(interaction, hooks);
    this.commandName = interaction.commandName;
    this.options = commandOptions(interaction);
  }

  /** Channels read for this interaction: the bot's check and the member's share one GET /channels/:id. */
  private reads: Map<string, Promise<GuildBasedChannel | null>> | undefined;

  private readChannel(guild: Guild, channelId: string): Promise<GuildBasedChannel | null> {
    this.reads ??= new Map();
    let read = this.reads.get(channelId);
    if (!read) {
      read = readGuildChannel(guild, channelId);
      this.reads.set(channelId, read);
    }
    return read;
  }

  botPermissionsIn(channelId: string): Promise<ReadonlySet<ChannelPermission>> {
    return botPermissionsIn(this.interaction.guild, channelId, (guild, id) => this.readChannel(guild, id));
  }

  async memberCanManageChannel(channelId: string): Promise<boolean | null> {
    const { guild, member } = this.interaction;
    if (!guild || !member) return null;
    return memberCanManageChannelIn(guild, member, this.interaction.user.id, channelId, (known, id) => this.readChannel(known, id));
  }

  defer(options?: { ephemeral?: boolean }): Promise<void> {
    return watched(this.hooks, options, async () => {
      if (this.responder.acknowledged) return;
      await this.responder.deferReply(options?.ephemeral ?? false);
    });
  }
}

class DiscordButtonContext extends RespondableContext implements ButtonContext {
  readonly customId: string;

  constructor(
    private readonly interaction: ButtonInteraction,
    hooks: SendingHooks | undefined,
  ) {
    super(interaction, hooks);
    this.customId = interaction.customId;
  }

  /** Public: a deferred update of the button's message (the usual case); ephemeral: a private "thinking" reply. */
  defer(options?: { ephemeral?: boolean }): Promise<void> {
    return watched(this.hooks, options, async () => {
      const responder = this.responder;
      if (responder.acknowledged) return;
      if (options?.ephemeral) {
        await responder.deferReply(true);
        return;
      }
      await this.interaction.deferUpdate();
      responder.ack = { kind: 'component' };
    });
  }

  update(message: OutgoingMessage): Promise<void> {
    return watched(this.hooks, message, async () => {
      const responder = this.responder;
      switch (responder.ack.kind) {
        case 'none':
          await this.interaction.update(replacementPayload(message));
          responder.ack = { kind: 'component' };
          responder.answered = true;
          return;
        case 'component':
          await this.interaction.editReply(replacementPayload(message));
          responder.answered = true;
          return;
        // After a private deferral the button's message is out of reach; the answer goes where the member looks.
        case 'reply':
        case 'gone':
          await responder.respond(message);
          return;
      }
    });
  }
}

export function createCommandContext(interaction: ChatInputCommandInteraction, hooks?: SendingHooks): CommandContext & TrackedResponses {
  return new DiscordCommandContext(interaction, hooks);
}

export function createButtonContext(interaction: ButtonInteraction, hooks?: SendingHooks): ButtonContext & TrackedResponses {
  return new DiscordButtonContext(interaction, hooks);
}

/** Choices as Discord takes them: at most 25, names cut to 100 characters, values whole or left out. */
export function autocompleteChoices(choices: AutocompleteChoice[]): AutocompleteChoice[] {
  return (
    choices
      // A value longer than Discord allows cannot be clipped without changing its meaning, so it is left out.
      .filter((choice) => choice.name.trim().length > 0 && choice.value.length > 0 && choice.value.length <= CHOICE_TEXT_LIMIT)
      .slice(0, MAX_CHOICES)
      .map((choice) => ({ name: clip(choice.name, CHOICE_TEXT_LIMIT), value: choice.value }))
  );
}

export function createAutocompleteContext(interaction: AutocompleteInteraction, hooks?: SendingHooks): AutocompleteContext {
  const focused = interaction.options.getFocused(true);
  let responded = false;
  return {
    commandName: interaction.commandName,
    invoker: invokerOf(interaction),
    focused: { name: focused.name, value: String(focused.value) },
    respond(choices: AutocompleteChoice[]) {
      return watched(hooks, undefined, async () => {
        if (responded || interaction.responded) return;
        responded = true;
        await interaction.respond(autocompleteChoices(choices));
      });
    },
  };
}
