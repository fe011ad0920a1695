/**
 * The world the server holds: identity, guilds (with and without the bot), channels, users, DMs and private
 * channels, user installs, messages, threads, interactions and registered commands, and the gateway that tells
 * clients about them. Route modules and the interaction builder read and change it; lookups here answer in terms of
 * the world (they throw plain Errors for a test's mistake, never Discord errors).
 */
import { PermissionFlagsBits } from 'discord.js';
import { CommandScope } from './commands.ts';
import { Gateway } from './gateway.ts';
import { MAX_FRONT_DOOR_SPARES } from './front-door.ts';
import type { InteractionState } from './interaction-state.ts';
import { resolvePings, type MessageView, type StoredMessage } from './messages.ts';
import {
  channelPermissions,
  ChannelKind,
  REQUIRE_TAG,
  guildCreatePayload,
  makeUser,
  resolveOverwrite,
  serializeCurrentUser,
  type Channel,
  type ChannelSpec,
  type Guild,
  type Member,
  type MemberSpec,
  type OverwriteSpec,
  type User,
} from './model.ts';
import { ApiError } from './api-error.ts';
import type { DiscordServerOptions, InvokeUser } from './public-types.ts';
import { shardOf, snowflake } from './snowflake.ts';
import { SpecCheck } from './spec-check.ts';
import { Changes } from './wait.ts';

type Json = Record<string, unknown>;

export type ResolvedOptions = Required<Omit<DiscordServerOptions, 'applicationId' | 'botUserId' | 'botUsername' | 'token' | 'shards'>>;

export interface PrivateChannel {
  id: string;
  type: 1 | 3;
  recipients: string[];
}

export class World {
  readonly options: ResolvedOptions;
  readonly token: string;
  readonly applicationId: string;
  readonly botUser: User;
  /** The member used for interactions when no `user` is given; added to every guild with no extra roles. */
  readonly defaultUser: User;
  readonly changes = new Changes();
  /** Checks requests, answers and dispatches against Discord's API spec (spec-check.ts). */
  readonly spec: SpecCheck;
  readonly gateway: Gateway;
  private readonly recommendedShards: number | undefined;
  /** Default guild ids take one millisecond each, so guilds spread evenly over any shard count as they are added. */
  nextGuildMs = Date.now() - 30 * 86_400_000;
  readonly guilds = new Map<string, Guild>();
  readonly unavailable = new Set<string>();
  /** DM channel id → user id, and back. */
  readonly dmChannels = new Map<string, string>();
  readonly dmByUser = new Map<string, string>();
  /** Guilds the bot is not a member of: only interactions of user-installed commands happen there. */
  readonly outsideGuilds = new Map<string, Guild>();
  /** Users who installed the app to their account (user install). */
  readonly userInstalls = new Set<string>();
  readonly privateChannels = new Map<string, PrivateChannel>();
  /** Users whose DMs are closed to the bot (privacy settings, or they blocked it): posts to their DM answer 50007. */
  readonly closedDms = new Set<string>();
  /** Threads started from messages, by id (the id of the message they started from). */
  readonly threads = new Map<string, Json>();
  readonly channels = new Map<string, Channel>();
  readonly users = new Map<string, User>();
  readonly messages = new Map<string, StoredMessage>();
  /** Messages per channel in creation order, so channel reads do not scan everything. */
  readonly messagesByChannel = new Map<string, StoredMessage[]>();
  readonly nonces = new Map<string, { messageId: string; at: number }>();
  /**
   * Called when POST /channels/:id/messages has created a message, before the answer is sent: a harness that kills
   * the bot here leaves a post Discord made and the bot never heard of.
   */
  onMessageCreated: ((message: MessageView) => void) | null = null;
  /** A test's hook that changes what a route answers (to prove the spec check catches a bad answer). */
  rewriteResponse: ((route: string, status: number, body: unknown) => unknown) | null = null;
  readonly interactions = new Map<string, InteractionState>();
  readonly interactionsByToken = new Map<string, InteractionState>();
  readonly globalCommands: CommandScope;
  readonly guildCommands = new Map<string, CommandScope>();

