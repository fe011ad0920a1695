/**
 * Building and changing the world as a test does: guilds (with or without the bot), channels, members, roles,
 * outages, user installs, closed DMs and private channels. Each change the bot would hear of is dispatched on the
 * gateway, to the shard that owns the guild.
 */
import {
DEFAULT_BOT_PERMISSIONS,
DEFAULT_EVERYONE_PERMISSIONS,
guildCreatePayload,
makeUser,
serializeChannel,
serializeMember,
serializeRole,
toBits,
type ChannelSpec,
type Guild,
type GuildSpec,
type MemberSpec,
type OverwriteSpec,
type Role,
} from './model.ts';
import type { GuildInfo, InvokeUser } from './public-types.ts';
import { snowflake, snowflakeAt } from './snowflake.ts';
import { checkId, type World } from './world.ts';

export function addGuild(world: World, spec: GuildSpec = {}): GuildInfo {
  const id = checkId(spec.id, 'guild') ?? snowflakeAt(world.nextGuildMs++);
  if (world.guilds.has(id) || world.outsideGuilds.has(id)) throw new Error(`guild ${id} already exists`);
  const owner = makeUser({ username: 'owner' });
  const ownerId = spec.ownerId ?? owner.id;
  const guild: Guild = {
    id,
    name: spec.name ?? `Guild ${id.slice(-4)}`,
    ownerId,
    preferredLocale: spec.preferredLocale ?? 'en-US',
    roles: new Map(),
    members: new Map(),
    channels: new Map(),
    joinedAt: new Date().toISOString(),
  };
  guild.roles.set(id, { id, name: '@everyone', permissions: toBits(spec.everyonePermissions, DEFAULT_EVERYONE_PERMISSIONS), position: 0, managed: false, mentionable: false });
  let position = 1;
  for (const r of spec.roles ?? []) {
    const role: Role = { id: checkId(r.id, 'role') ?? snowflake(), name: r.name, permissions: toBits(r.permissions, 0n), position: r.position ?? position, managed: r.managed ?? false, mentionable: r.mentionable ?? false };
    position += 1;
    guild.roles.set(role.id, role);
  }
  if (spec.withoutBot) {
    world.outsideGuilds.set(id, guild);
  } else {
    let botRoles = spec.botMember?.roles;
    if (!botRoles) {
      const botRoleId = snowflake();
      guild.roles.set(botRoleId, { id: botRoleId, name: world.botUser.username, permissions: DEFAULT_BOT_PERMISSIONS, position, managed: true, mentionable: false, botId: world.botUser.id });
      botRoles = [botRoleId];
    }
    world.guilds.set(id, guild);
    world.putMember(guild, { id: world.botUser.id, username: world.botUser.username, bot: true, roles: botRoles, nick: spec.botMember?.nick });
  }
  if (!spec.ownerId) world.users.set(owner.id, owner);
  world.putMember(guild, { id: ownerId, username: world.users.get(ownerId)?.username ?? 'owner' });
  world.putMember(guild, { id: world.defaultUser.id, username: world.defaultUser.username });
  for (const m of spec.members ?? []) world.putMember(guild, m);
  for (const c of spec.channels ?? [{ name: 'general' }]) world.putChannel(guild, c);
  // Building the payload is most of the cost of a large world; with no session yet nobody would get it.
  if (!spec.withoutBot && world.gateway.sessions.size > 0) world.gateway.dispatch('GUILD_CREATE', guildCreatePayload(guild), id, 1);
  return guildInfo(world, guild);
}

/**
 * Adds `count` guilds; `spec` is shared or made per index (an `id` in a shared spec would collide). Default ids
 * put consecutive guilds on consecutive shards, whatever the shard count.
 */
export function addGuilds(world: World, count: number, spec: GuildSpec | ((index: number) => GuildSpec) = {}): GuildInfo[] {
  return Array.from({ length: count }, (_, index) => addGuild(world, typeof spec === 'function' ? spec(index) : spec));
}

export function guildInfo(world: World, guildOrId: Guild | string): GuildInfo {
  const guild = typeof guildOrId === 'string' ? world.anyGuild(guildOrId) : guildOrId;
  const channels = [...guild.channels.values()].map((c) => ({ id: c.id, name: c.name, type: c.type, tags: c.availableTags.map((tag) => ({ id: tag.id, name: tag.name })) }));
  const roles = [...guild.roles.values()].map((r) => ({ id: r.id, name: r.name }));
  const botRole = [...guild.roles.values()].find((r) => r.botId === world.botUser.id);
  return {
    id: guild.id,
    name: guild.name,
    everyoneRoleId: guild.id,
    botRoleId: botRole?.id ?? null,
    ownerId: guild.ownerId,
    channels,
    roles,
    members: [...guild.members.values()].map((m) => ({ id: m.user.id, username: m.user.username })),
    channelId: (name) => {
      const c = channels.find((x) => x.name === name);
      if (!c) throw new Error(`guild ${guild.id} has no channel named ${name}`);
      return c.id;
    },
    roleId: (name) => {
      const r = roles.find((x) => x.name === name);
      if (!r) throw new Error(`guild ${guild.id} has no role named ${name}`);
      return r.id;
    },
  };
}

export function addChannel(world: World, guildId: string, spec: ChannelSpec = {}): { id: string; name: string; type: number } {
  const guild = world.requireGuild(guildId);
  const channel = world.putChannel(guild, spec);
  world.gateway.dispatch('CHANNEL_CREATE', serializeChannel(channel), guildId, 1);
  return { id: channel.id, name: channel.name, type: channel.type };
}

