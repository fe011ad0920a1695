import { ChannelType, type ChatInputCommandInteraction } from 'discord.js';
import type { ChannelRef, CommandOptions, RoleRef } from '../replies/interactions.ts';

export function channelKind(type: ChannelType): ChannelRef['kind'] {
  if (type === ChannelType.GuildText) return 'text';
  if (type === ChannelType.GuildAnnouncement) return 'announcement';
  if (type === ChannelType.GuildForum) return 'forum';
  if (type === ChannelType.GuildMedia) return 'media';
  return 'other';
}

/*
 * The options (like the contexts) are made once per interaction, so their functions are methods of a class: an
 * object literal's methods would be six closures per command, and run through tsx (as the benchmarks run the bot),
 * esbuild's keepNames names every arrow function stored under a property at run time (Object.defineProperty),
 * about half a microsecond each.
 */
class InteractionOptions implements CommandOptions {
  constructor(private readonly options: ChatInputCommandInteraction['options']) {}

  getString(name: string): string | null {
    return this.options.getString(name);
  }

  getInteger(name: string): number | null {
    return this.options.getInteger(name);
  }

  getBoolean(name: string): boolean | null {
    return this.options.getBoolean(name);
  }

  getSubcommand(): string | null {
    return this.options.getSubcommand(false);
  }

  getChannel(name: string): ChannelRef | null {
    const channel = this.options.getChannel(name);
    if (!channel) return null;
    return { id: channel.id, name: channel.name ?? channel.id, kind: channelKind(channel.type) };
  }

  getRole(name: string): RoleRef | null {
    const role = this.options.getRole(name);
    return role ? { id: role.id, name: role.name } : null;
  }
}

export function commandOptions(interaction: ChatInputCommandInteraction): CommandOptions {
  return new InteractionOptions(interaction.options);
}