  constructor(options: DiscordServerOptions = {}) {
    this.options = {
      globalLimitPerSecond: options.globalLimitPerSecond ?? 50,
      perChannelMessages: options.perChannelMessages ?? { limit: 5, windowMs: 5000 },
      interactionDeadlineMs: options.interactionDeadlineMs ?? 3000,
      interactionTokenTtlMs: options.interactionTokenTtlMs ?? 15 * 60_000,
      nonceWindowMs: options.nonceWindowMs ?? 5 * 60_000,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250,
      sessionTimeoutMs: options.sessionTimeoutMs ?? 120_000,
      maxConcurrency: positive(options.maxConcurrency, 'maxConcurrency') ?? 1,
      sessionStartLimit: positive(options.sessionStartLimit, 'sessionStartLimit') ?? 1000,
      maxGuildsPerShard: positive(options.maxGuildsPerShard, 'maxGuildsPerShard') ?? 2500,
      specCheck: options.specCheck ?? true,
      keepAliveTimeoutMs: positive(options.keepAliveTimeoutMs, 'keepAliveTimeoutMs') ?? 5000,
      frontDoorSpares: atMost(positive(options.frontDoorSpares, 'frontDoorSpares'), MAX_FRONT_DOOR_SPARES, 'frontDoorSpares') ?? 0,
    };
    this.spec = new SpecCheck(this.options.specCheck);
    this.recommendedShards = positive(options.shards, 'shards');
    this.token = options.token ?? `fake.${snowflake()}.token`;
    this.applicationId = options.applicationId ?? snowflake();
    this.botUser = makeUser({ id: options.botUserId ?? this.applicationId, username: options.botUsername ?? 'wotd-bot', bot: true });
    this.defaultUser = makeUser({ username: 'tester', globalName: 'Tester' });
    this.users.set(this.botUser.id, this.botUser);
    this.users.set(this.defaultUser.id, this.defaultUser);
    this.globalCommands = new CommandScope(this.applicationId, undefined);
    this.gateway = new Gateway({
      token: this.token,
      heartbeatIntervalMs: this.options.heartbeatIntervalMs,
      sessionTimeoutMs: this.options.sessionTimeoutMs,
      maxGuildsPerShard: this.options.maxGuildsPerShard,
      guildCount: () => this.guilds.size,
      changes: this.changes,
      checkDispatch: (t, d) => this.spec.dispatch(t, d),
      readyPayload: (session) => ({
        user: serializeCurrentUser(this.botUser),
        guilds: this.guildsOnShard(session.shard).map((g) => ({ id: g.id, unavailable: true })),
        private_channels: [],
        application: { id: this.applicationId, flags: 0 },
        user_settings: {},
        relationships: [],
        presences: [],
        geo_ordered_rtc_regions: [],
        guild_join_requests: [],
      }),
      guildCreates: (shard) =>
        this.guildsOnShard(shard)
          .filter((g) => !this.unavailable.has(g.id))
          .map((g) => guildCreatePayload(g)),
    });
  }

  /** What GET /gateway/bot recommends now: the `shards` option, or one shard per 1,000 guilds (at least 1). */
  get shardCount(): number {
    return this.recommendedShards ?? Math.max(1, Math.ceil(this.guilds.size / 1000));
  }

  guildsOnShard([shardId, shardCount]: [number, number]): Guild[] {
    if (shardCount === 1) return [...this.guilds.values()];
    return [...this.guilds.values()].filter((g) => shardOf(g.id, shardCount) === shardId);
  }

  /** A guild with or without the bot. */
  anyGuild(id: string): Guild {
    const guild = this.guilds.get(id) ?? this.outsideGuilds.get(id);
    if (!guild) throw new Error(`unknown guild ${id}`);
    return guild;
  }

  requireGuild(id: string): Guild {
    const guild = this.guilds.get(id);
    if (!guild) throw new Error(`unknown guild ${id}`);
    return guild;
  }

  requireChannel(id: string): Channel {
    const channel = this.channels.get(id);
    if (!channel) throw new Error(`unknown channel ${id}`);
    return channel;
  }

  resolveRoleRefs(guild: Guild, refs: string[]): string[] {
    return refs.map((ref) => {
      if (guild.roles.has(ref)) return ref;
      const byName = [...guild.roles.values()].find((r) => r.name === ref);
      if (!byName) throw new Error(`guild ${guild.id} has no role ${ref}`);
      return byName.id;
    });
  }

  /** Overwrite ids may be '@everyone', a role name, '@bot', or a raw role/user id. */
  resolveOverwrites(guild: Guild, specs: OverwriteSpec[]): ReturnType<typeof resolveOverwrite>[] {
    return specs.map((spec) => {
      let id = spec.id;
      if (id === '@everyone') id = guild.id;
      else if (id === '@bot') id = this.botUser.id;
      else if (!/^\d+$/.test(id)) {
        const role = [...guild.roles.values()].find((r) => r.name === id);
        if (!role) throw new Error(`guild ${guild.id} has no role named ${id} (for a permission overwrite)`);
        id = role.id;
      }
      return resolveOverwrite({ ...spec, id, type: spec.id === '@bot' ? 'member' : spec.type });
    });
  }

  putMember(guild: Guild, spec: MemberSpec): Member {
    const existing = checkId(spec.id, 'user') ? this.users.get(spec.id ?? '') : undefined;
    const user = existing ?? makeUser(spec);
    this.users.set(user.id, user);
    const member: Member = {
      user,
      roles: this.resolveRoleRefs(guild, spec.roles ?? []).filter((r) => r !== guild.id),
      nick: spec.nick ?? null,
      joinedAt: new Date().toISOString(),
    };
    guild.members.set(user.id, member);
    return member;
  }

