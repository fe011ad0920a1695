import { ChannelType, type ChatInputCommandInteraction } from 'discord.js';
import type { ChannelRef, CommandOptions } from '../replies/interactions.ts';

export function channelKind(type: ChannelType): ChannelRef['kind'] {
  if (type === ChannelType.GuildText) return 'text';
  if (type === ChannelType.GuildAnnouncement) return 'announcement';
  if (type === ChannelType.GuildForum) return 'forum';
  if (type === ChannelType.GuildMedia) return 'media';
  return 'other';
}

/*
 * The options (like the contexts) are made once per interaction, so their functions are methods, not arrow-function
 * properties: run through tsx (as `npm start` runs the bot), esbuild's keepNames names every arrow function stored
 * under a property at run time (Object.defineProperty), about half a microsecond each.
 */
export function commandOptions(interaction: ChatInputCommandInteraction): CommandOptions {
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
