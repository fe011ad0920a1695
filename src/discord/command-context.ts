import type { ChatInputCommandInteraction, Guild, GuildBasedChannel } from 'discord.js';
import type { ChannelPermission, CommandContext, CommandOptions } from '../replies/interactions.ts';
import { botPermissionsIn, readGuildChannel } from './bot-permissions.ts';
import { commandOptions } from './command-options.ts';
import { forumFactsIn } from './forum-facts.ts';
import type { ForumFacts } from '../replies/interactions.ts';
import { memberCanManageChannelIn } from './discord-member-permissions.ts';
import { RespondableContext } from './respondable-context.ts';
import { watched, type SendingHooks, type TrackedResponses } from './sending-hooks.ts';

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

  forumFactsOf(channelId: string): Promise<ForumFacts | null> {
    return forumFactsIn(this.interaction.guild, channelId, (guild, id) => this.readChannel(guild, id));
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

export function createCommandContext(interaction: ChatInputCommandInteraction, hooks?: SendingHooks): CommandContext & TrackedResponses {
  return new DiscordCommandContext(interaction, hooks);
}
