import { InteractionContextType, PermissionFlagsBits, type BaseInteraction } from 'discord.js';
import type { InvocationContext, Invoker } from '../replies/interactions.ts';

const CONTEXTS: Record<InteractionContextType, InvocationContext> = {
  [InteractionContextType.Guild]: 'guild',
  [InteractionContextType.BotDM]: 'bot_dm',
  [InteractionContextType.PrivateChannel]: 'private_channel',
};

/**
 * What PermissionsBitField.has(permission) answers (an administrator holds every permission), read from the bits
 * themselves: asked twice for every interaction, has() resolving its argument each time showed in bench:commands.
 */
function holds(bits: bigint | undefined, permission: bigint): boolean {
  if (bits === undefined) return false;
  return (bits & PermissionFlagsBits.Administrator) === PermissionFlagsBits.Administrator || (bits & permission) === permission;
}

export function invokerOf(interaction: BaseInteraction): Invoker {
  const context = interaction.context === null ? (interaction.guildId ? 'guild' : 'bot_dm') : CONTEXTS[interaction.context];
  const bits = interaction.memberPermissions?.bitfield;
  return {
    userId: interaction.user.id,
    guildId: interaction.guildId,
    channelId: interaction.channelId ?? '',
    canManageChannels: holds(bits, PermissionFlagsBits.ManageChannels),
    canManageGuild: holds(bits, PermissionFlagsBits.ManageGuild),
    context,
    // The client has the Guilds intent, so every server the bot is in is cached; one only a user install reaches is not.
    botInGuild: interaction.guildId !== null && interaction.guild !== null,
    locale: interaction.locale,
    guildLocale: interaction.guildLocale,
  };
}
