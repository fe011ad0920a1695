/**
 * Channel messages and what hangs off them: post (nonce dedupe, the per-channel bucket), read and page, edit,
 * delete, start a thread from a message, crosspost from an announcement channel.
 */
import { PermissionFlagsBits } from 'discord.js';
import { ApiError, invalidForm, unknown } from './api-error.ts';
import { channelFor, dmChannel } from './channel-routes.ts';
import { createMessage, editMessage, messageEvent, MessageFlag, serializeMessage, viewMessage, type StoredMessage } from './messages.ts';
import { ChannelKind, serializeMember, type Channel } from './model.ts';
import { bucketHash, CROSSPOST_RULE } from './ratelimit.ts';
import { noContent, ok, type RouteTable } from './route-table.ts';
import { FormErrors, isEmptyMessage, validateMessageBody } from './validation.ts';
import type { World } from './world.ts';

type Json = Record<string, unknown>;

const TEXT_TYPES = new Set<number>([0, 1, 2, 5, 10, 11, 12, 13]);

export function defineMessageRoutes(table: RouteTable, world: World): void {
  const messageIn = (channel: Channel, id: string | undefined): StoredMessage => {
    const m = world.messages.get(id ?? '');
    if (!m || m.channelId !== channel.id || m.deletedAt !== null || (m.flags & MessageFlag.Ephemeral) !== 0) throw unknown(10008, 'Message');
    return m;
  };
  table.on(
    'POST',
    '/channels/:channel_id/messages',
    ({ params, body: sent, attachments, files }) => {
      let body = sent;
      const dm = dmChannel(world, params.channel_id ?? '');
      if (dm) world.checkCanDm(world.dmChannels.get(String(dm.id)) ?? '');
      const channel = dm
        ? { id: String(dm.id), guildId: null }
        : channelFor(world, params, PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages);
      if ('type' in channel && !TEXT_TYPES.has(channel.type)) throw new ApiError(400, 50008, 'Cannot send messages in a non-text channel');
      checkMessage(body, 'create', false);
      body = withoutForbiddenEmbeds(world, dm ? null : channel.id, body);
      if (attachments.length === 0 && isEmptyMessage(body)) throw new ApiError(400, 50006, 'Cannot send an empty message');
      const nonceKey = body.enforce_nonce === true && body.nonce !== undefined && body.nonce !== null ? `${channel.id}:${String(body.nonce)}` : null;
      if (nonceKey) {
        const seen = world.nonces.get(nonceKey);
        const first = seen ? world.messages.get(seen.messageId) : undefined;
        if (seen && first && Date.now() - seen.at < world.options.nonceWindowMs) return ok(serializeMessage(first, world.applicationId));
      }
      const message = createMessage({ channelId: channel.id, guildId: channel.guildId, author: world.botUser, body, attachments, files });
      world.keep(message);
      if (nonceKey) world.nonces.set(nonceKey, { messageId: message.id, at: Date.now() });
      world.onMessageCreated?.(viewMessage(message));
      const payload = serializeMessage(message, world.applicationId);
      const member = channel.guildId ? world.guilds.get(channel.guildId)?.members.get(world.botUser.id) : undefined;
      if (channel.guildId) {
        world.gateway.dispatch('MESSAGE_CREATE', { ...messageEvent(payload, channel.guildId), ...(member ? { member: serializeMember(member, false) } : {}) }, channel.guildId, 1 << 9);
      }
      else world.gateway.dispatch('MESSAGE_CREATE', payload, undefined, 1 << 12);
      return ok(payload);
    },
    {
      bucket: (params) => ({ hash: bucketHash('POST /channels/:channel_id/messages'), major: params.channel_id ?? '', rule: world.options.perChannelMessages }),
    },
  );
  table.on('POST', '/channels/:channel_id/messages/:message_id/threads', ({ params, body }) => {
    const channel = channelFor(world, params, PermissionFlagsBits.ViewChannel | PermissionFlagsBits.CreatePublicThreads);
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
    if (world.threads.has(message.id)) throw new ApiError(400, 160004, 'A thread has already been created for this message');
    const now = new Date().toISOString();
    // A thread started from a message takes the message's id.
    const thread: Json = {
      id: message.id,
      type: channel.type === ChannelKind.GuildAnnouncement ? 10 : 11,
      guild_id: channel.guildId,
      parent_id: channel.id,
      owner_id: world.botUser.id,
      name: String(body.name),
      last_message_id: null,
      rate_limit_per_user: 0,
      message_count: 0,
      member_count: 1,
      total_message_sent: 0,
      flags: 0,
      thread_metadata: { archived: false, auto_archive_duration: Number(archive ?? 4320), archive_timestamp: now, locked: false, create_timestamp: now },
    };
    world.threads.set(message.id, thread);
    // Discord marks the message: it carries the thread and the HAS_THREAD flag from now on, and says so in an update.
    message.thread = thread;
    message.flags |= MessageFlag.HasThread;
    world.changes.notify();
    world.gateway.dispatch('THREAD_CREATE', { ...thread, newly_created: true }, channel.guildId, 1);
    world.gateway.dispatch('MESSAGE_UPDATE', messageEvent(serializeMessage(message, world.applicationId), channel.guildId), channel.guildId, 1 << 9);
    return ok(thread, 201);
  });
  table.on(
    'POST',
    '/channels/:channel_id/messages/:message_id/crosspost',
    ({ params }) => {
      const channel = channelFor(world, params, PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages);
      if (channel.type !== ChannelKind.GuildAnnouncement) throw new ApiError(400, 50024, 'Cannot execute action on this channel type');
      const message = messageIn(channel, params.message_id);
      if (message.author.id !== world.botUser.id && (world.botPermissions(channel.id) & PermissionFlagsBits.ManageMessages) === 0n) {
        throw new ApiError(403, 50013, 'Missing Permissions');
      }
      if ((message.flags & MessageFlag.Crossposted) !== 0) throw new ApiError(400, 40033, 'This message has already been crossposted.');
      message.flags |= MessageFlag.Crossposted;
      const payload = serializeMessage(message, world.applicationId);
      world.changes.notify();
      world.gateway.dispatch('MESSAGE_UPDATE', messageEvent(payload, channel.guildId), channel.guildId, 1 << 9);
      return ok(payload);
    },
    // Discord lets a channel publish 10 messages an hour.
    { bucket: (params) => ({ hash: bucketHash('POST /channels/:channel_id/messages/:message_id/crosspost'), major: params.channel_id ?? '', rule: CROSSPOST_RULE }) },
  );
  table.on('GET', '/channels/:channel_id/messages', ({ params, query }) => {
    const dm = dmChannel(world, params.channel_id ?? '');
    const channel = dm ? { id: String(dm.id) } : channelFor(world, params, PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory);
    return ok(pageOfMessages(world, channel.id, query).map((m) => serializeMessage(m, world.applicationId, { withNonce: false })));
  });
  table.on('GET', '/channels/:channel_id/messages/:message_id', ({ params }) => {
    const channel = channelFor(world, params, PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory);
    return ok(serializeMessage(messageIn(channel, params.message_id), world.applicationId));
  });
  table.on('PATCH', '/channels/:channel_id/messages/:message_id', ({ params, body: sent }) => {
    let body = sent;
    const channel = channelFor(world, params);
    const message = messageIn(channel, params.message_id);
    if (message.author.id !== world.botUser.id) throw new ApiError(403, 50005, 'Cannot edit a message authored by another user');
    checkMessage(body, 'edit', false);
    body = withoutForbiddenEmbeds(world, channel.id, body);
    if (isEmptyMessage({ content: message.content, embeds: message.embeds, components: message.components, attachments: message.attachments, ...body })) {
      throw new ApiError(400, 50006, 'Cannot send an empty message');
    }
    editMessage(message, body);
    world.keep(message);
    const payload = serializeMessage(message, world.applicationId);
    world.gateway.dispatch('MESSAGE_UPDATE', messageEvent(payload, channel.guildId), channel.guildId, 1 << 9);
    return ok(payload);
  });
  table.on('DELETE', '/channels/:channel_id/messages/:message_id', ({ params }) => {
    const channel = channelFor(world, params);
    const message = messageIn(channel, params.message_id);
    if (message.author.id !== world.botUser.id && (world.botPermissions(channel.id) & PermissionFlagsBits.ManageMessages) === 0n) {
      throw new ApiError(403, 50013, 'Missing Permissions');
    }
    message.deletedAt = Date.now();
    world.gateway.dispatch('MESSAGE_DELETE', { id: message.id, channel_id: channel.id, guild_id: channel.guildId }, channel.guildId, 1 << 9);
    return noContent;
  });}

