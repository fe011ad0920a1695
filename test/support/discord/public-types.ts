/** The harness's public types: options, what it records, faults, the world's handles and interaction handles. */
import type { OptionValues } from './commands.ts';
import type { ShardState } from './gateway.ts';
import type { MessageView } from './messages.ts';
import type { BucketRule } from './ratelimit.ts';

type Json = Record<string, unknown>;

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
  /**
   * How long an idle HTTP connection stays open (default 5000 ms). Discord's API, behind Cloudflare, keeps an idle
   * HTTP/1.1 connection 400 s; a benchmark that pauses between phases passes that, so the bot's connections are not
   * all new at once when the next phase starts.
   */
  keepAliveTimeoutMs?: number;
  /**
   * Check every request, answer and dispatch against discord-api-spec (spec-check.ts; default true). Only benchmarks
   * turn it off: tests keep it, since process-setup.ts fails a test on any violation, and nothing reads it elsewhere.
   */
  specCheck?: boolean;
  /**
   * Serve REST (`apiUrl`) through a front door (front-door.ts): a child process that accepts connections at once and
   * relays each over one of this many connections to the harness opened in advance (1 to 10,000; default none, the
   * harness listens itself). For benchmarks whose harness is so busy that, accepting one connection per event-loop
   * turn, it would take a burst of new connections seconds late. The gateway stays on the harness's own port.
   */
  frontDoorSpares?: number;
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
  /**
   * For a 429: global (every route, X-RateLimit-Global, X-RateLimit-Scope: global) or this route's, and when to retry.
   * A route's limit is the bot's own bucket (scope 'user', the default) or a resource shared with everyone ('shared':
   * "The resource is being rate limited.", not counted toward the invalid-request limit).
   */
  rateLimit?: { global: boolean; retryAfterMs: number; scope?: 'user' | 'shared' };
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
  /** Each channel, with a forum's available tags (empty for other channels). */
  channels: { id: string; name: string; type: number; tags: { id: string; name: string }[] }[];
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

export interface InteractionTarget {
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

export interface SubmitModalSpec extends InteractionTarget {
  /** The interaction the bot answered with the form (callback type 9). */
  interactionId: string;
  /** What the member typed, by text input custom_id; an input left out is submitted empty. */
  values: Record<string, string>;
  /**
   * Submit values Discord's client would not let through (over the input's max_length, or a required one empty),
   * as a modified client could: the bot must check them itself.
   */
  forged?: boolean;
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
  /** 401, 403 and 429 answers (but shared-scope 429s): what Discord counts toward its invalid-request ban (10,000 per 10 minutes). */
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
  /** The form (modal) sent with callback type 9, as the bot sent it. */
  readonly modal: Record<string, unknown> | undefined;
  /** Autocomplete choices sent with callback type 8. */
  readonly choices: { name: string; value: string | number }[] | undefined;
  waitForCallback(timeoutMs?: number): Promise<RecordedCallback>;
  /**
   * The first version of the original response that is not "thinking": an immediate reply, an update, or the edit of
   * a deferral. `signal` stops the wait (it rejects with the signal's reason), e.g. once a raced follow-up came.
   */
  waitForResponse(timeoutMs?: number, signal?: AbortSignal): Promise<MessageView>;
  /** Waits until the original message satisfies `predicate` (e.g. a second edit). */
  waitForOriginal(predicate: (message: MessageView) => boolean, timeoutMs?: number): Promise<MessageView>;
  waitForFollowUp(index?: number, timeoutMs?: number, signal?: AbortSignal): Promise<MessageView>;
}
