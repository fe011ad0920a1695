import { ApplicationIntegrationType, ChannelType, InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { BotServices, CommandContext, SlashCommand } from '../src/replies/interactions.ts';
import { privateNote, userError } from '../src/replies/messages.ts';
import { adminGate, channelMention, isConsoleChannel } from '../src/replies/admin-replies.ts';
import { named } from '../src/replies/i18n/command-text.ts';
import { privateT } from '../src/replies/i18n/reply-locale.ts';

const data = named(new SlashCommandBuilder(), 'command.wotd-unsubscribe.name', 'command.wotd-unsubscribe.description')
  .setDefaultMemberPermissions(PermissionFlagsBits.ManageChannels)
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
  .setContexts(InteractionContextType.Guild)
  .addChannelOption((option) =>
    named(option, 'option.channel.name', 'command.wotd-unsubscribe.channel.description')
      .setRequired(true)
      .addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement),
  );

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const t = privateT(context.invoker);
  const channel = context.options.getChannel('channel');
  const gate = await adminGate(context, services, channel);
  if (!gate) return;
  if (!channel) return context.respond(userError(t('unsubscribe.noChannel')));
  const where = channelMention(channel.id, channel.name, isConsoleChannel(channel.id));
  const removed = await gate.subscriptions.unsubscribe(gate.guildId, channel.id);
  if (!removed) return context.respond(userError(t('unsubscribe.none', { channel: where })));
  await context.respond(privateNote(t('unsubscribe.done', { channel: where })));
}

export const wotdUnsubscribeCommand: SlashCommand = { data, execute };
