import { PermissionFlagsBits } from 'discord.js';
import { snowflake } from './snowflake.ts';

/** The fake Discord's world: guilds with channels, roles and members, and how permissions resolve in them. */

export const ChannelKind = { GuildText: 0, GuildVoice: 2, GuildCategory: 4, GuildAnnouncement: 5, PublicThread: 11, GuildForum: 15, GuildMedia: 16 } as const;

/** Channels that only hold threads (Discord's forum and media channels): posts, tags, REQUIRE_TAG. */
export function isThreadOnly(channel: { type: number }): boolean {
  return channel.type === ChannelKind.GuildForum || channel.type === ChannelKind.GuildMedia;
}

/** A forum's flag that each post must carry a tag (Discord's REQUIRE_TAG). */
export const REQUIRE_TAG = 1 << 4;

export interface Overwrite {
  /** A role id (type 0) or a member's user id (type 1). */
  id: string;
  type: 0 | 1;
  allow: bigint;
  deny: bigint;
}

export interface OverwriteSpec {
  /** A role or user id, '@everyone', '@bot' (the bot's member), or the name of a role in the guild. */
  id: string;
  /** Defaults to 'role' ('member' for '@bot'). */
  type?: 'role' | 'member' | 0 | 1;
  allow?: bigint | string;
  deny?: bigint | string;
}

export interface ChannelSpec {
  id?: string;
  name?: string;
  /** Discord channel type; 0 text (default), 5 announcement, 2 voice, 4 category, 15 forum, 16 media. */
  type?: number;
  parentId?: string;
  topic?: string;
  permissionOverwrites?: OverwriteSpec[];
  /** A forum's (or media channel's) tags, by name (ids are made up). */
  availableTags?: string[];
  /** A forum whose posts must carry a tag (REQUIRE_TAG). */
  requireTag?: boolean;
}

/** A forum's tag as Discord's channel object carries it. */
export interface ForumTag {
  id: string;
  name: string;
  moderated: boolean;
  emoji_id: null;
  emoji_name: null;
}

export interface RoleSpec {
  id?: string;
  name: string;
  permissions?: bigint | string;
  position?: number;
  managed?: boolean;
  /** Whether anyone may ping it (default false). */
  mentionable?: boolean;
}

export interface UserSpec {
  id?: string;
  username?: string;
  globalName?: string;
  bot?: boolean;
}

export interface MemberSpec extends UserSpec {
  /** Role ids or names of roles declared in the same guild. */
  roles?: string[];
  nick?: string;
}

export interface GuildSpec {
  id?: string;
  name?: string;
  ownerId?: string;
  /** Permissions of @everyone; defaults to Discord's usual member set. */
  everyonePermissions?: bigint | string;
  channels?: ChannelSpec[];
  roles?: RoleSpec[];
  members?: MemberSpec[];
  /** The bot's own member: its roles (ids or names). Defaults to one managed role with the default bot permissions. */
  botMember?: { roles?: string[]; nick?: string };
  /**
   * A server the bot is not in (only members who installed the app to their account can use it there): no gateway
   * events, REST answers Missing Access, and only commands with the user-install integration type are offered.
   */
  withoutBot?: boolean;
  preferredLocale?: string;
}

export interface User {
  id: string;
  username: string;
  globalName: string | null;
  bot: boolean;
}

export interface Role {
  id: string;
  name: string;
  permissions: bigint;
  position: number;
  managed: boolean;
  mentionable: boolean;
  botId?: string;
}

export interface Member {
  user: User;
  roles: string[];
  nick: string | null;
  joinedAt: string;
}

export interface Channel {
  id: string;
  guildId: string;
  name: string;
  type: number;
  position: number;
  parentId: string | null;
  topic: string | null;
  overwrites: Overwrite[];
  /** Channel flags (a forum's REQUIRE_TAG). */
  flags: number;
  /** A forum's tags (empty for other channels). */
  availableTags: ForumTag[];
}

export interface Guild {
  id: string;
  name: string;
  ownerId: string;
  preferredLocale: string;
  roles: Map<string, Role>;
  members: Map<string, Member>;
  channels: Map<string, Channel>;
  joinedAt: string;
}

export const ALL_PERMISSIONS: bigint = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);

/** What @everyone may do in a fresh guild (a subset of Discord's default). */
export const DEFAULT_EVERYONE_PERMISSIONS: bigint =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.SendMessagesInThreads |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.AddReactions |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.UseExternalEmojis |
  PermissionFlagsBits.UseApplicationCommands |
  PermissionFlagsBits.UseExternalApps |
  PermissionFlagsBits.CreateInstantInvite |
  PermissionFlagsBits.ChangeNickname |
  PermissionFlagsBits.Connect |
  PermissionFlagsBits.Speak;

/** The managed role a bot gets when invited without extra scopes: view, send, embed, history. */
export const DEFAULT_BOT_PERMISSIONS: bigint =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.UseApplicationCommands;

export function toBits(value: bigint | string | undefined, fallback: bigint): bigint {
  if (value === undefined) return fallback;
  return typeof value === 'bigint' ? value : BigInt(value);
}

export function makeUser(spec: UserSpec = {}): User {
  const id = spec.id ?? snowflake();
  return {
    id,
    username: spec.username ?? `user${id.slice(-4)}`,
    globalName: spec.globalName ?? null,
    bot: spec.bot ?? false,
  };
}

export function resolveOverwrite(spec: OverwriteSpec): Overwrite {
  return {
    id: spec.id,
    type: spec.type === 'member' || spec.type === 1 ? 1 : 0,
    allow: toBits(spec.allow, 0n),
    deny: toBits(spec.deny, 0n),
  };
}

