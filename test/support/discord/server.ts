import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { PermissionFlagsBits } from 'discord.js';
import { buildOptions, CommandScope, contextsOf, integrationTypesOf, validateCommand, type OptionValues, type RegisteredCommand } from './commands.ts';
import { Gateway, type GatewayDispatch, type GatewayEvent, type ShardState } from './gateway.ts';
import { createMessage, editMessage, MessageFlag, resolvePings, serializeMessage, viewMessage, type MessageView, type StoredFile, type StoredMessage } from './messages.ts';
import {
  ALL_PERMISSIONS,
  basePermissions,
  channelPermissions,
  ChannelKind,
  DEFAULT_BOT_PERMISSIONS,
  DEFAULT_EVERYONE_PERMISSIONS,
  guildCreatePayload,
  makeUser,
  resolveOverwrite,
  serializeChannel,
  serializeGuild,
  serializeMember,
  serializeRole,
  serializeUser,
  toBits,
  type Channel,
  type ChannelSpec,
  type Guild,
  type GuildSpec,
  type Member,
  type MemberSpec,
  type OverwriteSpec,
  type Role,
  type User,
} from './model.ts';
import { BucketLimiter, GlobalLimiter, type BucketRule } from './ratelimit.ts';
import { shardOf, snowflake, snowflakeAt } from './snowflake.ts';
import { FormErrors, isEmptyMessage, validateAutocompleteChoices, validateMessageBody } from './validation.ts';
import { Changes } from './wait.ts';

type Json = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------------------------------

export interface DiscordServerOptions {
  /** Global requests per second per token (Discord: 50). */
  globalLimitPerSecond?: number;
  /** The per-channel bucket of POST /channels/:id/messages (default 5 per 5000 ms). */
  perChannelMessages?: BucketRule;
  /** Time allowed for the first interaction callback (Discord: 3000 ms). */
  interactionDeadlineMs?: number;
  /** How long an interaction token works for webhooks (Discord: 15 min). */
  interactionTokenTtlMs?: number;
  /** How long `nonce` + `enforce_nonce` deduplicates (Discord: a few minutes). */
  nonceWindowMs?: number;
  /** HELLO's heartbeat_interval (Discord: 41250). */
  heartbeatIntervalMs?: number;
  /** How long a disconnected gateway session stays resumable (default 2 min). */
  sessionTimeoutMs?: number;
  /** The shard count GET /gateway/bot recommends (default: one per 1,000 guilds, at least 1, as the world is then). */
  shards?: number;
  /** session_start_limit.max_concurrency: identifies allowed per 5 s (Discord: 1 below 150,000 guilds). */
  maxConcurrency?: number;
  /** session_start_limit.total; `remaining` counts down with each IDENTIFY in a day (reported; the server never refuses one). */
  sessionStartLimit?: number;
  /** An IDENTIFY whose shard count leaves more guilds than this per shard is closed with 4011 (Discord: 2500). */
  maxGuildsPerShard?: number;
  applicationId?: string;
  botUserId?: string;
  botUsername?: string;
  token?: string;
}

export interface RecordedRequest {
  seq: number;
  /** Epoch ms when the request arrived. */
  at: number;
  method: string;
  /** Path below /api/v10, without the query string. */
  path: string;
  query: Record<string, string>;
  /** The matched route template, e.g. "POST /channels/:channel_id/messages"; null when no route matched. */
  route: string | null;
  body: unknown;
  status: number;
  response: unknown;
  /** Rate-limit and Retry-After headers sent with the response. */
  responseHeaders: Record<string, string>;
  /** 'global' or 'bucket' when answered 429. */
  limited: 'global' | 'bucket' | null;
  /** Admitted by the global limiter (bot-token routes that are not interaction endpoints). */
  countedGlobally: boolean;
  /** True when an injected fault answered (or delayed) it. */
  faulted: boolean;
  durationMs: number;
}

export interface RecordedCallback {
  interactionId: string;
  at: number;
  /** ms from dispatch to the callback's arrival. */
  latencyMs: number;
  type: number;
  data: Json | null;
  status: number;
  /** The Discord error code when rejected (10062, 40060, 50035…). */
  errorCode: number | null;
}

export interface FaultSpec {
  /** A RegExp tested on "METHOD /path", or a template like "POST /channels/:id/messages" or "/channels/:id" (any method). */
  route?: string | RegExp;
  /** Matches any /channels/:channelId/... request. */
  channelId?: string;
  /** Status to answer; omit for a slow but otherwise normal response. A 429 is a rate limit (see `rateLimit`). */
  status?: 400 | 403 | 404 | 429 | 500 | 502 | 503;
  /** For a 429: global (every route, X-RateLimit-Global) or this route's bucket (X-RateLimit-Scope: user), and when to retry. */
  rateLimit?: { global: boolean; retryAfterMs: number };
  /** Discord error code (defaults: 403 → 50013, 404 → 10003). */
  code?: number;
  message?: string;
  delayMs?: number;
  /** How many requests it applies to (default: all). */
  times?: number;
  /**
   * Answer with exactly these bytes instead (generated answers: any status, headers and body, valid or not); the
   * request is not handled, so nothing it asked for happens. `status`, `code` and `rateLimit` are then ignored.
   */
  answer?: RawAnswer;
}

/** A raw HTTP answer: status, headers as sent (values must be legal header text) and the body's bytes. */
export interface RawAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface FaultHandle {
  readonly hits: number;
  remove(): void;
}

export interface GuildInfo {
  id: string;
  name: string;
  everyoneRoleId: string;
  botRoleId: string | null;
  ownerId: string;
  channels: { id: string; name: string; type: number }[];
  roles: { id: string; name: string }[];
  members: { id: string; username: string }[];
  /** Id of the channel or role with that name; throws when there is none. */
  channelId(name: string): string;
  roleId(name: string): string;
}

export interface InvokeUser {
  /** An existing member's id, or a new member to add with these fields. */
  id?: string;
  username?: string;
  roles?: string[];
}

interface InteractionTarget {
  guildId?: string;
  /**
   * A guild channel (of a server with or without the bot), a DM channel id from a previous DM interaction, or a
   * group DM or DM between users from addPrivateChannel. Required unless `dm` is set.
   */
  channelId?: string;
  /** Invoke in the user's DM with the bot (no guild, no member; only global commands allowed in DMs). */
  dm?: boolean;
  /** The invoking member; defaults to the harness's default member (only @everyone). */
  user?: InvokeUser | string;
  /** Override the member's computed channel permissions (`member.permissions`). */
  memberPermissions?: bigint | string;
  /** Override the bot's computed channel permissions (`app_permissions`). */
  appPermissions?: bigint | string;
  locale?: string;
}

export interface InvokeCommandSpec extends InteractionTarget {
  name: string;
  options?: OptionValues;
  subcommand?: string;
  subcommandGroup?: string;
}

export interface PressButtonSpec extends InteractionTarget {
  customId: string;
  /** The message carrying the button; defaults to the newest message in the channel (ephemeral ones included) that has it. */
  messageId?: string;
}

export interface AutocompleteSpec extends InvokeCommandSpec {
  focused: string;
  timeoutMs?: number;
}

/** A shard as the server sees it: the gateway's view plus the guilds it owns now. */
export interface ShardView extends ShardState {
  guilds: number;
}

export interface SecondStats {
  /** Epoch second (the global limiter's window). */
  second: number;
  /** Every REST request that arrived in this second. */
  requests: number;
  /** Requests admitted against the global limit (never more than globalLimitPerSecond). */
  accepted: number;
  /** Requests outside the global limit: interaction callbacks and webhook calls (and 401s, unknown routes). */
  exempt: number;
  /** POST /channels/:id/messages answered 2xx. */
  posts: number;
  global429: number;
  bucket429: number;
  /** 401, 403 and 429 answers: what Discord counts toward its invalid-request ban (10,000 per 10 minutes). */
  invalid: number;
}

export interface InteractionHandle {
  readonly id: string;
  readonly token: string;
  /** 2 command, 3 component, 4 autocomplete. */
  readonly type: number;
  readonly guildId: string | null;
  readonly channelId: string;
  readonly userId: string;
  /** Epoch ms when INTERACTION_CREATE was dispatched. */
  readonly sentAt: number;
  /** The raw INTERACTION_CREATE payload. */
  readonly payload: Json;
  /** The sessions INTERACTION_CREATE went to (those of the shard owning the guild; shard 0 for DMs); empty: nobody got it. */
  readonly deliveredTo: { sessionId: string; shard: [number, number] }[];
  /** Every callback attempt, accepted or not. */
  readonly callbacks: RecordedCallback[];
  /** The accepted (first) callback, if any. */
  readonly callback: RecordedCallback | undefined;
  /** The interaction's original response message as it stands now (for components: the message the button is on after update). */
  readonly original: MessageView | undefined;
  readonly followUps: MessageView[];
  /** Autocomplete choices sent with callback type 8. */
  readonly choices: { name: string; value: string | number }[] | undefined;
  waitForCallback(timeoutMs?: number): Promise<RecordedCallback>;
  /** The first version of the original response that is not "thinking": an immediate reply, an update, or the edit of a deferral. */
  waitForResponse(timeoutMs?: number): Promise<MessageView>;
  /** Waits until the original message satisfies `predicate` (e.g. a second edit). */
  waitForOriginal(predicate: (message: MessageView) => boolean, timeoutMs?: number): Promise<MessageView>;
  waitForFollowUp(index?: number, timeoutMs?: number): Promise<MessageView>;
}

// ---------------------------------------------------------------------------------------------------------------
// Internals
// ---------------------------------------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: FormErrors,
  ) {
    super(message);
  }

  body(): Json {
    return { message: this.message, code: this.code, ...(this.errors ? { errors: this.errors.tree } : {}) };
  }
}

const invalidForm = (errors: FormErrors): ApiError => new ApiError(400, 50035, 'Invalid Form Body', errors);
const unknown = (code: number, what: string): ApiError => new ApiError(404, code, `Unknown ${what}`);

type Place =
  /** `installed`: the bot is a member of the guild; otherwise only a user install can be used there. */
  | { kind: 'guild'; guild: Guild; channel: Channel; member: Member; installed: boolean }
  | { kind: 'dm'; channelId: string; user: User }
  /** A group DM (type 3) or a DM between users (type 1): only user-installed commands, context 2. */
  | { kind: 'private'; channelId: string; type: 1 | 3; recipients: User[]; user: User };

interface PrivateChannel {
  id: string;
  type: 1 | 3;
  recipients: string[];
}

/** What Discord reports as the app's permissions in group DMs and DMs between users. */
const PRIVATE_APP_PERMISSIONS: bigint = PermissionFlagsBits.AttachFiles | PermissionFlagsBits.EmbedLinks | PermissionFlagsBits.MentionEveryone;

/** Follow-ups an interaction of a user-installed app (not installed in the guild) may create. */
const USER_INSTALL_FOLLOW_UPS = 5;

/** What Discord reports as the app's permissions in a DM with it. */
const DM_APP_PERMISSIONS: bigint =
  PermissionFlagsBits.ViewChannel |
  PermissionFlagsBits.SendMessages |
  PermissionFlagsBits.EmbedLinks |
  PermissionFlagsBits.AttachFiles |
  PermissionFlagsBits.ReadMessageHistory |
  PermissionFlagsBits.AddReactions |
  PermissionFlagsBits.UseExternalEmojis |
  PermissionFlagsBits.UseApplicationCommands;

