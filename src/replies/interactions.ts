import type { APIEmbed, RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord.js';
import type { Logger } from '../config/logger.ts';
import type { LearningService } from '../learning/learning-service.ts';
import type { PrivacyService } from '../schedule/privacy.ts';
import type { SubscriptionService } from '../schedule/subscription-service.ts';
import type { WotdLookup } from '../wotd/lookup.ts';

/**
 * The narrow surface a command sees of an interaction. Both transports implement it:
 * the Discord one over discord.js, the console one in the terminal. Commands never touch raw discord.js objects.
 */

export interface ButtonSpec {
  /** Carries the button's whole state (at most 100 characters), so it works after a restart. */
  customId: string;
  label: string;
  style?: 'primary' | 'secondary' | 'danger';
  disabled?: boolean;
}

export interface OutgoingMessage {
  content?: string;
  embeds?: APIEmbed[];
  /** One row of buttons. */
  buttons?: ButtonSpec[];
  /** Seen only by the member who asked. */
  ephemeral?: boolean;
  /** Roles the message may ping; nothing else is ever allowed to ping. */
  mentionRoleIds?: string[];
  /** Files attached to the message (Discord: uploads; the console prints them). */
  files?: OutgoingFile[];
}

export interface OutgoingFile {
  name: string;
  /** Text content, sent as UTF-8. */
  text: string;
}

export interface ChannelRef {
  id: string;
  name: string;
  /** forum, media: a forum or a media channel, where each daily post is a post of its own. */
  kind: 'text' | 'announcement' | 'forum' | 'media' | 'other';
}

/** Whether each daily post in a channel of this kind is a post (a thread) of its own: forums and media channels. */
export function postsAsThreads(kind: ChannelRef['kind']): kind is 'forum' | 'media' {
  return kind === 'forum' || kind === 'media';
}

/** What the bot reads of a forum or media channel: its tags, and whether each post must carry one. */
export interface ForumFacts {
  tags: Array<{ id: string; name: string }>;
  requireTag: boolean;
}

export interface RoleRef {
  id: string;
  name: string;
}

export interface Invoker {
  userId: string;
  guildId: string | null;
  channelId: string;
  /**
   * The member holds Manage Channels where the command was used. A command that changes a channel's subscription
   * asks about that channel instead (CommandContext.memberCanManageChannel): overwrites differ from channel to channel.
   */
  canManageChannels: boolean;
  /** The member holds Manage Server in the invoking server (false, or absent, outside servers). */
  canManageGuild?: boolean;
  /**
   * Where the command was used: a server, the bot's DM, or a group DM or DM between users (only a member's user
   * install reaches those). Absent: a server when guildId is set, else the bot's DM.
   */
  context?: InvocationContext;
  /** False where the bot is not a member of the invoking server (a member's user install brought the command there). */
  botInGuild?: boolean;
  /** The member's client language (a Discord locale such as `de` or `es-419`): private replies are written in it. */
  locale?: string;
  /** The server's preferred locale (community servers), null outside servers or where Discord sends none. */
  guildLocale?: string | null;
}

export type InvocationContext = 'guild' | 'bot_dm' | 'private_channel';

export interface CommandOptions {
  getString(name: string): string | null;
  getInteger(name: string): number | null;
  getBoolean(name: string): boolean | null;
  /** The subcommand chosen, for a command that has them (`/wotd-data export`); null otherwise. */
  getSubcommand(): string | null;
  getChannel(name: string): ChannelRef | null;
  getRole(name: string): RoleRef | null;
}

/** Shared by every interaction that can be answered with a message. */
export interface Respondable {
  readonly invoker: Invoker;
  /** True once the interaction has been acknowledged (replied, deferred or updated). */
  readonly acknowledged: boolean;
  /** Acknowledge now and answer later, so the 3-second deadline is always met. */
  defer(options?: { ephemeral?: boolean }): Promise<void>;
  /**
   * Answer: replies when nothing was sent yet, otherwise edits the deferred reply.
   * An ephemeral answer after a public deferral replaces it with an ephemeral follow-up.
   */
  respond(message: OutgoingMessage): Promise<void>;
}

/**
 * A permission the bot needs in a channel it posts the daily word to (Create Public Threads: only for a thread on
 * each post).
 */
export type ChannelPermission = 'ViewChannel' | 'SendMessages' | 'EmbedLinks' | 'ReadMessageHistory' | 'CreatePublicThreads' | 'PinMessages' | 'ManageWebhooks';

export interface CommandContext extends Respondable {
  readonly commandName: string;
  readonly options: CommandOptions;
  /**
   * Which of the ChannelPermissions the bot holds in a channel of the invoking server (the console holds all).
   * A transport that cannot tell leaves it out, and commands that need it refuse rather than guess.
   */
  botPermissionsIn?(channelId: string): Promise<ReadonlySet<ChannelPermission>>;
  /**
   * Whether the invoking member holds Manage Channels in a channel of the invoking server, with that channel's
   * overwrites (null: the channel cannot be read, so nobody can tell). A transport that cannot tell leaves it out,
   * and the commands that change a subscription then refuse.
   */
  memberCanManageChannel?(channelId: string): Promise<boolean | null>;
  /** A forum or media channel's tags and whether posts need one (null: it cannot be read, or is no forum). */
  forumFactsOf?(channelId: string): Promise<ForumFacts | null>;
  /**
   * Answers with a form (Discord's modal); its submit goes to the command's `modal` handler. Only as the first
   * answer. A transport without forms leaves it out.
   */
  showModal?(modal: ModalSpec): Promise<void>;
}

/** A form (Discord's modal) of one-line text inputs; its custom id names the command that handles its submit. */
export interface ModalSpec {
  /** `${prefix}:…`, at most 100 characters; only what the handler checks again on submit may travel in it. */
  customId: string;
  /** At most 45 characters. */
  title: string;
  inputs: ModalInput[];
}

export interface ModalInput {
  customId: string;
  /** At most 45 characters. */
  label: string;
  /** At most 100 characters. */
  description?: string;
  /** Filled in (the current value); at most maxLength. */
  value?: string;
  maxLength: number;
}

/** A form sent back: its custom id and what was typed, where it was opened. */
export interface ModalContext extends Respondable {
  readonly customId: string;
  /** The text typed in input `inputId`; null when the form has no such input. */
  value(inputId: string): string | null;
  /** A channel of the invoking server as a ChannelRef, or null when it cannot be read. */
  channel(channelId: string): Promise<ChannelRef | null>;
  botPermissionsIn?(channelId: string): Promise<ReadonlySet<ChannelPermission>>;
  memberCanManageChannel?(channelId: string): Promise<boolean | null>;
  /** A forum or media channel's tags and whether posts need one (null: it cannot be read, or is no forum). */
  forumFactsOf?(channelId: string): Promise<ForumFacts | null>;
}

export interface ButtonContext extends Respondable {
  readonly customId: string;
  /** The message the button sits on (its id), for handlers that must check it is the one they expect. */
  readonly messageId?: string;
  /** Replace the message the button sits on. */
  update(message: OutgoingMessage): Promise<void>;
}

export interface AutocompleteChoice {
  name: string;
  value: string;
}

export interface AutocompleteContext {
  readonly invoker: Invoker;
  readonly commandName: string;
  readonly focused: { name: string; value: string };
  respond(choices: AutocompleteChoice[]): Promise<void>;
}

/** What commands are handed to do their work. */
export interface BotServices {
  lookup: WotdLookup;
  /** Where embed titles link, credited in every footer. */
  siteUrl: string;
  /** Where a command reports faults of its own (never the member's mistakes or the service's failures). */
  logger?: Logger;
  /** Channel subscriptions to the daily post, for the admin commands; absent where daily posts are not run. */
  subscriptions?: SubscriptionService;
  /** Export and erasure of what the bot stores (/wotd-data); absent where nothing is stored. */
  privacy?: PrivacyService;
  /** Saved words, review, quizzes and streaks; absent where nothing is stored. */
  learning?: LearningService;
}

export interface SlashCommand {
  data: { name: string; toJSON(): RESTPostAPIChatInputApplicationCommandsJSONBody };
  execute(context: CommandContext, services: BotServices): Promise<void>;
  autocomplete?(context: AutocompleteContext, services: BotServices): Promise<void>;
  /** Buttons whose custom id starts with `${prefix}:` are routed to this command. */
  button?: {
    prefix: string;
    handle(context: ButtonContext, services: BotServices): Promise<void>;
  };
  /** Forms whose custom id starts with `${prefix}:` are routed to this command when sent back. */
  modal?: {
    prefix: string;
    handle(context: ModalContext, services: BotServices): Promise<void>;
  };
}

/** The part of a button's custom id before the first ':' names the command that handles it. */
export function buttonPrefix(customId: string): string {
  const colon = customId.indexOf(':');
  return colon === -1 ? customId : customId.slice(0, colon);
}
