import { GuildMember, OverwriteType, type APIInteractionGuildMember, type Guild } from 'discord.js';
import { canManageChannel, type ChannelOverwrite } from '../schedule/member-permissions.ts';
import type { ChannelReader } from './bot-permissions.ts';

/**
 * Whether the member who used a command holds Manage Channels in another channel of the server, worked out as
 * Discord does (schedule/member-permissions.ts) from the server's roles, its owner, the member's roles (which come
 * with the interaction) and that channel's overwrites (read over REST: the bot keeps no channel cache; a thread's
 * come from its parent). interaction.memberPermissions cannot tell: it is for the channel the command was typed in.
 * Null when the channel cannot be read (deleted, or hidden from the bot), so nothing can be said about it.
 */
export async function memberCanManageChannelIn(
  guild: Guild,
  member: GuildMember | APIInteractionGuildMember,
  userId: string,
  channelId: string,
  read: ChannelReader,
): Promise<boolean | null> {
  const channel = await read(guild, channelId);
  if (!channel) return null;
  const source = channel.isThread() ? (channel.parentId ? await read(guild, channel.parentId) : null) : channel;
  if (!source || source.isThread()) return null;
  const overwrites: ChannelOverwrite[] = source.permissionOverwrites.cache.map((overwrite) => ({
    id: overwrite.id,
    kind: overwrite.type === OverwriteType.Member ? 'member' : 'role',
    allow: overwrite.allow.bitfield,
    deny: overwrite.deny.bitfield,
  }));
  // The Guilds intent keeps every role of the server cached (GUILD_CREATE, then role events); fetched only if not.
  if (!guild.roles.cache.has(guild.id)) await guild.roles.fetch();
  const rolePermissions = new Map<string, bigint>();
  for (const role of guild.roles.cache.values()) rolePermissions.set(role.id, role.permissions.bitfield);
  const roleIds = member instanceof GuildMember ? [...member.roles.cache.keys()] : member.roles;
  const timedOut =
    member instanceof GuildMember
      ? member.isCommunicationDisabled()
      : member.communication_disabled_until != null && Date.parse(member.communication_disabled_until) > Date.now();
  return canManageChannel({
    guildId: guild.id,
    ownerId: guild.ownerId,
    userId,
    roleIds: roleIds.filter((id) => id !== guild.id),
    rolePermissions,
    overwrites,
    timedOut,
  });
}