interface InteractionState {
  id: string;
  token: string;
  type: number;
  guildId: string | null;
  channelId: string;
  user: User;
  sentAt: number;
  payload: Json;
  dispatch: GatewayDispatch | undefined;
  callbacks: RecordedCallback[];
  acknowledged: RecordedCallback | undefined;
  /** The message the response lives in: a new message for commands, the clicked message for components. */
  original: StoredMessage | undefined;
  followUps: StoredMessage[];
  choices: { name: string; value: string | number }[] | undefined;
  /** Only the user install authorized it (authorizing_integration_owners has no "0"): at most 5 follow-ups. */
  userInstallOnly: boolean;
  /** Discord makes every response ephemeral: a user-installed app in a server where the member may not use external apps. */
  forceEphemeral: boolean;
}

interface RouteContext {
  params: Record<string, string>;
  body: Json;
  rawBody: unknown;
  query: URLSearchParams;
  attachments: Json[];
  /** The uploaded files' bytes, in the order of `attachments`. */
  files: StoredFile[];
}

interface RouteResult {
  status: number;
  body?: unknown;
}

interface Route {
  method: string;
  template: string;
  segments: string[];
  /** Bot token required (webhook and interaction routes use their own token instead). */
  auth: boolean;
  /** Interaction endpoints are not counted against the global limit. */
  globalExempt: boolean;
  bucket: ((params: Record<string, string>) => { hash: string; major: string; rule: BucketRule }) | null;
  handle: (ctx: RouteContext) => RouteResult | Promise<RouteResult>;
}

interface ActiveFault extends FaultSpec {
  hits: number;
  removed: boolean;
}

const DEFAULT_RULE: BucketRule = { limit: 50, windowMs: 1000 };
const WEBHOOK_RULE: BucketRule = { limit: 5, windowMs: 2000 };
const CROSSPOST_RULE: BucketRule = { limit: 10, windowMs: 3_600_000 };
const TEXT_TYPES = new Set<number>([0, 1, 2, 5, 10, 11, 12, 13]);