/** Changes a channel (name, topic, overwrites) and dispatches CHANNEL_UPDATE. */
export function updateChannel(world: World, channelId: string, patch: { name?: string; topic?: string; permissionOverwrites?: OverwriteSpec[] }): void {
  const channel = world.requireChannel(channelId);
  if (patch.name !== undefined) channel.name = patch.name;
  if (patch.topic !== undefined) channel.topic = patch.topic;
  if (patch.permissionOverwrites) channel.overwrites = world.resolveOverwrites(world.requireGuild(channel.guildId), patch.permissionOverwrites);
  world.gateway.dispatch('CHANNEL_UPDATE', serializeChannel(channel), channel.guildId, 1);
}

export function deleteChannel(world: World, channelId: string): void {
  const channel = world.requireChannel(channelId);
  world.channels.delete(channelId);
  world.guilds.get(channel.guildId)?.channels.delete(channelId);
  world.gateway.dispatch('CHANNEL_DELETE', serializeChannel(channel), channel.guildId, 1);
}

/** The bot leaves (or is removed from) the guild: GUILD_DELETE without `unavailable`. */
export function removeGuild(world: World, guildId: string): void {
  const guild = world.requireGuild(guildId);
  world.guilds.delete(guildId);
  world.unavailable.delete(guildId);
  for (const id of guild.channels.keys()) world.channels.delete(id);
  world.guildCommands.delete(guildId);
  world.gateway.dispatch('GUILD_DELETE', { id: guildId }, guildId, 1);
}

export function addMember(world: World, guildId: string, spec: MemberSpec): { id: string; username: string } {
  const member = world.putMember(world.anyGuild(guildId), spec);
  return { id: member.user.id, username: member.user.username };
}

/** Replaces a member's roles (ids or names), e.g. to take a permission away from the bot. */
export function setMemberRoles(world: World, guildId: string, userId: string, roles: string[]): void {
  const guild = world.requireGuild(guildId);
  const member = guild.members.get(userId);
  if (!member) throw new Error(`user ${userId} is not a member of guild ${guildId}`);
  member.roles = world.resolveRoleRefs(guild, roles).filter((r) => r !== guild.id);
  // Discord sends the bot its own member updates whatever the intents; others need GUILD_MEMBERS.
  const intent = userId === world.botUser.id ? undefined : 1 << 1;
  world.gateway.dispatch('GUILD_MEMBER_UPDATE', { guild_id: guildId, ...serializeMember(member) }, guildId, intent);
}

/** Changes a role (by id or name) and dispatches GUILD_ROLE_UPDATE. */
export function updateRole(world: World, guildId: string, role: string, patch: { name?: string; permissions?: bigint | string; mentionable?: boolean }): void {
  const guild = world.requireGuild(guildId);
  const [id] = world.resolveRoleRefs(guild, [role]);
  const target = guild.roles.get(id ?? '');
  if (!target) throw new Error(`guild ${guildId} has no role ${role}`);
  if (patch.name !== undefined) target.name = patch.name;
  if (patch.permissions !== undefined) target.permissions = toBits(patch.permissions, target.permissions);
  if (patch.mentionable !== undefined) target.mentionable = patch.mentionable;
  world.gateway.dispatch('GUILD_ROLE_UPDATE', { guild_id: guildId, role: serializeRole(target) }, guildId, 1);
}

/**
 * A guild outage: unavailable sends GUILD_DELETE with `unavailable: true` (the bot stays in the guild) and REST
 * answers for it fail; available again sends GUILD_CREATE.
 */
export function setGuildAvailable(world: World, guildId: string, available: boolean): void {
  const guild = world.requireGuild(guildId);
  if (available) {
    world.unavailable.delete(guildId);
    world.gateway.dispatch('GUILD_CREATE', guildCreatePayload(guild), guildId, 1);
  } else {
    world.unavailable.add(guildId);
    world.gateway.dispatch('GUILD_DELETE', { id: guildId, unavailable: true }, guildId, 1);
  }
}

/** A user installs the app to their account: its user-install commands follow them everywhere, and it may DM them. */
export function installApp(world: World, userId: string): void {
  if (!world.users.has(userId)) throw new Error(`unknown user ${userId}`);
  world.userInstalls.add(userId);
}

export function uninstallApp(world: World, userId: string): void {
  world.userInstalls.delete(userId);
}

/** Closes (or opens again) a user's DMs to the bot: a post to their DM then answers 403 50007. */
export function setDmsOpen(world: World, userId: string, open: boolean): void {
  if (open) world.closedDms.delete(userId);
  else world.closedDms.add(userId);
}

/**
 * A group DM (default) or a DM between two users, where only user-installed commands can be used (context 2).
 * Users are ids of known users or new ones; returns the channel id to invoke in.
 */
export function addPrivateChannel(world: World, recipients: (string | InvokeUser)[], options: { group?: boolean } = {}): string {
  const group = options.group ?? true;
  if (!group && recipients.length !== 2) throw new Error('a DM between users has exactly two recipients');
  const ids = recipients.map((recipient) => {
    if (typeof recipient === 'string') {
      if (!world.users.has(recipient)) throw new Error(`unknown user ${recipient}`);
      return recipient;
    }
    const user = (recipient.id ? world.users.get(recipient.id) : undefined) ?? makeUser(recipient);
    world.users.set(user.id, user);
    return user.id;
  });
  const id = snowflake();
  world.privateChannels.set(id, { id, type: group ? 3 : 1, recipients: ids });
  return id;
}
