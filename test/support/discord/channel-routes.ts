/**
 * Guilds, channels and DMs as the bot sees them: reads answer from the world, and a channel is reachable only with
 * the permissions the bot's roles and overwrites give it there (50001 Missing Access, 50013 Missing Permissions).
 */
import { PermissionFlagsBits } from 'discord.js';
import { ApiError, unknown } from './api-error.ts';
import { serializeChannel, serializeGuild, serializeMember, serializeRole, serializeUser, type Channel, type Guild } from './model.ts';
import { ok, type RouteTable } from './route-table.ts';
import type { World } from './world.ts';

type Json = Record<string, unknown>;

export function defineChannelRoutes(table: RouteTable, world: World): void {
  const guildFor = (params: Record<string, string>): Guild => {
    const guild = world.guilds.get(params.guild_id ?? '');
    if (!guild) throw unknown(10004, 'Guild');
    if (world.unavailable.has(guild.id)) throw new ApiError(503, 0, '503: Service Unavailable');
    return guild;
  };
  table.on('GET', '/guilds/:guild_id', ({ params, query }) => {
    const guild = guildFor(params);
    return ok({
      ...serializeGuild(guild),
      ...(query.get('with_counts') === 'true' ? { approximate_member_count: guild.members.size, approximate_presence_count: 0 } : {}),
    });
  });
  table.on('GET', '/guilds/:guild_id/channels', ({ params }) => ok([...guildFor(params).channels.values()].map((c) => serializeChannel(c))));
  table.on('GET', '/guilds/:guild_id/roles', ({ params }) => ok([...guildFor(params).roles.values()].map(serializeRole)));
  table.on('GET', '/guilds/:guild_id/members/:user_id', ({ params }) => {
    const member = guildFor(params).members.get(params.user_id ?? '');
    if (!member) throw unknown(10007, 'Member');
    return ok(serializeMember(member));
  });

  table.on('GET', '/channels/:channel_id', ({ params }) => ok(dmChannel(world, params.channel_id ?? '') ?? serializeChannel(channelFor(world, params))));
  table.on('POST', '/users/@me/channels', ({ body }) => {
    const recipient = typeof body.recipient_id === 'string' ? world.users.get(body.recipient_id) : undefined;
    if (!recipient) throw unknown(10013, 'User');
    return ok(dmChannel(world, world.dmChannelOf(recipient.id)));
  });
}

/** A guild channel the bot may act in with `need`, or the Discord error it would get. */
export function channelFor(world: World, params: Record<string, string>, need: bigint = PermissionFlagsBits.ViewChannel): Channel {
  const channel = world.channels.get(params.channel_id ?? '');
  // A bot is never in a group DM or another users' DM.
  if (!channel && world.privateChannels.has(params.channel_id ?? '')) throw new ApiError(403, 50001, 'Missing Access');
  if (!channel) throw unknown(10003, 'Channel');
  if (world.unavailable.has(channel.guildId)) throw new ApiError(503, 0, '503: Service Unavailable');
  const perms = world.botPermissions(channel.id);
  if ((perms & PermissionFlagsBits.ViewChannel) === 0n) throw new ApiError(403, 50001, 'Missing Access');
  if ((perms & need) !== need) throw new ApiError(403, 50013, 'Missing Permissions');
  return channel;
}

/** The bot's DM channel with that id as Discord serializes it, if it is one. */
export function dmChannel(world: World, id: string): Json | undefined {
  const userId = world.dmChannels.get(id);
  const user = userId ? world.users.get(userId) : undefined;
  return user ? { id, type: 1, last_message_id: null, flags: 0, recipients: [serializeUser(user)] } : undefined;
}