/** Permissions a member holds guild-wide (roles only), as Discord computes them. */
export function basePermissions(guild: Guild, member: Member): bigint {
  if (member.user.id === guild.ownerId) return ALL_PERMISSIONS;
  let bits = guild.roles.get(guild.id)?.permissions ?? 0n;
  for (const roleId of member.roles) bits |= guild.roles.get(roleId)?.permissions ?? 0n;
  return (bits & PermissionFlagsBits.Administrator) !== 0n ? ALL_PERMISSIONS : bits;
}

/** Permissions a member holds in a channel: base, then @everyone, role and member overwrites, then implicit rules. */
export function channelPermissions(guild: Guild, member: Member, channel: Channel): bigint {
  const base = basePermissions(guild, member);
  if (base === ALL_PERMISSIONS) return ALL_PERMISSIONS;
  let bits = base;
  const everyone = channel.overwrites.find((o) => o.type === 0 && o.id === guild.id);
  if (everyone) bits = (bits & ~everyone.deny) | everyone.allow;
  let allow = 0n;
  let deny = 0n;
  for (const o of channel.overwrites) {
    if (o.type === 0 && o.id !== guild.id && member.roles.includes(o.id)) {
      allow |= o.allow;
      deny |= o.deny;
    }
  }
  bits = (bits & ~deny) | allow;
  const own = channel.overwrites.find((o) => o.type === 1 && o.id === member.user.id);
  if (own) bits = (bits & ~own.deny) | own.allow;
  if ((bits & PermissionFlagsBits.ViewChannel) === 0n) return 0n;
  if ((bits & PermissionFlagsBits.SendMessages) === 0n) {
    bits &= ~(
      PermissionFlagsBits.MentionEveryone |
      PermissionFlagsBits.SendTTSMessages |
      PermissionFlagsBits.AttachFiles |
      PermissionFlagsBits.EmbedLinks
    );
  }
  return bits;
}

/** A user as Discord's user object carries it: every field the API description marks required, `bot` only for bots. */
export function serializeUser(user: User): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    discriminator: '0',
    global_name: user.globalName,
    avatar: null,
    ...(user.bot ? { bot: true } : {}),
    public_flags: 0,
    flags: 0,
    banner: null,
    accent_color: null,
    avatar_decoration_data: null,
    collectibles: null,
    primary_guild: null,
  };
}

/** The bot's own user as GET /users/@me and READY show it: the user object plus the account fields of the owner's view. */
export function serializeCurrentUser(user: User): Record<string, unknown> {
  return { ...serializeUser(user), mfa_enabled: false, locale: 'en-US', premium_type: 0, verified: true, email: null };
}

export function serializeRole(role: Role): Record<string, unknown> {
  return {
    id: role.id,
    name: role.name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position: role.position,
    permissions: role.permissions.toString(),
    managed: role.managed,
    mentionable: role.mentionable,
    flags: 0,
    ...(role.botId ? { tags: { bot_id: role.botId } } : {}),
  };
}

export function serializeMember(member: Member, withUser = true): Record<string, unknown> {
  return {
    ...(withUser ? { user: serializeUser(member.user) } : {}),
    nick: member.nick,
    avatar: null,
    roles: [...member.roles],
    joined_at: member.joinedAt,
    banner: null,
    premium_since: null,
    communication_disabled_until: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
  };
}

export function serializeChannel(channel: Channel, withGuildId = true): Record<string, unknown> {
  return {
    id: channel.id,
    type: channel.type,
    ...(withGuildId ? { guild_id: channel.guildId } : {}),
    name: channel.name,
    position: channel.position,
    parent_id: channel.parentId,
    topic: channel.topic,
    nsfw: false,
    rate_limit_per_user: 0,
    last_message_id: null,
    flags: channel.flags,
    ...(isThreadOnly(channel) ? { available_tags: channel.availableTags.map((tag) => ({ ...tag })) } : {}),
    permission_overwrites: channel.overwrites.map((o) => ({
      id: o.id,
      type: o.type,
      allow: o.allow.toString(),
      deny: o.deny.toString(),
    })),
  };
}

export function serializeGuild(guild: Guild): Record<string, unknown> {
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    owner_id: guild.ownerId,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    roles: [...guild.roles.values()].map(serializeRole),
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    public_updates_channel_id: null,
    safety_alerts_channel_id: null,
    max_members: 500_000,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: 0,
    premium_subscription_count: 0,
    preferred_locale: guild.preferredLocale,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    // Fields the guild object always carries although this server models none of them.
    home_header: null,
    region: 'deprecated',
    widget_enabled: false,
    widget_channel_id: null,
    max_presences: null,
    max_stage_video_channel_users: 50,
    max_video_channel_users: 25,
    nsfw: false,
    incidents_data: null,
  };
}

/** The GUILD_CREATE payload: the guild plus the gateway-only fields. */
export function guildCreatePayload(guild: Guild): Record<string, unknown> {
  return {
    ...serializeGuild(guild),
    // Not in the API description's guild object (so not in REST answers), but in discord-api-types' GUILD_CREATE.
    hub_type: null,
    joined_at: guild.joinedAt,
    large: false,
    unavailable: false,
    member_count: guild.members.size,
    voice_states: [],
    members: [...guild.members.values()].map((m) => serializeMember(m)),
    channels: [...guild.channels.values()].map((c) => serializeChannel(c, false)),
    threads: [],
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}