export function pageOfMessages(world: World, channelId: string, query: URLSearchParams): StoredMessage[] {
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
  const oldestFirst = (world.messagesByChannel.get(channelId) ?? []).filter((m) => m.deletedAt === null && (m.flags & MessageFlag.Ephemeral) === 0);
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


/**
 * A channel message's embeds when the bot lacks Embed Links there: Discord takes the message and drops its embeds,
 * and a message left with nothing else is empty (50006). Seen on Discord: discord/discord-api-docs#5648 (2022, an
 * embed added without Embed Links "ignored", the message then "empty"); discord/discord-api-docs#2601 (2021: a 403
 * for an embed-only message then). Interaction responses and follow-ups are not held to it (discordjs/discord.js#7544).
 */
export function withoutForbiddenEmbeds(world: World, channelId: string | null, body: Json): Json {
  if (channelId === null || !Array.isArray(body.embeds) || body.embeds.length === 0) return body;
  if ((world.botPermissions(channelId) & PermissionFlagsBits.EmbedLinks) !== 0n) return body;
  return { ...body, embeds: [] };
}

export function checkMessage(body: Json, mode: 'create' | 'edit', interaction: boolean, attachments: Json[] = []): void {
  const errors = validateMessageBody(body, { mode, interaction });
  if (!errors.empty) throw invalidForm(errors);
  if (mode === 'create' && attachments.length === 0 && isEmptyMessage(body)) throw new ApiError(400, 50006, 'Cannot send an empty message');
}