  putChannel(guild: Guild, spec: ChannelSpec): Channel {
    const id = checkId(spec.id, 'channel') ?? snowflake();
    if (this.channels.has(id)) throw new Error(`channel ${id} already exists`);
    const channel: Channel = {
      id,
      guildId: guild.id,
      name: spec.name ?? `channel-${id.slice(-4)}`,
      type: spec.type ?? ChannelKind.GuildText,
      position: guild.channels.size,
      parentId: spec.parentId ?? null,
      topic: spec.topic ?? null,
      overwrites: this.resolveOverwrites(guild, spec.permissionOverwrites ?? []),
      flags: spec.requireTag === true ? REQUIRE_TAG : 0,
      availableTags: (spec.availableTags ?? []).map((name) => ({ id: snowflake(), name, moderated: false, emoji_id: null, emoji_name: null })),
    };
    guild.channels.set(id, channel);
    this.channels.set(id, channel);
    return channel;
  }

  memberFor(guild: Guild, user: InvokeUser | string | undefined): Member {
    if (user === undefined) return guild.members.get(this.defaultUser.id) ?? this.putMember(guild, { id: this.defaultUser.id, username: this.defaultUser.username });
    if (typeof user === 'string') {
      const member = guild.members.get(user);
      if (!member) throw new Error(`user ${user} is not a member of guild ${guild.id}`);
      return member;
    }
    const existing = user.id ? guild.members.get(user.id) : undefined;
    if (existing) {
      if (user.roles) existing.roles = this.resolveRoleRefs(guild, user.roles);
      return existing;
    }
    return this.putMember(guild, user);
  }

  /** The bot's effective permissions in a channel, as Discord would compute them (none in a server it is not in). */
  botPermissions(channelId: string): bigint {
    const channel = this.requireChannel(channelId);
    const guild = this.anyGuild(channel.guildId);
    const member = guild.members.get(this.botUser.id);
    return member ? channelPermissions(guild, member, channel) : 0n;
  }

  /** The id of the bot's DM channel with a user (created on first use, as POST /users/@me/channels does). */
  dmChannelOf(userId: string): string {
    const existing = this.dmByUser.get(userId);
    if (existing) return existing;
    const id = snowflake();
    this.dmChannels.set(id, userId);
    this.dmByUser.set(userId, id);
    return id;
  }

  /**
   * Whether the bot may post in a user's DM: not when the user closed their DMs to it (50007), nor when they share no
   * server with it and have not installed the app (50278).
   */
  checkCanDm(userId: string): void {
    if (this.closedDms.has(userId)) throw new ApiError(403, 50007, 'Cannot send messages to this user');
    const mutual = [...this.guilds.values()].some((guild) => guild.members.has(userId));
    if (!mutual && !this.userInstalls.has(userId)) {
      throw new ApiError(403, 50278, 'Cannot send messages to this user due to having no mutual guilds');
    }
  }

  /** Stores a new message (or re-resolves an edited one): computes who it pings. */
  keep(message: StoredMessage): StoredMessage {
    const channel = this.channels.get(message.channelId);
    const guild = channel ? (this.guilds.get(channel.guildId) ?? this.outsideGuilds.get(channel.guildId)) : undefined;
    const mentionEveryone = channel ? (this.botPermissions(channel.id) & PermissionFlagsBits.MentionEveryone) !== 0n : false;
    message.pings = resolvePings(message.content, message.allowedMentions, {
      mentionEveryone,
      roleMentionable: (id) => guild?.roles.get(id)?.mentionable === true,
    });
    // Discord lists a mentioned user who is unknown to this world as a bare account; tests mention real ones.
    message.mentionedUsers = message.pings.users.map((id) => this.users.get(id) ?? makeUser({ id }));
    if (!this.messages.has(message.id)) {
      this.messages.set(message.id, message);
      const list = this.messagesByChannel.get(message.channelId);
      if (list) list.push(message);
      else this.messagesByChannel.set(message.channelId, [message]);
    }
    return message;
  }
}

export function positive(value: number | undefined, name: string): number | undefined {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) throw new Error(`${name} must be a whole number of at least 1, got ${value}`);
  return value;
}

export function atMost(value: number | undefined, limit: number, name: string): number | undefined {
  if (value !== undefined && value > limit) throw new Error(`${name} must be at most ${limit}, got ${value}`);
  return value;
}

/** Ids given by tests must look like snowflakes: Discord's clients do arithmetic on them. */
export function checkId(id: string | undefined, what: string): string | undefined {
  if (id !== undefined && !/^\d{1,20}$/.test(id)) throw new Error(`${what} id ${JSON.stringify(id)} is not a snowflake (digits only)`);
  return id;
}
