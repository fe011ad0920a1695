import { serializeUser, type User } from './model.ts';
import { snowflake } from './snowflake.ts';

/** Messages the fake Discord holds: channel posts, interaction responses and follow-ups. */

export const MessageFlag = { Crossposted: 1, SuppressEmbeds: 4, HasThread: 32, Ephemeral: 64, Loading: 128, SuppressNotifications: 4096 } as const;

type Json = Record<string, unknown>;

/** Who a message actually notifies: what its content mentions, filtered by allowed_mentions and permissions. */
export interface Pings {
  everyone: boolean;
  roles: string[];
  users: string[];
}

/** An uploaded file's bytes (the harness keeps them so tests can read what a member would download). */
export interface StoredFile {
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface StoredMessage {
  id: string;
  channelId: string;
  guildId: string | null;
  author: User;
  content: string;
  embeds: Json[];
  components: Json[];
  attachments: Json[];
  files: StoredFile[];
  flags: number;
  allowedMentions: Json | null;
  nonce: string | number | null;
  createdAt: number;
  editedAt: number | null;
  deletedAt: number | null;
  /** Set for interaction responses and follow-ups. */
  interactionId: string | null;
  webhookId: string | null;
  /** Every version of the message: creation body and each edit body, in order. */
  revisions: { at: number; body: Json }[];
  pings: Pings;
  /** The users the message mentions (pings.users as user objects), for its `mentions`. */
  mentionedUsers: User[];
  /** The thread started from this message (its channel object), once there is one. */
  thread: Json | null;
  /** Pinned in its channel (PUT /channels/:id/messages/pins/:id). */
  pinned: boolean;
}

/** A read-only snapshot for tests. */
export interface MessageView {
  id: string;
  channelId: string;
  guildId: string | null;
  authorId: string;
  content: string;
  embeds: Json[];
  components: Json[];
  /** Attached files with their content as text (UTF-8). */
  files: { filename: string; contentType: string; size: number; text: string }[];
  flags: number;
  ephemeral: boolean;
  /** A deferred response still "thinking". */
  loading: boolean;
  allowedMentions: Json | null;
  nonce: string | number | null;
  createdAt: number;
  editedAt: number | null;
  deleted: boolean;
  interactionId: string | null;
  revisions: { at: number; body: Json }[];
  /** Who was notified (the latest version's mentions, as Discord resolves them). */
  pings: Pings;
  /** The id of the thread started from the message, if one was. */
  threadId: string | null;
  pinned: boolean;
}

export function viewMessage(m: StoredMessage): MessageView {
  return {
    id: m.id,
    channelId: m.channelId,
    guildId: m.guildId,
    authorId: m.author.id,
    content: m.content,
    embeds: structuredClone(m.embeds),
    components: structuredClone(m.components),
    files: m.files.map((f) => ({ filename: f.filename, contentType: f.contentType, size: f.data.length, text: f.data.toString('utf8') })),
    flags: m.flags,
    ephemeral: (m.flags & MessageFlag.Ephemeral) !== 0,
    loading: (m.flags & MessageFlag.Loading) !== 0,
    allowedMentions: m.allowedMentions ? structuredClone(m.allowedMentions) : null,
    nonce: m.nonce,
    createdAt: m.createdAt,
    editedAt: m.editedAt,
    deleted: m.deletedAt !== null,
    interactionId: m.interactionId,
    revisions: structuredClone(m.revisions),
    pings: structuredClone(m.pings),
    threadId: typeof m.thread?.id === 'string' ? m.thread.id : null,
    pinned: m.pinned,
  };
}

function arrayOf(value: unknown): Json[] {
  return Array.isArray(value) ? (structuredClone(value) as Json[]) : [];
}

export function createMessage(input: {
  channelId: string;
  guildId: string | null;
  author: User;
  body: Json;
  flags?: number;
  interactionId?: string;
  webhookId?: string;
  attachments?: Json[];
  files?: StoredFile[];
}): StoredMessage {
  const now = Date.now();
  const body = input.body;
  return {
    id: snowflake(now),
    channelId: input.channelId,
    guildId: input.guildId,
    author: input.author,
    content: typeof body.content === 'string' ? body.content : '',
    embeds: arrayOf(body.embeds),
    components: arrayOf(body.components),
    attachments: input.attachments ?? [],
    files: input.files ?? [],
    flags: input.flags ?? (typeof body.flags === 'number' ? body.flags : 0),
    allowedMentions: typeof body.allowed_mentions === 'object' && body.allowed_mentions !== null ? (structuredClone(body.allowed_mentions) as Json) : null,
    nonce: typeof body.nonce === 'string' || typeof body.nonce === 'number' ? body.nonce : null,
    createdAt: now,
    editedAt: null,
    deletedAt: null,
    interactionId: input.interactionId ?? null,
    webhookId: input.webhookId ?? null,
    revisions: [{ at: now, body: structuredClone(body) }],
    pings: { everyone: false, roles: [], users: [] },
    mentionedUsers: [],
    thread: null,
    pinned: false,
  };
}

/** Applies an edit body the way Discord does: only the fields present change; flags keep EPHEMERAL. */
export function editMessage(m: StoredMessage, body: Json): StoredMessage {
  const now = Date.now();
  const wasLoading = (m.flags & MessageFlag.Loading) !== 0;
  if ('content' in body) m.content = typeof body.content === 'string' ? body.content : '';
  if ('embeds' in body) m.embeds = arrayOf(body.embeds);
  if ('components' in body) m.components = arrayOf(body.components);
  if ('allowed_mentions' in body) {
    m.allowedMentions = typeof body.allowed_mentions === 'object' && body.allowed_mentions !== null ? (structuredClone(body.allowed_mentions) as Json) : null;
  }
  let flags = m.flags & ~MessageFlag.Loading;
  if (typeof body.flags === 'number') {
    const kept = MessageFlag.Ephemeral | MessageFlag.Crossposted | MessageFlag.HasThread;
    flags = (flags & kept) | (body.flags & (MessageFlag.SuppressEmbeds | MessageFlag.SuppressNotifications));
  }
  m.flags = flags;
  if (!wasLoading) m.editedAt = now;
  m.revisions.push({ at: now, body: structuredClone(body) });
  return m;
}

/**
 * A message as REST answers it: without `guild_id`, which only the gateway's MESSAGE_CREATE and MESSAGE_UPDATE add
 * (messageEvent). The stored embeds and components are what the sender sent; here they take the fields Discord adds
 * (see wireEmbed, wireComponents). `withNonce: false` for messages read back later: Discord echoes a nonce only when
 * the message is created.
 */
export function serializeMessage(m: StoredMessage, applicationId: string, { withNonce = true }: { withNonce?: boolean } = {}): Json {
  return {
    id: m.id,
    type: m.interactionId ? 20 : 0,
    channel_id: m.channelId,
    author: serializeUser(m.author),
    content: m.content,
    timestamp: new Date(m.createdAt).toISOString(),
    edited_timestamp: m.editedAt ? new Date(m.editedAt).toISOString() : null,
    tts: false,
    mention_everyone: m.pings.everyone,
    mentions: m.mentionedUsers.map(serializeUser),
    mention_roles: [...m.pings.roles],
    attachments: m.attachments,
    embeds: m.embeds.map(wireEmbed),
    components: wireComponents(m.components),
    pinned: m.pinned,
    flags: m.flags,
    ...(withNonce && m.nonce !== null ? { nonce: m.nonce } : {}),
    ...(m.webhookId ? { webhook_id: m.webhookId, application_id: applicationId } : {}),
    ...(m.thread ? { thread: structuredClone(m.thread) } : {}),
  };
}

/** Top-level keys Discord leaves out of an answer when the sender gave them as null. */
function withoutNulls(value: Json): Json {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined));
}

