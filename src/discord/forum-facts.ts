import { ChannelFlags, type Guild } from 'discord.js';
import type { ForumFacts } from '../replies/interactions.ts';
import { readGuildChannel, type ChannelReader } from './bot-permissions.ts';

/** A forum or media channel's tags and whether its posts must carry one, read as the subscribe command reads it. */
export async function forumFactsIn(guild: Guild | null, channelId: string, read: ChannelReader = readGuildChannel): Promise<ForumFacts | null> {
  if (!guild) return null;
  const channel = await read(guild, channelId);
  if (!channel || !channel.isThreadOnly()) return null;
  return {
    tags: channel.availableTags.map((tag) => ({ id: tag.id, name: tag.name })),
    requireTag: channel.flags.has(ChannelFlags.RequireTag),
  };
}
