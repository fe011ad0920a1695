import type { ChatInputCommandInteraction, Guild, GuildBasedChannel, ModalSubmitInteraction } from 'discord.js';
import type { ChannelPermission, ChannelRef, CommandContext, CommandOptions, ForumFacts, ModalContext, ModalSpec } from '../replies/interactions.ts';
import { botPermissionsIn, readGuildChannel } from './bot-permissions.ts';
import { channelKind, commandOptions } from './command-options.ts';
import { forumFactsIn } from './forum-facts.ts';
import { memberCanManageChannelIn } from './discord-member-permissions.ts';
import { modalPayload } from './interaction-payloads.ts';
import { RespondableContext } from './respondable-context.ts';
import type { SendingHooks, TrackedResponses } from './sending-hooks.ts';

/** What a command and a form sent back share: the permissions of the bot and the member in a channel of the server. */
abstract class GuildChannelContext extends RespondableContext {
  constructor(
    protected readonly interaction: ChatInputCommandInteraction | ModalSubmitInteraction,
    hooks: SendingHooks | undefined,
  ) {
    super(interaction, hooks);
  }

  /** Channels read for this interaction: the bot's check and the member's share one GET /channels/:id. */
  private reads: Map<string, Promise<GuildBasedChannel | null>> | undefined;

  protected readChannel(guild: Guild, channelId: string): Promise<GuildBasedChannel | null> {
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

  forumFactsOf(channelId: string): Promise<ForumFacts | null> {
    return forumFactsIn(this.interaction.guild, channelId, (guild, id) => this.readChannel(guild, id));
  }

  async memberCanManageChannel(channelId: string): Promise<boolean | null> {
    const { guild, member } = this.interaction;
    if (!guild || !member) return null;
    return memberCanManageChannelIn(guild, member, this.interaction.user.id, channelId, (known, id) => this.readChannel(known, id));
  }

  async defer(options?: { ephemeral?: boolean }): Promise<void> {
    this.hooks?.sending(options);
    if (!this.responder.acknowledged) await this.responder.deferReply(options?.ephemeral ?? false);
    this.hooks?.responded();
  }
}

class DiscordCommandContext extends GuildChannelContext implements CommandContext {
  readonly commandName: string;
  readonly options: CommandOptions;

  constructor(
    private readonly command: ChatInputCommandInteraction,
    hooks: SendingHooks | undefined,
  ) {
    super(command, hooks);
    this.commandName = command.commandName;
    this.options = commandOptions(command);
  }

  async showModal(modal: ModalSpec): Promise<void> {
    this.hooks?.sending(modal);
    await this.responder.showModal(() => this.command.showModal(modalPayload(modal)));
    this.hooks?.responded();
  }
}

class DiscordModalContext extends GuildChannelContext implements ModalContext {
  readonly customId: string;

  constructor(
    private readonly submit: ModalSubmitInteraction,
    hooks: SendingHooks | undefined,
  ) {
    super(submit, hooks);
    this.customId = submit.customId;
  }

  value(inputId: string): string | null {
    const field = this.submit.fields.fields.get(inputId);
    return field && 'value' in field && typeof field.value === 'string' ? field.value : null;
  }

  async channel(channelId: string): Promise<ChannelRef | null> {
    const guild = this.submit.guild;
    const channel = guild ? await this.readChannel(guild, channelId) : null;
    return channel ? { id: channel.id, name: channel.name, kind: channelKind(channel.type) } : null;
  }
}

export function createCommandContext(interaction: ChatInputCommandInteraction, hooks?: SendingHooks): CommandContext & TrackedResponses {
  return new DiscordCommandContext(interaction, hooks);
}

export function createModalContext(interaction: ModalSubmitInteraction, hooks?: SendingHooks): ModalContext & TrackedResponses {
  return new DiscordModalContext(interaction, hooks);
}