/** An embed as Discord answers it: `type: "rich"` (all a bot can send) and fields with `inline`. */
export function wireEmbed(embed: Json): Json {
  const out: Json = { ...withoutNulls(embed), type: 'rich' };
  if (Array.isArray(embed.fields)) {
    out.fields = (embed.fields as Json[]).map((field) => ({ name: field.name, value: field.value, inline: field.inline === true }));
  }
  return out;
}

/** Select menus that choose among users, roles, mentionables or channels (5-8), and string selects (3). */
const SELECT_TYPES = new Set([3, 5, 6, 7, 8]);

/**
 * Components as Discord answers them: each carries an `id`, the sender's or one Discord assigns sequentially (depth
 * first, from 1, skipping ids the sender gave), and select menus their min_values/max_values defaults (1).
 */
export function wireComponents(components: Json[]): Json[] {
  const taken = new Set<number>();
  const collect = (list: Json[]): void => {
    for (const c of list) {
      if (typeof c.id === 'number' && c.id > 0) taken.add(c.id);
      if (Array.isArray(c.components)) collect(c.components as Json[]);
    }
  };
  collect(components);
  let next = 0;
  const nextId = (): number => {
    do next += 1;
    while (taken.has(next));
    return next;
  };
  const wire = (c: Json): Json => {
    const out: Json = { ...withoutNulls(c) };
    out.id = typeof c.id === 'number' && c.id > 0 ? c.id : nextId();
    if (SELECT_TYPES.has(Number(c.type))) {
      out.min_values = typeof c.min_values === 'number' ? c.min_values : 1;
      out.max_values = typeof c.max_values === 'number' ? c.max_values : 1;
    }
    if (Array.isArray(c.components)) out.components = (c.components as Json[]).map(wire);
    return out;
  };
  return components.map(wire);
}

/**
 * Discord's mention resolution: content mentions (`@everyone`/`@here`, `<@&role>`, `<@user>`) are kept when
 * allowed_mentions allows them (absent = everything), role pings need a mentionable role or Mention Everyone,
 * and @everyone needs Mention Everyone. Embeds never ping.
 */
export function resolvePings(
  content: string,
  allowedMentions: Json | null,
  can: { mentionEveryone: boolean; roleMentionable: (id: string) => boolean },
): Pings {
  const everyoneInContent = /@(everyone|here)/.test(content);
  const roleIds = [...content.matchAll(/<@&(\d+)>/g)].map((x) => x[1] as string);
  const userIds = [...content.matchAll(/<@!?(\d+)>/g)].map((x) => x[1] as string);
  const parse = allowedMentions ? (Array.isArray(allowedMentions.parse) ? (allowedMentions.parse as string[]) : []) : ['everyone', 'roles', 'users'];
  const listed = (key: 'roles' | 'users'): string[] => (allowedMentions && Array.isArray(allowedMentions[key]) ? (allowedMentions[key] as string[]) : []);
  const allowRole = (id: string): boolean => parse.includes('roles') || listed('roles').includes(id);
  const allowUser = (id: string): boolean => parse.includes('users') || listed('users').includes(id);
  return {
    everyone: everyoneInContent && parse.includes('everyone') && can.mentionEveryone,
    roles: [...new Set(roleIds)].filter((id) => allowRole(id) && (can.mentionEveryone || can.roleMentionable(id))),
    users: [...new Set(userIds)].filter(allowUser),
  };
}

/** A message as MESSAGE_CREATE and MESSAGE_UPDATE carry it: the REST object plus, in a server, its `guild_id`. */
export function messageEvent(payload: Json, guildId: string | null): Json {
  return guildId ? { ...payload, guild_id: guildId } : payload;
}
