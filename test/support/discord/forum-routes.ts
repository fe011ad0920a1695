/**
 * Forum posts, the server's active threads, and pins: create a post in a forum or media channel (a thread whose
 * starter message has the thread's id), list the active threads of a server, pin and unpin a message. Permissions as
 * Discord checks them: Send Messages to post in a forum, Pin Messages to pin (50013 Missing Permissions without). A
 * media channel takes the same post as a forum: Discord documents one endpoint and one message for both, whose
 * starter message needs content, embeds, stickers, components or files (any one), no attachment. A channel holds at
 * most 50 pins (30003).
 */
import { PermissionFlagsBits } from 'discord.js';
import { ApiError, invalidForm, unknown } from './api-error.ts';
import { channelFor } from './channel-routes.ts';
import { checkMessage, withoutForbiddenEmbeds } from './message-routes.ts';
import { createMessage, MessageFlag, type StoredMessage } from './messages.ts';
import { ChannelKind, isThreadOnly, REQUIRE_TAG, type Channel } from './model.ts';
import { noContent, ok, type RouteTable } from './route-table.ts';
import { FormErrors } from './validation.ts';
import type { World } from './world.ts';

type Json = Record<string, unknown>;

const ARCHIVE_MINUTES = [60, 1440, 4320, 10080];
/** Discord's pins per channel (30003 past it). */
export const MAX_PINS = 50;

export function defineForumRoutes(table: RouteTable, world: World): void {
  table.on('POST', '/channels/:channel_id/threads', ({ params, body }) => {
    const forum = channelFor(world, params, PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages);
    // A thread without a message in a text channel is not modelled: only forum and media posts are.
    if (!isThreadOnly(forum)) throw new ApiError(400, 50024, 'Cannot execute action on this channel type');
    const errors = new FormErrors();
    if (typeof body.name !== 'string' || body.name.trim().length < 1 || body.name.length > 100) {
      errors.add(['name'], 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
    }
    const archive = body.auto_archive_duration;
    if (archive !== undefined && archive !== null && !ARCHIVE_MINUTES.includes(Number(archive))) {
      errors.add(['auto_archive_duration'], 'BASE_TYPE_CHOICES', 'Value must be one of {60, 1440, 4320, 10080}.');
    }
    const tags = Array.isArray(body.applied_tags) ? body.applied_tags.map(String) : [];
    tags.forEach((tag, i) => {
      if (!forum.availableTags.some((known) => known.id === tag)) errors.add(['applied_tags', String(i)], 'BASE_TYPE_CHOICES', 'Value must be one of the channel\'s tags.');
    });
    if (typeof body.message !== 'object' || body.message === null) errors.add(['message'], 'BASE_TYPE_REQUIRED', 'This field is required');
    if (!errors.empty) throw invalidForm(errors);
    checkMessage(body.message as Json, 'create', false);
    if ((forum.flags & REQUIRE_TAG) !== 0 && tags.length === 0) throw new ApiError(400, 40067, 'A tag is required to create a forum post in this channel');
    const sent = withoutForbiddenEmbeds(world, forum.id, body.message as Json);
    const starter = createMessage({ channelId: '', guildId: forum.guildId, author: world.botUser, body: sent });
    if (starter.content === '' && starter.embeds.length === 0 && starter.components.length === 0) throw new ApiError(400, 50006, 'Cannot send an empty message');
    // A forum post's thread takes its starter message's id, and the forum's permissions.
    starter.channelId = starter.id;
    const now = new Date().toISOString();
    const thread: Json = {
      id: starter.id,
      type: ChannelKind.PublicThread,
      guild_id: forum.guildId,
      parent_id: forum.id,
      owner_id: world.botUser.id,
      name: String(body.name),
      last_message_id: starter.id,
      rate_limit_per_user: 0,
      message_count: 0,
      member_count: 1,
      total_message_sent: 0,
      flags: 0,
      applied_tags: tags,
      thread_metadata: { archived: false, auto_archive_duration: Number(archive ?? 4320), archive_timestamp: now, locked: false, create_timestamp: now },
    };
    const channel: Channel = { ...forum, id: starter.id, name: String(body.name), type: ChannelKind.PublicThread, parentId: forum.id, flags: 0, availableTags: [] };
    world.channels.set(channel.id, channel);
    world.threads.set(starter.id, thread);
    world.keep(starter);
    world.changes.notify();
    world.gateway.dispatch('THREAD_CREATE', { ...thread, newly_created: true }, forum.guildId, 1);
    return ok(thread, 201);
  });

  table.on('GET', '/guilds/:guild_id/threads/active', ({ params }) => {
    const guild = world.guilds.get(params.guild_id ?? '');
    if (!guild) throw unknown(10004, 'Guild');
    const visible = (thread: Json): boolean => {
      const parent = world.channels.get(String(thread.parent_id));
      return parent !== undefined && (world.botPermissions(parent.id) & PermissionFlagsBits.ViewChannel) !== 0n;
    };
    const threads = [...world.threads.values()].filter(
      (thread) => thread.guild_id === guild.id && (thread.thread_metadata as { archived?: boolean }).archived !== true && visible(thread),
    );
    return ok({ threads: threads.map((thread) => structuredClone(thread)), members: [], has_more: false });
  });

  const pinnable = (params: Record<string, string>): StoredMessage => {
    const channel = channelFor(world, params, PermissionFlagsBits.ViewChannel | PermissionFlagsBits.PinMessages);
    const message = world.messages.get(params.message_id ?? '');
    if (!message || message.channelId !== channel.id || message.deletedAt !== null || (message.flags & MessageFlag.Ephemeral) !== 0) throw unknown(10008, 'Message');
    return message;
  };
  table.on('PUT', '/channels/:channel_id/messages/pins/:message_id', ({ params }) => {
    const message = pinnable(params);
    if (!message.pinned) {
      const pinned = (world.messagesByChannel.get(message.channelId) ?? []).filter((m) => m.pinned && m.deletedAt === null).length;
      if (pinned >= MAX_PINS) throw new ApiError(400, 30003, `Maximum number of pins reached for the channel (${MAX_PINS})`);
    }
    message.pinned = true;
    world.changes.notify();
    return noContent;
  });
  table.on('DELETE', '/channels/:channel_id/messages/pins/:message_id', ({ params }) => {
    pinnable(params).pinned = false;
    world.changes.notify();
    return noContent;
  });
}
