import { ApplicationIntegrationType, ChannelType, InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { BotServices, CommandContext, SlashCommand } from '../src/replies/interactions.ts';
import { privateNote, userError } from '../src/replies/messages.ts';
import { adminGate, channelMention, isConsoleChannel } from '../src/replies/admin-replies.ts';

const data = new SlashCommandBuilder()
  .setName('wotd-unsubscribe')
  .setDescription('Stop the daily word of the day in a channel')
  .setDefaultMemberPermissions(PermissionFlagsBits.ManageChannels)
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
  .setContexts(InteractionContextType.Guild)
  .addChannelOption((option) =>
    option
      .setName('channel')
      .setDescription('The subscribed channel')
      .setRequired(true)
      .addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement),
  );

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const channel = context.options.getChannel('channel');
  const gate = await adminGate(context, services, channel);
  if (!gate) return;
  if (!channel) return context.respond(userError('Choose the channel to stop posting in.'));
  const where = channelMention(channel.id, channel.name, isConsoleChannel(channel.id));
  const removed = await gate.subscriptions.unsubscribe(gate.guildId, channel.id);
  if (!removed) return context.respond(userError(`${where} has no daily-post subscription; nothing to remove. /wotd-subscriptions lists them.`));
  await context.respond(privateNote(`Unsubscribed ${where}: no more daily posts there.`));
}

export const wotdUnsubscribeCommand: SlashCommand = { data, execute };