function bucketHash(template: string): string {
  let h = 0x811c9dc5;
  for (const ch of template) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

function templateMatches(template: string, method: string, path: string): boolean {
  let t = template.trim();
  const space = t.indexOf(' ');
  if (space > 0) {
    if (t.slice(0, space).toUpperCase() !== method) return false;
    t = t.slice(space + 1);
  }
  const a = t.split('/').filter(Boolean);
  const b = path.split('/').filter(Boolean);
  // discord.js sends '@original' as '%40original'.
  return a.length === b.length && a.every((seg, i) => seg.startsWith(':') || seg === b[i] || seg === safeDecode(b[i] ?? ''));
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------------------------

export class DiscordServer {
  readonly token: string;
  readonly applicationId: string;
  readonly botUser: User;
  /** The member used for interactions when no `user` is given; added to every guild with no extra roles. */
  readonly defaultUser: User;
  /** Every REST request, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  /** Bugs inside the harness itself (answered 500); tests may assert this stays empty. */
  readonly internalErrors: Error[] = [];
  apiUrl = '';
  gatewayUrl = '';

  private readonly options: Required<Omit<DiscordServerOptions, 'applicationId' | 'botUserId' | 'botUsername' | 'token' | 'shards'>>;
  private readonly recommendedShards: number | undefined;
  /** Default guild ids take one millisecond each, so guilds spread evenly over any shard count as they are added. */
  private nextGuildMs = Date.now() - 30 * 86_400_000;
  private readonly changes = new Changes();
  private readonly http: Server;
  private readonly gateway: Gateway;
  private readonly globalLimiter: GlobalLimiter;
  private readonly buckets = new BucketLimiter();
  private readonly routes: Route[] = [];
  private readonly faults: ActiveFault[] = [];
  private readonly guilds = new Map<string, Guild>();
  private readonly unavailable = new Set<string>();
  /** DM channel id → user id, and back. */
  private readonly dmChannels = new Map<string, string>();
  private readonly dmByUser = new Map<string, string>();
  /** Guilds the bot is not a member of: only interactions of user-installed commands happen there. */
  private readonly outsideGuilds = new Map<string, Guild>();
  /** Users who installed the app to their account (user install). */
  private readonly userInstalls = new Set<string>();
  private readonly privateChannels = new Map<string, PrivateChannel>();
  /** Users whose DMs are closed to the bot (privacy settings, or they blocked it): posts to their DM answer 50007. */
  private readonly closedDms = new Set<string>();
  /** Threads started from messages, by id (the id of the message they started from). */
  private readonly threads = new Map<string, Json>();
  private readonly channels = new Map<string, Channel>();
  private readonly users = new Map<string, User>();
  private readonly messages = new Map<string, StoredMessage>();
  /** Messages per channel in creation order, so channel reads do not scan everything. */
  private readonly messagesByChannel = new Map<string, StoredMessage[]>();
  private readonly nonces = new Map<string, { messageId: string; at: number }>();
  /**
   * Called when POST /channels/:id/messages has created a message, before the answer is sent: a harness that kills
   * the bot here leaves a post Discord made and the bot never heard of.
   */
  onMessageCreated: ((message: MessageView) => void) | null = null;
  private readonly interactions = new Map<string, InteractionState>();
  private readonly interactionsByToken = new Map<string, InteractionState>();
  private readonly globalCommands: CommandScope;
  private readonly guildCommands = new Map<string, CommandScope>();
  private readonly perSecond = new Map<number, SecondStats>();
  private seq = 0;
  private closed = false;

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
    };
    this.recommendedShards = positive(options.shards, 'shards');
    this.token = options.token ?? `fake.${snowflake()}.token`;
    this.applicationId = options.applicationId ?? snowflake();
    this.botUser = makeUser({ id: options.botUserId ?? this.applicationId, username: options.botUsername ?? 'wotd-bot', bot: true });
    this.defaultUser = makeUser({ username: 'tester', globalName: 'Tester' });
    this.users.set(this.botUser.id, this.botUser);
    this.users.set(this.defaultUser.id, this.defaultUser);
    this.globalLimiter = new GlobalLimiter(this.options.globalLimitPerSecond);
    this.globalCommands = new CommandScope(this.applicationId, undefined);
    this.gateway = new Gateway({
      token: this.token,
      heartbeatIntervalMs: this.options.heartbeatIntervalMs,
      sessionTimeoutMs: this.options.sessionTimeoutMs,
      maxGuildsPerShard: this.options.maxGuildsPerShard,
      guildCount: () => this.guilds.size,
      changes: this.changes,
      readyPayload: (session) => ({
        user: { ...serializeUser(this.botUser), verified: true, mfa_enabled: false, flags: 0 },
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
    this.http = createServer((req, res) => void this.onRequest(req, res));
    this.http.on('upgrade', (req, socket, head) => this.gateway.handleUpgrade(req, socket, head));
    this.http.keepAliveTimeout = 5000;
    this.defineRoutes();
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = this.http.address() as AddressInfo;
    this.apiUrl = `http://127.0.0.1:${port}/api`;
    this.gatewayUrl = `ws://127.0.0.1:${port}`;
    this.gateway.url = this.gatewayUrl;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.gateway.close();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  // ------------------------------------------------------------------------------------------- world building

  addGuild(spec: GuildSpec = {}): GuildInfo {
    const id = checkId(spec.id, 'guild') ?? snowflakeAt(this.nextGuildMs++);
    if (this.guilds.has(id) || this.outsideGuilds.has(id)) throw new Error(`guild ${id} already exists`);
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
      this.outsideGuilds.set(id, guild);
    } else {
      let botRoles = spec.botMember?.roles;
      if (!botRoles) {
        const botRoleId = snowflake();
        guild.roles.set(botRoleId, { id: botRoleId, name: this.botUser.username, permissions: DEFAULT_BOT_PERMISSIONS, position, managed: true, mentionable: false, botId: this.botUser.id });
        botRoles = [botRoleId];
      }
      this.guilds.set(id, guild);
      this.putMember(guild, { id: this.botUser.id, username: this.botUser.username, bot: true, roles: botRoles, nick: spec.botMember?.nick });
    }
    if (!spec.ownerId) this.users.set(owner.id, owner);
    this.putMember(guild, { id: ownerId, username: this.users.get(ownerId)?.username ?? 'owner' });
    this.putMember(guild, { id: this.defaultUser.id, username: this.defaultUser.username });
    for (const m of spec.members ?? []) this.putMember(guild, m);
    for (const c of spec.channels ?? [{ name: 'general' }]) this.putChannel(guild, c);
    // Building the payload is most of the cost of a large world; with no session yet nobody would get it.
    if (!spec.withoutBot && this.gateway.sessions.size > 0) this.gateway.dispatch('GUILD_CREATE', guildCreatePayload(guild), id, 1);
    return this.guildInfo(guild);
  }

  /**
   * Adds `count` guilds; `spec` is shared or made per index (an `id` in a shared spec would collide). Default ids
   * put consecutive guilds on consecutive shards, whatever the shard count.
   */
  addGuilds(count: number, spec: GuildSpec | ((index: number) => GuildSpec) = {}): GuildInfo[] {
    return Array.from({ length: count }, (_, index) => this.addGuild(typeof spec === 'function' ? spec(index) : spec));
  }

  guildInfo(guildOrId: Guild | string): GuildInfo {
    const guild = typeof guildOrId === 'string' ? this.anyGuild(guildOrId) : guildOrId;
    const channels = [...guild.channels.values()].map((c) => ({ id: c.id, name: c.name, type: c.type }));
    const roles = [...guild.roles.values()].map((r) => ({ id: r.id, name: r.name }));
    const botRole = [...guild.roles.values()].find((r) => r.botId === this.botUser.id);
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

  addChannel(guildId: string, spec: ChannelSpec = {}): { id: string; name: string; type: number } {
    const guild = this.requireGuild(guildId);
    const channel = this.putChannel(guild, spec);
    this.gateway.dispatch('CHANNEL_CREATE', serializeChannel(channel), guildId, 1);
    return { id: channel.id, name: channel.name, type: channel.type };
  }

  /** Changes a channel (name, topic, overwrites) and dispatches CHANNEL_UPDATE. */
  updateChannel(channelId: string, patch: { name?: string; topic?: string; permissionOverwrites?: OverwriteSpec[] }): void {
    const channel = this.requireChannel(channelId);
    if (patch.name !== undefined) channel.name = patch.name;
    if (patch.topic !== undefined) channel.topic = patch.topic;
    if (patch.permissionOverwrites) channel.overwrites = this.resolveOverwrites(this.requireGuild(channel.guildId), patch.permissionOverwrites);
    this.gateway.dispatch('CHANNEL_UPDATE', serializeChannel(channel), channel.guildId, 1);
  }

  deleteChannel(channelId: string): void {
    const channel = this.requireChannel(channelId);
    this.channels.delete(channelId);
    this.guilds.get(channel.guildId)?.channels.delete(channelId);
    this.gateway.dispatch('CHANNEL_DELETE', serializeChannel(channel), channel.guildId, 1);
  }

  /** The bot leaves (or is removed from) the guild: GUILD_DELETE without `unavailable`. */
  removeGuild(guildId: string): void {
    const guild = this.requireGuild(guildId);
    this.guilds.delete(guildId);
    this.unavailable.delete(guildId);
    for (const id of guild.channels.keys()) this.channels.delete(id);
    this.guildCommands.delete(guildId);
    this.gateway.dispatch('GUILD_DELETE', { id: guildId }, guildId, 1);
  }

  addMember(guildId: string, spec: MemberSpec): { id: string; username: string } {
    const member = this.putMember(this.anyGuild(guildId), spec);
    return { id: member.user.id, username: member.user.username };
  }

  /** Replaces a member's roles (ids or names), e.g. to take a permission away from the bot. */
  setMemberRoles(guildId: string, userId: string, roles: string[]): void {
    const guild = this.requireGuild(guildId);
    const member = guild.members.get(userId);
    if (!member) throw new Error(`user ${userId} is not a member of guild ${guildId}`);
    member.roles = this.resolveRoleRefs(guild, roles).filter((r) => r !== guild.id);
    // Discord sends the bot its own member updates whatever the intents; others need GUILD_MEMBERS.
    const intent = userId === this.botUser.id ? undefined : 1 << 1;
    this.gateway.dispatch('GUILD_MEMBER_UPDATE', { guild_id: guildId, ...serializeMember(member) }, guildId, intent);
  }

  /** Changes a role (by id or name) and dispatches GUILD_ROLE_UPDATE. */
  updateRole(guildId: string, role: string, patch: { name?: string; permissions?: bigint | string; mentionable?: boolean }): void {
    const guild = this.requireGuild(guildId);
    const [id] = this.resolveRoleRefs(guild, [role]);
    const target = guild.roles.get(id ?? '');
    if (!target) throw new Error(`guild ${guildId} has no role ${role}`);
    if (patch.name !== undefined) target.name = patch.name;
    if (patch.permissions !== undefined) target.permissions = toBits(patch.permissions, target.permissions);
    if (patch.mentionable !== undefined) target.mentionable = patch.mentionable;
    this.gateway.dispatch('GUILD_ROLE_UPDATE', { guild_id: guildId, role: serializeRole(target) }, guildId, 1);
  }

  /**
   * A guild outage: unavailable sends GUILD_DELETE with `unavailable: true` (the bot stays in the guild) and REST
   * answers for it fail; available again sends GUILD_CREATE.
   */
  setGuildAvailable(guildId: string, available: boolean): void {
    const guild = this.requireGuild(guildId);
    if (available) {
      this.unavailable.delete(guildId);
      this.gateway.dispatch('GUILD_CREATE', guildCreatePayload(guild), guildId, 1);
    } else {
      this.unavailable.add(guildId);
      this.gateway.dispatch('GUILD_DELETE', { id: guildId, unavailable: true }, guildId, 1);
    }
  }

  /** A user installs the app to their account: its user-install commands follow them everywhere, and it may DM them. */
  installApp(userId: string): void {
    if (!this.users.has(userId)) throw new Error(`unknown user ${userId}`);
    this.userInstalls.add(userId);
  }

  uninstallApp(userId: string): void {
    this.userInstalls.delete(userId);
  }

  /** Closes (or opens again) a user's DMs to the bot: a post to their DM then answers 403 50007. */
  setDmsOpen(userId: string, open: boolean): void {
    if (open) this.closedDms.delete(userId);
    else this.closedDms.add(userId);
  }

  /**
   * A group DM (default) or a DM between two users, where only user-installed commands can be used (context 2).
   * Users are ids of known users or new ones; returns the channel id to invoke in.
   */
  addPrivateChannel(recipients: (string | InvokeUser)[], options: { group?: boolean } = {}): string {
    const group = options.group ?? true;
    if (!group && recipients.length !== 2) throw new Error('a DM between users has exactly two recipients');
    const ids = recipients.map((recipient) => {
      if (typeof recipient === 'string') {
        if (!this.users.has(recipient)) throw new Error(`unknown user ${recipient}`);
        return recipient;
      }
      const user = (recipient.id ? this.users.get(recipient.id) : undefined) ?? makeUser(recipient);
      this.users.set(user.id, user);
      return user.id;
    });
    const id = snowflake();
    this.privateChannels.set(id, { id, type: group ? 3 : 1, recipients: ids });
    return id;
  }

  /** The bot's effective permissions in a channel, as Discord would compute them (none in a server it is not in). */
  botPermissions(channelId: string): bigint {
    const channel = this.requireChannel(channelId);
    const guild = this.anyGuild(channel.guildId);
    const member = guild.members.get(this.botUser.id);
    return member ? channelPermissions(guild, member, channel) : 0n;
  }

  // ------------------------------------------------------------------------------------------- interactions

  /** Dispatches a chat-input command as the real client would, after checking options against the registration. */
  invokeCommand(spec: InvokeCommandSpec): InteractionHandle {
    const { command, place, owners } = this.commandFor(spec);
    const built = buildOptions(command, spec.options ?? {}, this.resolveContext(place), {
      subcommand: spec.subcommand,
      subcommandGroup: spec.subcommandGroup,
    });
    return this.dispatchInteraction(2, place, spec, {
      id: command.id,
      name: command.name,
      type: 1,
      ...(built.options.length > 0 ? { options: built.options } : {}),
      ...(built.resolved ? { resolved: built.resolved } : {}),
      ...(command.guild_id ? { guild_id: command.guild_id } : {}),
    }, owners);
  }

  /** Sends an autocomplete interaction (type 4) and waits for the bot's choices. */
  async autocomplete(spec: AutocompleteSpec): Promise<{ name: string; value: string | number }[]> {
    const handle = this.startAutocomplete(spec);
    const callback = await handle.waitForCallback(spec.timeoutMs);
    if (callback.status >= 400) throw new Error(`autocomplete callback was rejected with ${callback.status} (${String(callback.errorCode)})`);
    return handle.choices ?? [];
  }

  startAutocomplete(spec: AutocompleteSpec): InteractionHandle {
    const { command, place, owners } = this.commandFor(spec);
    const built = buildOptions(command, spec.options ?? {}, this.resolveContext(place), {
      subcommand: spec.subcommand,
      subcommandGroup: spec.subcommandGroup,
      focused: spec.focused,
    });
    return this.dispatchInteraction(4, place, spec, {
      id: command.id,
      name: command.name,
      type: 1,
      options: built.options,
      ...(command.guild_id ? { guild_id: command.guild_id } : {}),
    }, owners);
  }

  /** Clicks a button on a message the bot sent; throws when no such (enabled) button exists. */
  pressButton(spec: PressButtonSpec): InteractionHandle {
    const place = this.placeFor(spec);
    const channelId = place.kind === 'guild' ? place.channel.id : place.channelId;
    const carries = (m: StoredMessage): boolean => findButton(m.components, spec.customId) !== undefined;
    let message: StoredMessage | undefined;
    if (spec.messageId) {
      message = this.messages.get(spec.messageId);
      if (!message || message.deletedAt !== null) throw new Error(`message ${spec.messageId} does not exist`);
      if (!carries(message)) throw new Error(`message ${spec.messageId} has no button with custom_id ${spec.customId}`);
    } else {
      message = [...(this.messagesByChannel.get(channelId) ?? [])].reverse().find((m) => m.deletedAt === null && carries(m));
      if (!message) throw new Error(`no message in channel ${channelId} has a button with custom_id ${spec.customId}`);
    }
    if (message.channelId !== channelId) throw new Error(`message ${message.id} is not in channel ${channelId}`);
    const button = findButton(message.components, spec.customId);
    if (button?.disabled === true) throw new Error(`button ${spec.customId} is disabled`);
    const owners = this.componentOwners(place, message);
    if (Object.keys(owners).length === 0) throw new Error(`the app is not installed where channel ${channelId} is, for user ${this.placeUser(place).id}`);
    return this.dispatchInteraction(3, place, spec, { custom_id: spec.customId, component_type: 2 }, owners, message);
  }

  /** Every interaction dispatched so far. */
  interactionHandles(): InteractionHandle[] {
    return [...this.interactions.values()].map((s) => this.handleFor(s));
  }

  /** Registered commands: global, or one guild's. */
  commands(guildId?: string): RegisteredCommand[] {
    return guildId ? (this.guildCommands.get(guildId)?.list() ?? []) : this.globalCommands.list();
  }

  // ------------------------------------------------------------------------------------------- faults & observation

  injectFault(spec: FaultSpec): FaultHandle {
    if (spec.status === undefined && spec.delayMs === undefined && spec.answer === undefined) throw new Error('a fault needs a status, an answer or a delayMs');
    const fault: ActiveFault = { ...spec, hits: 0, removed: false };
    this.faults.push(fault);
    return {
      get hits() {
        return fault.hits;
      },
      remove: () => {
        fault.removed = true;
      },
    };
  }

  clearFaults(): void {
    for (const f of this.faults) f.removed = true;
    this.faults.length = 0;
  }

  /** Messages visible in a channel now (not ephemeral, not deleted), oldest first. */
  messagesIn(channelId: string): MessageView[] {
    return (this.messagesByChannel.get(channelId) ?? [])
      .filter((m) => m.deletedAt === null && (m.flags & MessageFlag.Ephemeral) === 0)
      .map(viewMessage);
  }

  /**
   * GET /channels/:id/messages as Discord pages it: `limit` 1-100 (default 50) and at most one of `before`, `after`
   * (the messages right after the id) or `around`, always newest first. Snowflakes compare as numbers.
   */
  private pageOfMessages(channelId: string, query: URLSearchParams): StoredMessage[] {
    const rawLimit = query.get('limit');
    const limit = rawLimit === null ? 50 : Number(rawLimit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
      const errors = new FormErrors();
      errors.add(['limit'], 'NUMBER_TYPE_MAX', 'int value should be between 1 and 100.');
      throw invalidForm(errors);
    }
    const anchors = (['before', 'after', 'around'] as const).filter((key) => query.has(key));
    const snowflake = (key: string): bigint => {
      const value = query.get(key) ?? '';
      if (!/^\d{1,20}$/.test(value)) {
        const errors = new FormErrors();
        errors.add([key], 'NUMBER_TYPE_COERCE', `Value "${value}" is not snowflake.`);
        throw invalidForm(errors);
      }
      return BigInt(value);
    };
    const oldestFirst = (this.messagesByChannel.get(channelId) ?? []).filter((m) => m.deletedAt === null && (m.flags & MessageFlag.Ephemeral) === 0);
    const [anchor] = anchors;
    let page: StoredMessage[];
    if (anchor === 'after') {
      const after = snowflake('after');
      page = oldestFirst.filter((m) => BigInt(m.id) > after).slice(0, limit);
    } else if (anchor === 'around') {
      const around = snowflake('around');
      const older = oldestFirst.filter((m) => BigInt(m.id) < around);
      const rest = oldestFirst.filter((m) => BigInt(m.id) >= around);
      page = [...older.slice(Math.max(0, older.length - Math.floor(limit / 2))), ...rest].slice(0, limit);
    } else if (anchor === 'before') {
      const before = snowflake('before');
      const older = oldestFirst.filter((m) => BigInt(m.id) < before);
      page = older.slice(Math.max(0, older.length - limit));
    } else {
      page = oldestFirst.slice(Math.max(0, oldestFirst.length - limit));
    }
    return page.reverse();
  }

  /** Waits until a channel shows at least `count` messages; resolves with them. */
  waitForMessages(channelId: string, count = 1, timeoutMs = 5000): Promise<MessageView[]> {
    return this.changes.until(
      () => {
        const list = this.messagesIn(channelId);
        return list.length >= count ? list : undefined;
      },
      `${count} message(s) in channel ${channelId}`,
      timeoutMs,
    );
  }

  /** Every message ever created (deleted and ephemeral included), oldest first. */
  allMessages(): MessageView[] {
    return [...this.messages.values()].map(viewMessage);
  }

  /** Threads started from messages in a channel (THREAD_CREATE payloads), oldest first. */
  threadsIn(channelId: string): { id: string; name: string; type: number; parentId: string; autoArchiveDuration: number }[] {
    return [...this.threads.values()]
      .filter((t) => t.parent_id === channelId)
      .map((t) => ({
        id: String(t.id),
        name: String(t.name),
        type: Number(t.type),
        parentId: String(t.parent_id),
        autoArchiveDuration: Number((t.thread_metadata as Json).auto_archive_duration),
      }));
  }

  /** Successful POST /channels/:id/messages requests (optionally for one channel). */
  posts(channelId?: string): RecordedRequest[] {
    return this.requests.filter(
      (r) => r.route === 'POST /channels/:channel_id/messages' && r.status < 300 && (channelId === undefined || r.path.split('/')[2] === channelId),
    );
  }

  /** Every interaction callback attempt, in arrival order. */
  callbacks(): RecordedCallback[] {
    return [...this.interactions.values()].flatMap((i) => i.callbacks).sort((a, b) => a.at - b.at);
  }

  /** Per-second counters (epoch seconds, the same windows the global limiter uses). */
  stats(): {
    perSecond: SecondStats[];
    total: number;
    global429: number;
    bucket429: number;
    invalid: number;
    maxAcceptedPerSecond: number;
    maxPostsPerSecond: number;
  } {
    const perSecond = [...this.perSecond.values()].sort((a, b) => a.second - b.second);
    return {
      perSecond,
      total: this.requests.length,
      global429: perSecond.reduce((n, s) => n + s.global429, 0),
      bucket429: perSecond.reduce((n, s) => n + s.bucket429, 0),
      invalid: perSecond.reduce((n, s) => n + s.invalid, 0),
      maxAcceptedPerSecond: perSecond.reduce((n, s) => Math.max(n, s.accepted), 0),
      maxPostsPerSecond: perSecond.reduce((n, s) => Math.max(n, s.posts), 0),
    };
  }

  /** Resolves when `probe` returns something other than undefined, re-checked on every harness change. */
  waitFor<T>(probe: () => T | undefined, description: string, timeoutMs = 5000): Promise<T> {
    return this.changes.until(probe, description, timeoutMs);
  }

  // ------------------------------------------------------------------------------------------- gateway control

  /** Gateway happenings (connections, IDENTIFY, READY, RESUME, closes…), in order. */
  get gatewayEvents(): GatewayEvent[] {
    return this.gateway.events;
  }

  /** Closes every gateway connection, or those of one shard id, with a close code (4000 resumable, 4009 forces a new session). */
  closeGateway(code = 4000, reason = 'closed by the test harness', only: { shard?: number } = {}): void {
    this.gateway.closeAll(code, reason, only.shard);
  }

  /** Drops every gateway connection, or those of one shard id, without a close frame (the client sees 1006). */
  dropGateway(only: { shard?: number } = {}): void {
    this.gateway.dropAll(only.shard);
  }

  /** Leaves new gateway connections waiting, unanswered, until releaseGateway(): the gateway stays down. */
  holdGateway(): void {
    this.gateway.hold();
  }

  /** Lets the held gateway connections (and new ones) through. */
  releaseGateway(): void {
    this.gateway.release();
  }

  /** Sends op 7 Reconnect. */
  requestReconnect(): void {
    this.gateway.requestReconnect();
  }

  /** Asks connected clients for an immediate heartbeat (op 1). */
  requestHeartbeat(): void {
    this.gateway.requestHeartbeat();
  }

  /** Sends op 9 Invalid Session. */
  invalidateSession(resumable = false): void {
    this.gateway.invalidateSessions(resumable);
  }

  /** Resolves once `count` gateway events of `kind` have happened in total. */
  waitForGateway(kind: GatewayEvent['kind'], count = 1, timeoutMs = 10_000): Promise<GatewayEvent> {
    return this.changes.until(
      () => this.gateway.events.filter((e) => e.kind === kind)[count - 1],
      `gateway event "${kind}" #${count}`,
      timeoutMs,
    );
  }

  waitForIdentify(count = 1, timeoutMs?: number): Promise<GatewayEvent> {
    return this.waitForGateway('identify', count, timeoutMs);
  }

  waitForReady(count = 1, timeoutMs?: number): Promise<GatewayEvent> {
    return this.waitForGateway('ready', count, timeoutMs);
  }

  waitForResume(count = 1, timeoutMs?: number): Promise<GatewayEvent> {
    return this.waitForGateway('resumed', count, timeoutMs);
  }

  /** True when some session is identified and connected. */
  get connected(): boolean {
    return this.gateway.connectedSessions.length > 0;
  }

  /** What GET /gateway/bot recommends now: the `shards` option, or one shard per 1,000 guilds (at least 1). */
  get shardCount(): number {
    return this.recommendedShards ?? Math.max(1, Math.ceil(this.guilds.size / 1000));
  }

  /** Every shard a client identified with ([0, 1] for unsharded sessions), with its state and the guilds it owns now. */
  shards(): ShardView[] {
    return this.gateway.shardStates().map((state) => ({ ...state, guilds: this.guildsOnShard(state.shard).length }));
  }

  /** Every dispatch so far (READY and GUILD_CREATEs included) and the sessions and shards it went to, oldest first. */
  get gatewayDispatches(): GatewayDispatch[] {
    return this.gateway.dispatches;
  }

  /** Guild ids on shard `shardId` of `shardCount`. */
  guildIdsOnShard(shardId: number, shardCount: number): string[] {
    return this.guildsOnShard([shardId, shardCount]).map((g) => g.id);
  }

  // ------------------------------------------------------------------------------------------- private: world

  private guildsOnShard([shardId, shardCount]: [number, number]): Guild[] {
    if (shardCount === 1) return [...this.guilds.values()];
    return [...this.guilds.values()].filter((g) => shardOf(g.id, shardCount) === shardId);
  }

  /** A guild with or without the bot. */
  private anyGuild(id: string): Guild {
    const guild = this.guilds.get(id) ?? this.outsideGuilds.get(id);
    if (!guild) throw new Error(`unknown guild ${id}`);
    return guild;
  }

  private requireGuild(id: string): Guild {
    const guild = this.guilds.get(id);
    if (!guild) throw new Error(`unknown guild ${id}`);
    return guild;
  }

  private requireChannel(id: string): Channel {
    const channel = this.channels.get(id);
    if (!channel) throw new Error(`unknown channel ${id}`);
    return channel;
  }

  private resolveRoleRefs(guild: Guild, refs: string[]): string[] {
    return refs.map((ref) => {
      if (guild.roles.has(ref)) return ref;
      const byName = [...guild.roles.values()].find((r) => r.name === ref);
      if (!byName) throw new Error(`guild ${guild.id} has no role ${ref}`);
      return byName.id;
    });
  }

  /** Overwrite ids may be '@everyone', a role name, '@bot', or a raw role/user id. */
  private resolveOverwrites(guild: Guild, specs: OverwriteSpec[]): ReturnType<typeof resolveOverwrite>[] {
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

  private putMember(guild: Guild, spec: MemberSpec): Member {
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

  private putChannel(guild: Guild, spec: ChannelSpec): Channel {
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
    };
    guild.channels.set(id, channel);
    this.channels.set(id, channel);
    return channel;
  }

  private memberFor(guild: Guild, user: InvokeUser | string | undefined): Member {
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

  private resolvedChannel(channel: Channel, member: Member | undefined): Json {
    const guild = this.guilds.get(channel.guildId) ?? this.outsideGuilds.get(channel.guildId);
    return {
      id: channel.id,
      name: channel.name,
      type: channel.type,
      parent_id: channel.parentId,
      guild_id: channel.guildId,
      flags: 0,
      permissions: (guild && member ? channelPermissions(guild, member, channel) : 0n).toString(),
    };
  }

  private resolveContext(place: Place) {
    if (place.kind !== 'guild') {
      return {
        channel: () => undefined,
        channelType: () => undefined,
        role: () => undefined,
        user: (id: string) => {
          const user = this.users.get(id);
          return user ? { user: serializeUser(user) } : undefined;
        },
      };
    }
    const { guild, channel, member } = place;
    return {
      channel: (id: string) => {
        const c = guild.channels.get(id);
        return c ? this.resolvedChannel(c, member) : undefined;
      },
      channelType: (id: string) => guild.channels.get(id)?.type,
      role: (id: string) => {
        const r = guild.roles.get(id);
        return r ? serializeRole(r) : undefined;
      },
      user: (id: string) => {
        const user = this.users.get(id);
        if (!user) return undefined;
        const other = guild.members.get(id);
        return {
          user: serializeUser(user),
          ...(other ? { member: { ...serializeMember(other, false), permissions: channelPermissions(guild, other, channel).toString() } } : {}),
        };
      },
    };
  }

  private userFor(spec: InteractionTarget): User {
    if (spec.user === undefined) return this.defaultUser;
    if (typeof spec.user === 'string') {
      const known = this.users.get(spec.user);
      if (!known) throw new Error(`unknown user ${spec.user}`);
      return known;
    }
    const user = (spec.user.id ? this.users.get(spec.user.id) : undefined) ?? makeUser(spec.user);
    this.users.set(user.id, user);
    return user;
  }

  /** Where an interaction happens: a guild channel as a member, the bot's DM with a user, or a private channel. */
  private placeFor(spec: InteractionTarget): Place {
    const dmUser = spec.channelId ? this.dmChannels.get(spec.channelId) : undefined;
    if (spec.dm || dmUser) {
      if (spec.guildId) throw new Error('a DM interaction has no guild');
      const user = dmUser ? (this.users.get(dmUser) ?? this.defaultUser) : this.userFor(spec);
      return { kind: 'dm', channelId: this.dmChannelOf(user.id), user };
    }
    if (!spec.channelId) throw new Error('an interaction needs a channelId (or dm: true)');
    const privateChannel = this.privateChannels.get(spec.channelId);
    if (privateChannel) {
      if (spec.guildId) throw new Error('a private channel has no guild');
      const user = this.userFor(spec.user === undefined ? { ...spec, user: privateChannel.recipients[0] } : spec);
      if (!privateChannel.recipients.includes(user.id)) throw new Error(`user ${user.id} is not in private channel ${privateChannel.id}`);
      const recipients = privateChannel.recipients.map((id) => this.users.get(id)).filter((u): u is User => u !== undefined);
      return { kind: 'private', channelId: privateChannel.id, type: privateChannel.type, recipients, user };
    }
    const channel = this.requireChannel(spec.channelId);
    if (spec.guildId !== undefined && spec.guildId !== channel.guildId) throw new Error(`channel ${channel.id} is not in guild ${spec.guildId}`);
    const guild = this.anyGuild(channel.guildId);
    return { kind: 'guild', guild, channel, member: this.memberFor(guild, spec.user), installed: this.guilds.has(guild.id) };
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

  private placeUser(place: Place): User {
    return place.kind === 'guild' ? place.member.user : place.user;
  }

  /**
   * authorizing_integration_owners for a command in a place, as Discord works them out: "0" (the guild's id, or "0"
   * in the bot's DM) when the command has the guild-install type and the app is installed there; "1" (the user's
   * id) when the command has the user-install type and the user installed the app. Empty: Discord would not offer it.
   */
  private owners(types: number[], place: Place): Record<string, string> {
    const owners: Record<string, string> = {};
    if (types.includes(0)) {
      if (place.kind === 'guild' && place.installed) owners['0'] = place.guild.id;
      else if (place.kind === 'dm') owners['0'] = '0';
    }
    const user = this.placeUser(place);
    if (types.includes(1) && this.userInstalls.has(user.id)) owners['1'] = user.id;
    return owners;
  }

  private commandFor(spec: InvokeCommandSpec): { command: RegisteredCommand; place: Place; owners: Record<string, string> } {
    const place = this.placeFor(spec);
    const scoped = place.kind === 'guild' && place.installed ? this.guildCommands.get(place.guild.id)?.findByName(spec.name) : undefined;
    const command = scoped ?? this.globalCommands.findByName(spec.name);
    if (!command) {
      const where = place.kind === 'guild' && place.installed ? ` (globally or in guild ${place.guild.id})` : ' globally';
      throw new Error(`/${spec.name} is not registered${where}; deploy the commands first`);
    }
    const context = place.kind === 'guild' ? 0 : place.kind === 'dm' ? 1 : 2;
    const contexts = scoped ? [0] : contextsOf(command);
    if (!contexts.includes(context)) {
      const where = context === 0 ? 'in guilds' : context === 1 ? 'in DMs' : 'in group DMs or DMs between users';
      throw new Error(`/${command.name} cannot be used ${where} (contexts ${JSON.stringify(command.contexts ?? null)}); Discord would not offer it`);
    }
    const owners = this.owners(scoped ? [0] : integrationTypesOf(command), place);
    if (Object.keys(owners).length === 0) {
      throw new Error(
        `/${command.name} is not installed here (integration_types ${JSON.stringify(command.integration_types ?? null)}; ` +
          `user install: ${this.userInstalls.has(this.placeUser(place).id)}); Discord would not offer it`,
      );
    }
    if (place.kind === 'guild') {
      const { guild, member } = place;
      const required = command.default_member_permissions;
      if (typeof required === 'string') {
        const bits = BigInt(required);
        let held = spec.memberPermissions !== undefined ? toBits(spec.memberPermissions, 0n) : basePermissions(guild, member);
        if ((held & PermissionFlagsBits.Administrator) !== 0n) held = ALL_PERMISSIONS;
        // Discord's client hides a command from members without its default permissions (admins always see it).
        if ((held & bits) !== bits) {
          throw new Error(`member ${member.user.id} lacks /${command.name}'s default_member_permissions (${required}); Discord would not offer it`);
        }
      }
    }
    return { command, place, owners };
  }

  /**
   * Owners for a button press: those of the interaction whose response carries the button (so anyone may press a
   * button of a user-installed reply); for other messages of the bot, the installations present where it is pressed.
   */
  private componentOwners(place: Place, message: StoredMessage): Record<string, string> {
    const source = message.interactionId ? this.interactions.get(message.interactionId) : undefined;
    const owners = source?.payload.authorizing_integration_owners;
    if (owners && typeof owners === 'object') return { ...(owners as Record<string, string>) };
    return this.owners([0, 1], place);
  }

  private dispatchInteraction(
    type: number,
    place: Place,
    spec: InteractionTarget,
    data: Json,
    owners: Record<string, string>,
    message?: StoredMessage,
  ): InteractionHandle {
    const id = snowflake();
    const token = `aW50ZXJhY3Rpb246${id}:${snowflake()}${Math.random().toString(36).slice(2)}`;
    const common: Json = {
      id,
      application_id: this.applicationId,
      type,
      data,
      token,
      version: 1,
      locale: spec.locale ?? 'en-US',
      entitlements: [],
      attachment_size_limit: 10 * 1024 * 1024,
      authorizing_integration_owners: owners,
      ...(message ? { message: serializeMessage(message, this.applicationId) } : {}),
    };
    let payload: Json;
    let guildId: string | null;
    let channelId: string;
    let user: User;
    let forceEphemeral = false;
    if (place.kind === 'guild') {
      const { guild, channel, member } = place;
      const bot = guild.members.get(this.botUser.id);
      const memberPermissions = spec.memberPermissions !== undefined ? toBits(spec.memberPermissions, 0n) : channelPermissions(guild, member, channel);
      // A user-installed app in a server it is not in acts with what @everyone may do in the channel.
      const everyone: Member = { user: this.botUser, roles: [], nick: null, joinedAt: guild.joinedAt };
      const computed = bot ? channelPermissions(guild, bot, channel) : channelPermissions(guild, everyone, channel);
      const appPermissions = spec.appPermissions !== undefined ? toBits(spec.appPermissions, 0n) : computed;
      forceEphemeral = owners['0'] === undefined && (memberPermissions & PermissionFlagsBits.UseExternalApps) === 0n;
      payload = {
        ...common,
        guild_id: guild.id,
        guild: { id: guild.id, locale: guild.preferredLocale, features: [] },
        channel_id: channel.id,
        channel: { ...serializeChannel(channel), permissions: memberPermissions.toString() },
        member: { ...serializeMember(member), permissions: memberPermissions.toString() },
        app_permissions: appPermissions.toString(),
        guild_locale: guild.preferredLocale,
        context: 0,
      };
      guildId = guild.id;
      channelId = channel.id;
      user = member.user;
    } else if (place.kind === 'dm') {
      const appPermissions = spec.appPermissions !== undefined ? toBits(spec.appPermissions, 0n) : DM_APP_PERMISSIONS;
      payload = {
        ...common,
        channel_id: place.channelId,
        channel: { id: place.channelId, type: 1, last_message_id: null, flags: 0, recipients: [serializeUser(place.user)] },
        user: serializeUser(place.user),
        app_permissions: appPermissions.toString(),
        context: 1,
      };
      guildId = null;
      channelId = place.channelId;
      user = place.user;
    } else {
      const appPermissions = spec.appPermissions !== undefined ? toBits(spec.appPermissions, 0n) : PRIVATE_APP_PERMISSIONS;
      const others = place.recipients.filter((r) => r.id !== place.user.id).map(serializeUser);
      payload = {
        ...common,
        channel_id: place.channelId,
        channel: { id: place.channelId, type: place.type, last_message_id: null, flags: 0, recipients: others, ...(place.type === 3 ? { name: null, owner_id: place.recipients[0]?.id } : {}) },
        user: serializeUser(place.user),
        app_permissions: appPermissions.toString(),
        context: 2,
      };
      guildId = null;
      channelId = place.channelId;
      user = place.user;
    }
    const state: InteractionState = {
      id,
      token,
      type,
      guildId,
      channelId,
      user,
      sentAt: Date.now(),
      payload,
      dispatch: undefined,
      callbacks: [],
      acknowledged: undefined,
      original: type === 3 ? message : undefined,
      followUps: [],
      choices: undefined,
      userInstallOnly: owners['0'] === undefined,
      forceEphemeral,
    };
    this.interactions.set(id, state);
    this.interactionsByToken.set(token, state);
    // Interactions from servers without the bot go to the shard their guild id maps to, like any guild's.
    state.dispatch = this.gateway.dispatch('INTERACTION_CREATE', payload, guildId ?? undefined);
    return this.handleFor(state);
  }

  private handleFor(state: InteractionState): InteractionHandle {
    const until = this.changes.until.bind(this.changes);
    const isResponse = (m: StoredMessage | undefined): boolean => {
      if (!m || (m.flags & MessageFlag.Loading) !== 0) return false;
      // For a component, the clicked message only counts once the bot updated or edited it.
      if (state.type === 3) return state.acknowledged !== undefined && m.revisions.length > 1;
      return true;
    };
    return {
      id: state.id,
      token: state.token,
      type: state.type,
      guildId: state.guildId,
      channelId: state.channelId,
      userId: state.user.id,
      sentAt: state.sentAt,
      payload: state.payload,
      get deliveredTo() {
        return (state.dispatch?.to ?? []).map((t) => ({ sessionId: t.sessionId, shard: [...t.shard] as [number, number] }));
      },
      get callbacks() {
        return [...state.callbacks];
      },
      get callback() {
        return state.acknowledged;
      },
      get original() {
        return state.original ? viewMessage(state.original) : undefined;
      },
      get followUps() {
        return state.followUps.map(viewMessage);
      },
      get choices() {
        return state.choices;
      },
      waitForCallback: (timeoutMs = 5000) =>
        until(() => state.acknowledged ?? state.callbacks[0], `a callback for interaction ${state.id}`, timeoutMs),
      waitForResponse: (timeoutMs = 5000) =>
        until(
          () => (isResponse(state.original) && state.original ? viewMessage(state.original) : undefined),
          `the response to interaction ${state.id}`,
          timeoutMs,
        ),
      waitForOriginal: (predicate, timeoutMs = 5000) =>
        until(
          () => {
            if (!state.original) return undefined;
            const view = viewMessage(state.original);
            return predicate(view) ? view : undefined;
          },
          `the original response of interaction ${state.id} to match`,
          timeoutMs,
        ),
      waitForFollowUp: (index = 0, timeoutMs = 5000) =>
        until(() => {
          const m = state.followUps[index];
          return m ? viewMessage(m) : undefined;
        }, `follow-up #${index + 1} of interaction ${state.id}`, timeoutMs),
    };
  }

  // ------------------------------------------------------------------------------------------- private: HTTP

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = (req.method ?? 'GET').toUpperCase();
    const prefix = '/api/v10';
    const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) || '/' : url.pathname;
    const record: RecordedRequest = {
      seq: ++this.seq,
      at,
      method,
      path,
      query: Object.fromEntries(url.searchParams),
      route: null,
      body: null,
      status: 0,
      response: null,
      responseHeaders: {},
      limited: null,
      countedGlobally: false,
      faulted: false,
      durationMs: 0,
    };
    let headers: Record<string, string> = {};
    const respond = (status: number, body?: unknown): void => {
      record.status = status;
      record.response = body ?? null;
      record.responseHeaders = { ...headers };
      record.durationMs = Date.now() - at;
      this.requests.push(record);
      this.count(record);
      this.changes.notify();
      if (res.destroyed) return;
      const out: Record<string, string> = { ...headers, Via: '1.1 fake-discord' };
      if (body === undefined) {
        res.writeHead(status, out);
        res.end();
      } else {
        out['Content-Type'] = 'application/json';
        res.writeHead(status, out);
        res.end(JSON.stringify(body));
      }
    };

    try {
      const raw = await readBody(req);
      let parsed: { body: unknown; attachments: Json[]; files: StoredFile[] };
      try {
        parsed = await parseBody(raw, req.headers['content-type']);
      } catch {
        record.body = raw.toString('utf8');
        respond(400, { message: 'The request body contains invalid JSON.', code: 50109 });
        return;
      }
      record.body = parsed.body;
      if (!url.pathname.startsWith(`${prefix}/`)) {
        respond(404, { message: '404: Not Found', code: 0 });
        return;
      }
      const match = this.match(method, path);
      if (!match) {
        respond(404, { message: '404: Not Found', code: 0 });
        return;
      }
      if (match === 'method') {
        respond(405, { message: '405: Method Not Allowed', code: 0 });
        return;
      }
      const { route, params } = match;
      record.route = `${route.method} ${route.template}`;
      if (route.auth && req.headers.authorization !== `Bot ${this.token}`) {
        respond(401, { message: '401: Unauthorized', code: 0 });
        return;
      }
      if (route.auth && !route.globalExempt) {
        // Judged by arrival time, the same clock the per-second stats use, so the two always agree.
        const verdict = this.globalLimiter.take(at);
        if (verdict.ok) record.countedGlobally = true;
        else {
          record.limited = 'global';
          headers = { 'Retry-After': String(Math.ceil(verdict.retryAfter)), 'X-RateLimit-Global': 'true', 'X-RateLimit-Scope': 'global' };
          respond(429, { message: 'You are being rate limited.', retry_after: Number(verdict.retryAfter.toFixed(3)), global: true });
          return;
        }
      }
      const fault = this.takeFault(method, path);
      if (fault) {
        record.faulted = true;
        if (fault.delayMs) await sleep(fault.delayMs);
        if (fault.answer) {
          const { status, headers: sent = {}, body = '' } = fault.answer;
          record.status = status;
          record.response = typeof body === 'string' ? body : body.toString('latin1');
          record.responseHeaders = { ...sent };
          record.durationMs = Date.now() - at;
          this.requests.push(record);
          this.count(record);
          this.changes.notify();
          if (!res.destroyed) {
            res.writeHead(status, { ...sent, Via: '1.1 fake-discord' });
            res.end(body);
          }
          return;
        }
        if (fault.status === 429) {
          const { global, retryAfterMs } = fault.rateLimit ?? { global: false, retryAfterMs: 1000 };
          const seconds = retryAfterMs / 1000;
          record.limited = global ? 'global' : 'bucket';
          headers = global
            ? { 'Retry-After': String(Math.ceil(seconds)), 'X-RateLimit-Global': 'true', 'X-RateLimit-Scope': 'global' }
            : {
                'Retry-After': String(Math.ceil(seconds)),
                'X-RateLimit-Limit': '5',
                'X-RateLimit-Remaining': '0',
                'X-RateLimit-Reset-After': seconds.toFixed(3),
                'X-RateLimit-Bucket': 'injected-fault',
                'X-RateLimit-Scope': 'user',
              };
          respond(429, { message: 'You are being rate limited.', retry_after: Number(seconds.toFixed(3)), global });
          return;
        }
        if (fault.status !== undefined) {
          const code = fault.code ?? (fault.status === 403 ? 50013 : fault.status === 404 ? 10003 : 0);
          const message = fault.message ?? defaultFaultMessage(fault.status, code);
          respond(fault.status, { message, code });
          return;
        }
      }
      if (route.bucket) {
        const b = route.bucket(params);
        const verdict = this.buckets.take(b.hash, b.major, b.rule, Date.now());
        headers = verdict.headers;
        if (verdict.retryAfter !== undefined) {
          record.limited = 'bucket';
          headers['Retry-After'] = String(Math.ceil(verdict.retryAfter));
          respond(429, { message: 'You are being rate limited.', retry_after: Number(verdict.retryAfter.toFixed(3)), global: false });
          return;
        }
      }
      const body = (typeof parsed.body === 'object' && parsed.body !== null && !Array.isArray(parsed.body) ? parsed.body : {}) as Json;
      const result = await route.handle({ params, body, rawBody: parsed.body, query: url.searchParams, attachments: parsed.attachments, files: parsed.files });
      respond(result.status, result.body);
    } catch (error) {
      if (error instanceof ApiError) respond(error.status, error.body());
      else {
        const failure = error instanceof Error ? error : new Error(String(error));
        this.internalErrors.push(failure);
        process.stderr.write(`discord harness: internal error on ${method} ${path}: ${failure.stack ?? failure.message}\n`);
        respond(500, { message: `500: Internal Server Error (${failure.message})`, code: 0 });
      }
    }
  }

  private count(r: RecordedRequest): void {
    const second = Math.floor(r.at / 1000);
    let s = this.perSecond.get(second);
    if (!s) {
      s = { second, requests: 0, accepted: 0, exempt: 0, posts: 0, global429: 0, bucket429: 0, invalid: 0 };
      this.perSecond.set(second, s);
    }
    s.requests += 1;
    if (r.limited === 'global') s.global429 += 1;
    else if (r.countedGlobally) s.accepted += 1;
    else s.exempt += 1;
    if (r.limited === 'bucket') s.bucket429 += 1;
    if (r.status === 401 || r.status === 403 || r.status === 429) s.invalid += 1;
    if (r.route === 'POST /channels/:channel_id/messages' && r.status < 300) s.posts += 1;
  }

  private takeFault(method: string, path: string): ActiveFault | undefined {
    for (const fault of this.faults) {
      if (fault.removed || (fault.times !== undefined && fault.hits >= fault.times)) continue;
      if (fault.channelId !== undefined && !path.startsWith(`/channels/${fault.channelId}`)) continue;
      if (fault.route instanceof RegExp && !fault.route.test(`${method} ${path}`)) continue;
      if (typeof fault.route === 'string' && !templateMatches(fault.route, method, path)) continue;
      fault.hits += 1;
      return fault;
    }
    return undefined;
  }

  private match(method: string, path: string): { route: Route; params: Record<string, string> } | 'method' | undefined {
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    let methodMismatch = false;
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length; i += 1) {
        const seg = route.segments[i] as string;
        const part = parts[i] as string;
        if (seg.startsWith(':')) params[seg.slice(1)] = part;
        else if (seg !== part) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      if (route.method !== method) {
        methodMismatch = true;
        continue;
      }
      return { route, params };
    }
    return methodMismatch ? 'method' : undefined;
  }

  private on(
    method: string,
    template: string,
    handle: Route['handle'],
    options: { auth?: boolean; globalExempt?: boolean; bucket?: Route['bucket'] | 'default' | null } = {},
  ): void {
    const segments = template.split('/').filter(Boolean);
    const hash = bucketHash(`${method} ${template}`);
    const majorKey = segments.find((s) => s === ':channel_id' || s === ':guild_id' || s === ':webhook_id');
    const bucket =
      options.bucket === undefined || options.bucket === 'default'
        ? (params: Record<string, string>) => ({ hash, major: majorKey ? (params[majorKey.slice(1)] ?? '') : 'global', rule: DEFAULT_RULE })
        : options.bucket;
    // Exact segments win over parameters (e.g. @original before :message_id): keep static routes first.
    this.routes.push({ method, template, segments, auth: options.auth ?? true, globalExempt: options.globalExempt ?? false, bucket, handle });
    this.routes.sort((a, b) => staticScore(b.segments) - staticScore(a.segments));
  }

  // ------------------------------------------------------------------------------------------- private: routes

  private defineRoutes(): void {
    const ok = (body: unknown, status = 200): RouteResult => ({ status, body });
    const noContent: RouteResult = { status: 204 };

    this.on('GET', '/gateway', () => ok({ url: this.gatewayUrl }), { auth: false });
    this.on('GET', '/gateway/bot', () => {
      const { used, resetAfter } = this.gateway.sessionStarts();
      return ok({
        url: this.gatewayUrl,
        shards: this.shardCount,
        session_start_limit: {
          total: this.options.sessionStartLimit,
          remaining: Math.max(0, this.options.sessionStartLimit - used),
          reset_after: resetAfter,
          max_concurrency: this.options.maxConcurrency,
        },
      });
    });
    this.on('GET', '/users/@me', () => ok({ ...serializeUser(this.botUser), verified: true, mfa_enabled: false, flags: 0 }));
    this.on('GET', '/users/:user_id', ({ params }) => {
      const user = this.users.get(params.user_id ?? '');
      if (!user) throw unknown(10013, 'User');
      return ok(serializeUser(user));
    });
    const application = () =>
      ok({
        id: this.applicationId,
        name: this.botUser.username,
        icon: null,
        description: '',
        bot_public: true,
        bot_require_code_grant: false,
        bot: serializeUser(this.botUser),
        flags: 0,
        owner: { id: snowflakeAt(0x17a9b1f2c00), username: 'owner', discriminator: '0', avatar: null },
        verify_key: '0'.repeat(64),
        team: null,
        approximate_guild_count: this.guilds.size,
      });
    this.on('GET', '/applications/@me', application);
    this.on('GET', '/oauth2/applications/@me', application);

    // --- application commands
    const scope = (params: Record<string, string>): CommandScope => {
      if (params.application_id !== this.applicationId) throw new ApiError(403, 50001, 'Missing Access');
      const guildId = params.guild_id;
      if (!guildId) return this.globalCommands;
      if (!this.guilds.has(guildId)) throw new ApiError(403, 50001, 'Missing Access');
      let s = this.guildCommands.get(guildId);
      if (!s) {
        s = new CommandScope(this.applicationId, guildId);
        this.guildCommands.set(guildId, s);
      }
      return s;
    };
    for (const base of ['/applications/:application_id/commands', '/applications/:application_id/guilds/:guild_id/commands']) {
      this.on('GET', base, ({ params }) => ok(scope(params).list()));
      this.on('PUT', base, ({ params, rawBody }) => {
        const s = scope(params);
        if (!Array.isArray(rawBody)) {
          const errors = new FormErrors();
          errors.add([], 'BASE_TYPE_LIST', 'Must be a list.');
          throw invalidForm(errors);
        }
        const errors = new FormErrors();
        if (rawBody.length > 100) errors.add([], 'BASE_TYPE_MAX_LENGTH', 'Must be 100 or fewer in length.');
        const seen = new Set<string>();
        rawBody.forEach((c: unknown, i: number) => {
          const one = validateCommand(c, [i]);
          mergeErrors(errors, one);
          const key = `${String((c as Json).type ?? 1)}:${String((c as Json).name)}`;
          if (seen.has(key)) errors.add([i, 'name'], 'APPLICATION_COMMAND_ALREADY_EXISTS', 'Application command names must be unique');
          seen.add(key);
        });
        if (!errors.empty) throw invalidForm(errors);
        return ok(s.overwrite(rawBody as Json[]));
      });
      this.on('POST', base, ({ params, body }) => {
        const s = scope(params);
        const errors = validateCommand(body);
        if (!errors.empty) throw invalidForm(errors);
        const { command, created } = s.upsert(body);
        return ok(command, created ? 201 : 200);
      });
      this.on('GET', `${base}/:command_id`, ({ params }) => ok(scope(params).get(params.command_id ?? '') ?? throwUnknownCommand()));
      this.on('PATCH', `${base}/:command_id`, ({ params, body }) => {
        const s = scope(params);
        const current = s.get(params.command_id ?? '') ?? throwUnknownCommand();
        const errors = validateCommand({ ...current, ...body });
        if (!errors.empty) throw invalidForm(errors);
        return ok(s.patch(current.id, body));
      });
      this.on('DELETE', `${base}/:command_id`, ({ params }) => {
        if (!scope(params).delete(params.command_id ?? '')) throwUnknownCommand();
        return noContent;
      });
    }

    // --- guilds and channels
    const guildFor = (params: Record<string, string>): Guild => {
      const guild = this.guilds.get(params.guild_id ?? '');
      if (!guild) throw unknown(10004, 'Guild');
      if (this.unavailable.has(guild.id)) throw new ApiError(503, 0, '503: Service Unavailable');
      return guild;
    };
    this.on('GET', '/guilds/:guild_id', ({ params, query }) => {
      const guild = guildFor(params);
      return ok({
        ...serializeGuild(guild),
        ...(query.get('with_counts') === 'true' ? { approximate_member_count: guild.members.size, approximate_presence_count: 0 } : {}),
      });
    });
    this.on('GET', '/guilds/:guild_id/channels', ({ params }) => ok([...guildFor(params).channels.values()].map((c) => serializeChannel(c))));
    this.on('GET', '/guilds/:guild_id/roles', ({ params }) => ok([...guildFor(params).roles.values()].map(serializeRole)));
    this.on('GET', '/guilds/:guild_id/members/:user_id', ({ params }) => {
      const member = guildFor(params).members.get(params.user_id ?? '');
      if (!member) throw unknown(10007, 'Member');
      return ok(serializeMember(member));
    });

    const channelFor = (params: Record<string, string>, need: bigint = PermissionFlagsBits.ViewChannel): Channel => {
      const channel = this.channels.get(params.channel_id ?? '');
      // A bot is never in a group DM or another users' DM.
      if (!channel && this.privateChannels.has(params.channel_id ?? '')) throw new ApiError(403, 50001, 'Missing Access');
      if (!channel) throw unknown(10003, 'Channel');
      if (this.unavailable.has(channel.guildId)) throw new ApiError(503, 0, '503: Service Unavailable');
      const perms = this.botPermissions(channel.id);
      if ((perms & PermissionFlagsBits.ViewChannel) === 0n) throw new ApiError(403, 50001, 'Missing Access');
      if ((perms & need) !== need) throw new ApiError(403, 50013, 'Missing Permissions');
      return channel;
    };
    const dmChannel = (id: string): Json | undefined => {
      const userId = this.dmChannels.get(id);
      const user = userId ? this.users.get(userId) : undefined;
      return user ? { id, type: 1, last_message_id: null, flags: 0, recipients: [serializeUser(user)] } : undefined;
    };
    this.on('GET', '/channels/:channel_id', ({ params }) => ok(dmChannel(params.channel_id ?? '') ?? serializeChannel(channelFor(params))));
    this.on('POST', '/users/@me/channels', ({ body }) => {
      const recipient = typeof body.recipient_id === 'string' ? this.users.get(body.recipient_id) : undefined;
      if (!recipient) throw unknown(10013, 'User');
      return ok(dmChannel(this.dmChannelOf(recipient.id)));
    });
    const messageIn = (channel: Channel, id: string | undefined): StoredMessage => {
      const m = this.messages.get(id ?? '');
      if (!m || m.channelId !== channel.id || m.deletedAt !== null || (m.flags & MessageFlag.Ephemeral) !== 0) throw unknown(10008, 'Message');
      return m;
    };
    this.on(
      'POST',
      '/channels/:channel_id/messages',
      ({ params, body, attachments, files }) => {
        const dm = dmChannel(params.channel_id ?? '');
        if (dm) this.checkCanDm(this.dmChannels.get(String(dm.id)) ?? '');
        const channel = dm
          ? { id: String(dm.id), guildId: null }
          : channelFor(params, PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages);
        if ('type' in channel && !TEXT_TYPES.has(channel.type)) throw new ApiError(400, 50008, 'Cannot send messages in a non-text channel');
        this.checkMessage(body, 'create', false, attachments);
        const nonceKey = body.enforce_nonce === true && body.nonce !== undefined && body.nonce !== null ? `${channel.id}:${String(body.nonce)}` : null;
        if (nonceKey) {
          const seen = this.nonces.get(nonceKey);
          const first = seen ? this.messages.get(seen.messageId) : undefined;
          if (seen && first && Date.now() - seen.at < this.options.nonceWindowMs) return ok(serializeMessage(first, this.applicationId));
        }
        const message = createMessage({ channelId: channel.id, guildId: channel.guildId, author: this.botUser, body, attachments, files });
        this.keep(message);
        if (nonceKey) this.nonces.set(nonceKey, { messageId: message.id, at: Date.now() });
        this.onMessageCreated?.(viewMessage(message));
        const payload = serializeMessage(message, this.applicationId);
        if (channel.guildId) this.gateway.dispatch('MESSAGE_CREATE', { ...payload, member: { roles: [] } }, channel.guildId, 1 << 9);
        else this.gateway.dispatch('MESSAGE_CREATE', payload, undefined, 1 << 12);
        return ok(payload);
      },
      {
        bucket: (params) => ({ hash: bucketHash('POST /channels/:channel_id/messages'), major: params.channel_id ?? '', rule: this.options.perChannelMessages }),
      },
    );
    this.on('POST', '/channels/:channel_id/messages/:message_id/threads', ({ params, body }) => {
      const channel = channelFor(params, PermissionFlagsBits.ViewChannel | PermissionFlagsBits.CreatePublicThreads);
      if (channel.type !== ChannelKind.GuildText && channel.type !== ChannelKind.GuildAnnouncement) {
        throw new ApiError(400, 50024, 'Cannot execute action on this channel type');
      }
      const message = messageIn(channel, params.message_id);
      const errors = new FormErrors();
      if (typeof body.name !== 'string' || body.name.trim().length < 1 || body.name.length > 100) {
        errors.add(['name'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
      }
      const archive = body.auto_archive_duration;
      if (archive !== undefined && archive !== null && ![60, 1440, 4320, 10080].includes(Number(archive))) {
        errors.add(['auto_archive_duration'], 'BASE_TYPE_CHOICES', 'Value must be one of {60, 1440, 4320, 10080}.');
      }
      if (!errors.empty) throw invalidForm(errors);
      if (this.threads.has(message.id)) throw new ApiError(400, 160004, 'A thread has already been created for this message');
      const now = new Date().toISOString();
      // A thread started from a message takes the message's id.
      const thread: Json = {
        id: message.id,
        type: channel.type === ChannelKind.GuildAnnouncement ? 10 : 11,
        guild_id: channel.guildId,
        parent_id: channel.id,
        owner_id: this.botUser.id,
        name: String(body.name),
        last_message_id: null,
        rate_limit_per_user: 0,
        message_count: 0,
        member_count: 1,
        total_message_sent: 0,
        flags: 0,
        thread_metadata: { archived: false, auto_archive_duration: Number(archive ?? 4320), archive_timestamp: now, locked: false, create_timestamp: now },
      };
      this.threads.set(message.id, thread);
      this.gateway.dispatch('THREAD_CREATE', { ...thread, newly_created: true }, channel.guildId, 1);
      return ok(thread, 201);
    });
    this.on(
      'POST',
      '/channels/:channel_id/messages/:message_id/crosspost',
      ({ params }) => {
        const channel = channelFor(params, PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages);
        if (channel.type !== ChannelKind.GuildAnnouncement) throw new ApiError(400, 50024, 'Cannot execute action on this channel type');
        const message = messageIn(channel, params.message_id);
        if (message.author.id !== this.botUser.id && (this.botPermissions(channel.id) & PermissionFlagsBits.ManageMessages) === 0n) {
          throw new ApiError(403, 50013, 'Missing Permissions');
        }
        if ((message.flags & MessageFlag.Crossposted) !== 0) throw new ApiError(400, 40033, 'This message has already been crossposted.');
        message.flags |= MessageFlag.Crossposted;
        const payload = serializeMessage(message, this.applicationId);
        this.changes.notify();
        this.gateway.dispatch('MESSAGE_UPDATE', payload, channel.guildId, 1 << 9);
        return ok(payload);
      },
      // Discord lets a channel publish 10 messages an hour.
      { bucket: (params) => ({ hash: bucketHash('POST /channels/:channel_id/messages/:message_id/crosspost'), major: params.channel_id ?? '', rule: CROSSPOST_RULE }) },
    );
    this.on('GET', '/channels/:channel_id/messages', ({ params, query }) => {
      const dm = dmChannel(params.channel_id ?? '');
      const channel = dm ? { id: String(dm.id) } : channelFor(params, PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory);
      return ok(this.pageOfMessages(channel.id, query).map((m) => serializeMessage(m, this.applicationId, { withNonce: false })));
    });
    this.on('GET', '/channels/:channel_id/messages/:message_id', ({ params }) => {
      const channel = channelFor(params, PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory);
      return ok(serializeMessage(messageIn(channel, params.message_id), this.applicationId));
    });
    this.on('PATCH', '/channels/:channel_id/messages/:message_id', ({ params, body }) => {
      const channel = channelFor(params);
      const message = messageIn(channel, params.message_id);
      if (message.author.id !== this.botUser.id) throw new ApiError(403, 50005, 'Cannot edit a message authored by another user');
      this.checkMessage(body, 'edit', false);
      editMessage(message, body);
      this.keep(message);
      const payload = serializeMessage(message, this.applicationId);
      this.gateway.dispatch('MESSAGE_UPDATE', payload, channel.guildId, 1 << 9);
      return ok(payload);
    });
    this.on('DELETE', '/channels/:channel_id/messages/:message_id', ({ params }) => {
      const channel = channelFor(params);
      const message = messageIn(channel, params.message_id);
      if (message.author.id !== this.botUser.id && (this.botPermissions(channel.id) & PermissionFlagsBits.ManageMessages) === 0n) {
        throw new ApiError(403, 50013, 'Missing Permissions');
      }
      message.deletedAt = Date.now();
      this.gateway.dispatch('MESSAGE_DELETE', { id: message.id, channel_id: channel.id, guild_id: channel.guildId }, channel.guildId, 1 << 9);
      return noContent;
    });

    // --- interactions: callback and the interaction webhook
    this.on(
      'POST',
      '/interactions/:interaction_id/:interaction_token/callback',
      ({ params, body, query, attachments, files }) => this.interactionCallback(params, body, query, attachments, files),
      { auth: false, globalExempt: true, bucket: null },
    );
    const webhookBucket = (params: Record<string, string>) => ({
      hash: bucketHash('webhook'),
      major: `${params.webhook_id ?? ''}:${params.webhook_token ?? ''}`,
      rule: WEBHOOK_RULE,
    });
    const hook = { auth: false, globalExempt: true, bucket: webhookBucket };
    const base = '/webhooks/:webhook_id/:webhook_token';
    this.on('POST', base, ({ params, body, query, attachments, files }) => this.followUp(params, body, query, attachments, files), hook);
    this.on('GET', `${base}/messages/@original`, ({ params }) => ok(this.serializeWebhookMessage(this.originalOf(this.interactionFor(params)))), hook);
    this.on('PATCH', `${base}/messages/@original`, ({ params, body, attachments, files }) => ok(this.editWebhookMessage(this.originalOf(this.interactionFor(params)), body, attachments, files)), hook);
    this.on('DELETE', `${base}/messages/@original`, ({ params }) => this.deleteWebhookMessage(this.originalOf(this.interactionFor(params))), hook);
    this.on('GET', `${base}/messages/:message_id`, ({ params }) => ok(this.serializeWebhookMessage(this.webhookMessage(params))), hook);
    this.on('PATCH', `${base}/messages/:message_id`, ({ params, body, attachments, files }) => ok(this.editWebhookMessage(this.webhookMessage(params), body, attachments, files)), hook);
    this.on('DELETE', `${base}/messages/:message_id`, ({ params }) => this.deleteWebhookMessage(this.webhookMessage(params)), hook);
  }

  /**
   * Whether the bot may post in a user's DM: not when the user closed their DMs to it (50007), nor when they share no
   * server with it and have not installed the app (50278).
   */
  private checkCanDm(userId: string): void {
    if (this.closedDms.has(userId)) throw new ApiError(403, 50007, 'Cannot send messages to this user');
    const mutual = [...this.guilds.values()].some((guild) => guild.members.has(userId));
    if (!mutual && !this.userInstalls.has(userId)) {
      throw new ApiError(403, 50278, 'Cannot send messages to this user due to having no mutual guilds');
    }
  }

  /** Stores a new message (or re-resolves an edited one): computes who it pings. */
  private keep(message: StoredMessage): StoredMessage {
    const channel = this.channels.get(message.channelId);
    const guild = channel ? (this.guilds.get(channel.guildId) ?? this.outsideGuilds.get(channel.guildId)) : undefined;
    const mentionEveryone = channel ? (this.botPermissions(channel.id) & PermissionFlagsBits.MentionEveryone) !== 0n : false;
    message.pings = resolvePings(message.content, message.allowedMentions, {
      mentionEveryone,
      roleMentionable: (id) => guild?.roles.get(id)?.mentionable === true,
    });
    if (!this.messages.has(message.id)) {
      this.messages.set(message.id, message);
      const list = this.messagesByChannel.get(message.channelId);
      if (list) list.push(message);
      else this.messagesByChannel.set(message.channelId, [message]);
    }
    return message;
  }

  private checkMessage(body: Json, mode: 'create' | 'edit', interaction: boolean, attachments: Json[] = []): void {
    const errors = validateMessageBody(body, { mode, interaction });
    if (!errors.empty) throw invalidForm(errors);
    if (mode === 'create' && attachments.length === 0 && isEmptyMessage(body)) throw new ApiError(400, 50006, 'Cannot send an empty message');
  }

  private interactionCallback(params: Record<string, string>, body: Json, query: URLSearchParams, attachments: Json[], files: StoredFile[]): RouteResult {
    const state = this.interactions.get(params.interaction_id ?? '');
    if (!state || state.token !== params.interaction_token) throw unknown(10062, 'interaction');
    const now = Date.now();
    const type = typeof body.type === 'number' ? body.type : -1;
    const data = typeof body.data === 'object' && body.data !== null ? (body.data as Json) : null;
    const attempt: RecordedCallback = { interactionId: state.id, at: now, latencyMs: now - state.sentAt, type, data, status: 0, errorCode: null };
    state.callbacks.push(attempt);
    const reject = (error: ApiError): never => {
      attempt.status = error.status;
      attempt.errorCode = error.code;
      throw error;
    };
    if (state.acknowledged) reject(new ApiError(400, 40060, 'Interaction has already been acknowledged.'));
    if (now - state.sentAt > this.options.interactionDeadlineMs) reject(unknown(10062, 'interaction'));
    const allowed = state.type === 2 ? [4, 5, 9] : state.type === 3 ? [4, 5, 6, 7, 9] : state.type === 4 ? [8] : [1];
    if (!allowed.includes(type)) {
      const errors = new FormErrors();
      errors.add(['type'], 'INTERACTION_CALLBACK_TYPE_INVALID', `Interaction callback type ${type} is not valid for interaction type ${state.type}`);
      reject(invalidForm(errors));
    }
    let message: StoredMessage | undefined;
    if (type === 4 || type === 5) {
      const d = data ?? {};
      if (type === 4) {
        const errors = validateMessageBody(d, { mode: 'create', interaction: true });
        if (!errors.empty) reject(invalidForm(prefixErrors(errors, 'data')));
        if (attachments.length === 0 && isEmptyMessage(d)) reject(new ApiError(400, 50006, 'Cannot send an empty message'));
      } else if (d.flags !== undefined && (typeof d.flags !== 'number' || (d.flags & ~(64 | 4096)) !== 0)) {
        const errors = new FormErrors();
        errors.add(['data', 'flags'], 'MESSAGE_FLAGS_INVALID', 'Invalid flags.');
        reject(invalidForm(errors));
      }
      const flags = (typeof d.flags === 'number' ? d.flags : 0) | (state.forceEphemeral ? MessageFlag.Ephemeral : 0);
      message = createMessage({
        channelId: state.channelId,
        guildId: state.guildId,
        author: this.botUser,
        body: type === 4 ? d : {},
        flags: type === 5 ? (flags & MessageFlag.Ephemeral) | MessageFlag.Loading : flags,
        attachments,
        files,
        interactionId: state.id,
        webhookId: this.applicationId,
      });
      this.keep(message);
      state.original = message;
    } else if (type === 7) {
      const d = data ?? {};
      const errors = validateMessageBody(d, { mode: 'edit', interaction: true });
      if (!errors.empty) reject(invalidForm(prefixErrors(errors, 'data')));
      if (state.original) this.keep(editMessage(state.original, d));
      message = state.original;
    } else if (type === 6) {
      message = state.original;
    } else if (type === 8) {
      const errors = validateAutocompleteChoices(data ?? {});
      if (!errors.empty) reject(invalidForm(prefixErrors(errors, 'data')));
      state.choices = ((data?.choices ?? []) as { name: string; value: string | number }[]).map((c) => ({ name: c.name, value: c.value }));
    }
    attempt.status = query.get('with_response') === 'true' ? 200 : 204;
    state.acknowledged = attempt;
    if (attempt.status === 204) return { status: 204 };
    return {
      status: 200,
      body: {
        interaction: {
          id: state.id,
          type: state.type,
          ...(message
            ? {
                response_message_id: message.id,
                response_message_loading: (message.flags & MessageFlag.Loading) !== 0,
                response_message_ephemeral: (message.flags & MessageFlag.Ephemeral) !== 0,
              }
            : {}),
        },
        ...(message && (type === 4 || type === 5 || type === 7) ? { resource: { type, message: serializeMessage(message, this.applicationId) } } : {}),
      },
    };
  }

  private interactionFor(params: Record<string, string>): InteractionState {
    if (params.webhook_id !== this.applicationId) throw unknown(10015, 'Webhook');
    const state = this.interactionsByToken.get(params.webhook_token ?? '');
    if (!state || Date.now() - state.sentAt > this.options.interactionTokenTtlMs) throw new ApiError(401, 50027, 'Invalid Webhook Token');
    return state;
  }

  private originalOf(state: InteractionState): StoredMessage {
    if (!state.acknowledged || !state.original || state.original.deletedAt !== null) throw unknown(10008, 'Message');
    return state.original;
  }

  private webhookMessage(params: Record<string, string>): StoredMessage {
    const state = this.interactionFor(params);
    const id = params.message_id;
    const message = state.original?.id === id && state.acknowledged ? state.original : state.followUps.find((m) => m.id === id);
    if (!message || message.deletedAt !== null) throw unknown(10008, 'Message');
    return message;
  }

  private serializeWebhookMessage(message: StoredMessage): Json {
    return serializeMessage(message, this.applicationId);
  }

  private editWebhookMessage(message: StoredMessage, body: Json, attachments: Json[], files: StoredFile[]): Json {
    this.checkMessage(body, 'edit', true);
    this.keep(editMessage(message, body));
    if (attachments.length > 0) {
      message.attachments = attachments;
      message.files = files;
    } else if (Array.isArray(body.attachments) && body.attachments.length === 0) {
      message.attachments = [];
      message.files = [];
    }
    return serializeMessage(message, this.applicationId);
  }

  private deleteWebhookMessage(message: StoredMessage): RouteResult {
    message.deletedAt = Date.now();
    return { status: 204 };
  }

  private followUp(params: Record<string, string>, body: Json, query: URLSearchParams, attachments: Json[], files: StoredFile[]): RouteResult {
    const state = this.interactionFor(params);
    if (!state.acknowledged) throw unknown(10015, 'Webhook');
    this.checkMessage(body, 'create', true, attachments);
    if (state.userInstallOnly && state.followUps.length >= USER_INSTALL_FOLLOW_UPS) {
      throw new ApiError(400, 40094, 'This interaction has hit the maximum number of follow up messages');
    }
    const message = createMessage({
      channelId: state.channelId,
      guildId: state.guildId,
      author: this.botUser,
      body,
      interactionId: state.id,
      webhookId: this.applicationId,
      attachments,
      files,
      ...(state.forceEphemeral ? { flags: (typeof body.flags === 'number' ? body.flags : 0) | MessageFlag.Ephemeral } : {}),
    });
    this.keep(message);
    state.followUps.push(message);
    return query.get('wait') === 'false' ? { status: 204 } : { status: 200, body: serializeMessage(message, this.applicationId) };
  }
}

function positive(value: number | undefined, name: string): number | undefined {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) throw new Error(`${name} must be a whole number of at least 1, got ${value}`);
  return value;
}

/** Ids given by tests must look like snowflakes: Discord's clients do arithmetic on them. */
function checkId(id: string | undefined, what: string): string | undefined {
  if (id !== undefined && !/^\d{1,20}$/.test(id)) throw new Error(`${what} id ${JSON.stringify(id)} is not a snowflake (digits only)`);
  return id;
}

function throwUnknownCommand(): never {
  throw unknown(10063, 'application command');
}

function staticScore(segments: string[]): number {
  return segments.reduce((n, s, i) => n + (s.startsWith(':') ? 0 : 2 ** (segments.length - i)), 0);
}

function mergeErrors(into: FormErrors, from: FormErrors): void {
  const walk = (node: unknown, path: string[]): void => {
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '_errors' && Array.isArray(value)) for (const e of value as { code: string; message: string }[]) into.add(path, e.code, e.message);
      else walk(value, [...path, key]);
    }
  };
  walk(from.tree, []);
}

function prefixErrors(errors: FormErrors, key: string): FormErrors {
  const out = new FormErrors();
  const walk = (node: unknown, path: string[]): void => {
    if (typeof node !== 'object' || node === null) return;
    for (const [k, value] of Object.entries(node)) {
      if (k === '_errors' && Array.isArray(value)) for (const e of value as { code: string; message: string }[]) out.add([key, ...path], e.code, e.message);
      else walk(value, [...path, k]);
    }
  };
  walk(errors.tree, []);
  return out;
}

function findButton(components: Json[], customId: string): Json | undefined {
  for (const row of components) {
    const children = Array.isArray(row.components) ? (row.components as Json[]) : [];
    for (const c of [row, ...children]) if (c.custom_id === customId) return c;
  }
  return undefined;
}

function defaultFaultMessage(status: number, code: number): string {
  if (code === 50001) return 'Missing Access';
  if (code === 50013) return 'Missing Permissions';
  if (code === 10003) return 'Unknown Channel';
  if (code === 10008) return 'Unknown Message';
  if (status === 500) return '500: Internal Server Error';
  if (status === 502) return '502: Bad Gateway';
  if (status === 503) return '503: Service Unavailable';
  return `${status}: Error`;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** JSON bodies, or multipart with `payload_json` plus files (what discord.js sends with attachments). */
async function parseBody(raw: Buffer, contentType: string | undefined): Promise<{ body: unknown; attachments: Json[]; files: StoredFile[] }> {
  if (raw.length === 0) return { body: null, attachments: [], files: [] };
  if (contentType?.startsWith('multipart/form-data')) {
    const form = await new Request('http://localhost/', { method: 'POST', headers: { 'content-type': contentType }, body: raw }).formData();
    let body: unknown = {};
    const attachments: Json[] = [];
    const files: StoredFile[] = [];
    for (const [name, value] of form.entries()) {
      if (name === 'payload_json' && typeof value === 'string') body = JSON.parse(value);
      else if (typeof value !== 'string') {
        attachments.push({ id: snowflake(), filename: value.name, size: value.size, content_type: value.type, url: `https://cdn.invalid/${value.name}` });
        files.push({ filename: value.name, contentType: value.type, data: Buffer.from(await value.arrayBuffer()) });
      }
    }
    return { body, attachments, files };
  }
  return { body: JSON.parse(raw.toString('utf8')) as unknown, attachments: [], files: [] };
}
