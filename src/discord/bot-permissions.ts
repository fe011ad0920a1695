import { PermissionFlagsBits, type Client, type Guild, type GuildBasedChannel } from 'discord.js';
import type { ChannelPermission } from '../replies/interactions.ts';

/** Discord's flag for each permission the bot checks before it agrees to post in a channel. */
export const CHANNEL_PERMISSION_FLAGS: Record<ChannelPermission, bigint> = {
  ViewChannel: PermissionFlagsBits.ViewChannel,
  SendMessages: PermissionFlagsBits.SendMessages,
  EmbedLinks: PermissionFlagsBits.EmbedLinks,
  ReadMessageHistory: PermissionFlagsBits.ReadMessageHistory,
  CreatePublicThreads: PermissionFlagsBits.CreatePublicThreads,
  PinMessages: PermissionFlagsBits.PinMessages,
  ManageWebhooks: PermissionFlagsBits.ManageWebhooks,
};

/** Reads one channel of a server (no channel is cached: see client.ts); null for one it cannot read. */
export type ChannelReader = (guild: Guild, channelId: string) => Promise<GuildBasedChannel | null>;

export const readGuildChannel: ChannelReader = async (guild, channelId) =>
  guild.channels.cache.get(channelId) ?? (await guild.channels.fetch(channelId).catch(() => null));

/**
 * The daily-post permissions the bot holds in a channel of `guild`, from its roles and the channel's overwrites
 * (discord.js's permissionsFor). An unknown channel, or one outside the server, grants nothing. `read` lets an
 * interaction read the channel once for both this and the member's own check.
 */
export async function botPermissionsIn(
  guild: Guild | null,
  channelId: string,
  read: ChannelReader = readGuildChannel,
): Promise<ReadonlySet<ChannelPermission>> {
  const held = new Set<ChannelPermission>();
  if (!guild) return held;
  const channel = await read(guild, channelId);
  if (!channel) return held;
  const me = guild.members.me ?? (await guild.members.fetchMe().catch(() => null));
  if (!me) return held;
  const permissions = channel.permissionsFor(me);
  for (const [name, flag] of Object.entries(CHANNEL_PERMISSION_FLAGS) as Array<[ChannelPermission, bigint]>) {
    if (permissions.has(flag, true)) held.add(name);
  }
  return held;
}

/**
 * The bot's daily-post permissions in a server channel known only by id (a daily post's), read as an admin's
 * subscribe reads them: the channel fetched (GET /channels/:id; none are cached), the server's roles from the cache.
 * Null when they cannot be told (the channel cannot be read, is not a server's, or the bot's member is unknown), so a
 * caller never takes "cannot tell" for "not held".
 */
export async function botPermissionsInChannel(client: Client, channelId: string): Promise<ReadonlySet<ChannelPermission> | null> {
  const channel = await client.channels.fetch(channelId).catch(() => null);
  if (!channel || channel.isDMBased()) return null;
  const guild = channel.guild;
  const me = guild.members.me ?? (await guild.members.fetchMe().catch(() => null));
  if (!me) return null;
  return botPermissionsIn(guild, channelId, async () => channel);
}
