/**
 * Where an interaction happens (a guild channel as a member, the bot's DM with a user, or a group DM or DM between
 * users), who is acting there, which installations authorize a command there, and how options resolve in it.
 */
import { channelPermissions, makeUser, serializeMember, serializeRole, serializeUser, type Channel, type Guild, type Member, type User } from './model.ts';
import type { InteractionTarget } from './public-types.ts';
import type { World } from './world.ts';

type Json = Record<string, unknown>;

export type Place =
  /** `installed`: the bot is a member of the guild; otherwise only a user install can be used there. */
  | { kind: 'guild'; guild: Guild; channel: Channel; member: Member; installed: boolean }
  | { kind: 'dm'; channelId: string; user: User }
  /** A group DM (type 3) or a DM between users (type 1): only user-installed commands, context 2. */
  | { kind: 'private'; channelId: string; type: 1 | 3; recipients: User[]; user: User };

export function resolvedChannel(world: World, channel: Channel, member: Member | undefined): Json {
  const guild = world.guilds.get(channel.guildId) ?? world.outsideGuilds.get(channel.guildId);
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

export function resolveContext(world: World, place: Place) {
  if (place.kind !== 'guild') {
    return {
      channel: () => undefined,
      channelType: () => undefined,
      role: () => undefined,
      user: (id: string) => {
        const user = world.users.get(id);
        return user ? { user: serializeUser(user) } : undefined;
      },
    };
  }
  const { guild, channel, member } = place;
  return {
    channel: (id: string) => {
      const c = guild.channels.get(id);
      return c ? resolvedChannel(world, c, member) : undefined;
    },
    channelType: (id: string) => guild.channels.get(id)?.type,
    role: (id: string) => {
      const r = guild.roles.get(id);
      return r ? serializeRole(r) : undefined;
    },
    user: (id: string) => {
      const user = world.users.get(id);
      if (!user) return undefined;
      const other = guild.members.get(id);
      return {
        user: serializeUser(user),
        ...(other ? { member: { ...serializeMember(other, false), permissions: channelPermissions(guild, other, channel).toString() } } : {}),
      };
    },
  };
}

export function userFor(world: World, spec: InteractionTarget): User {
  if (spec.user === undefined) return world.defaultUser;
  if (typeof spec.user === 'string') {
    const known = world.users.get(spec.user);
    if (!known) throw new Error(`unknown user ${spec.user}`);
    return known;
  }
  const user = (spec.user.id ? world.users.get(spec.user.id) : undefined) ?? makeUser(spec.user);
  world.users.set(user.id, user);
  return user;
}

export function placeFor(world: World, spec: InteractionTarget): Place {
  const dmUser = spec.channelId ? world.dmChannels.get(spec.channelId) : undefined;
  if (spec.dm || dmUser) {
    if (spec.guildId) throw new Error('a DM interaction has no guild');
    const user = dmUser ? (world.users.get(dmUser) ?? world.defaultUser) : userFor(world, spec);
    return { kind: 'dm', channelId: world.dmChannelOf(user.id), user };
  }
  if (!spec.channelId) throw new Error('an interaction needs a channelId (or dm: true)');
  const privateChannel = world.privateChannels.get(spec.channelId);
  if (privateChannel) {
    if (spec.guildId) throw new Error('a private channel has no guild');
    const user = userFor(world, spec.user === undefined ? { ...spec, user: privateChannel.recipients[0] } : spec);
    if (!privateChannel.recipients.includes(user.id)) throw new Error(`user ${user.id} is not in private channel ${privateChannel.id}`);
    const recipients = privateChannel.recipients.map((id) => world.users.get(id)).filter((u): u is User => u !== undefined);
    return { kind: 'private', channelId: privateChannel.id, type: privateChannel.type, recipients, user };
  }
  const channel = world.requireChannel(spec.channelId);
  if (spec.guildId !== undefined && spec.guildId !== channel.guildId) throw new Error(`channel ${channel.id} is not in guild ${spec.guildId}`);
  const guild = world.anyGuild(channel.guildId);
  return { kind: 'guild', guild, channel, member: world.memberFor(guild, spec.user), installed: world.guilds.has(guild.id) };
}

export function placeUser(place: Place): User {
  return place.kind === 'guild' ? place.member.user : place.user;
}

/**
 * authorizing_integration_owners for a command in a place, as Discord works them out: "0" (the guild's id, or "0"
 * in the bot's DM) when the command has the guild-install type and the app is installed there; "1" (the user's
 * id) when the command has the user-install type and the user installed the app. Empty: Discord would not offer it.
 */
export function ownersIn(world: World, types: number[], place: Place): Record<string, string> {
  const owners: Record<string, string> = {};
  if (types.includes(0)) {
    if (place.kind === 'guild' && place.installed) owners['0'] = place.guild.id;
    else if (place.kind === 'dm') owners['0'] = '0';
  }
  const user = placeUser(place);
  if (types.includes(1) && world.userInstalls.has(user.id)) owners['1'] = user.id;
  return owners;
}
