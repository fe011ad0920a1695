import { InteractionContextType, PermissionFlagsBits, type BaseInteraction } from 'discord.js';
import type { InvocationContext, Invoker } from '../replies/interactions.ts';

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
    locale: interaction.locale,
    guildLocale: interaction.guildLocale,
  };
}
