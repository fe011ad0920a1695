/**
 * Dispatching an interaction: the INTERACTION_CREATE payload Discord sends for a guild channel, the bot's DM or a
 * private channel (member or user, channel, app_permissions, context, authorizing owners), kept as InteractionState
 * for the callback and webhook routes.
 */
import { PermissionFlagsBits } from 'discord.js';
import type { Place } from './interaction-places.ts';
import { handleFor, type InteractionState } from './interaction-state.ts';
import { serializeMessage, type StoredMessage } from './messages.ts';
import { channelPermissions, serializeChannel, serializeMember, serializeUser, toBits, type Member, type User } from './model.ts';
import type { InteractionHandle, InteractionTarget } from './public-types.ts';
import { snowflake } from './snowflake.ts';
import type { World } from './world.ts';

type Json = Record<string, unknown>;

/** What Discord reports as the app's permissions in group DMs and DMs between users. */
const PRIVATE_APP_PERMISSIONS: bigint = PermissionFlagsBits.AttachFiles | PermissionFlagsBits.EmbedLinks | PermissionFlagsBits.MentionEveryone;

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

export function dispatchInteraction(
  world: World,
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
    application_id: world.applicationId,
    type,
    data,
    token,
    version: 1,
    locale: spec.locale ?? 'en-US',
    entitlements: [],
    attachment_size_limit: 10 * 1024 * 1024,
    authorizing_integration_owners: owners,
    ...(message ? { message: serializeMessage(message, world.applicationId) } : {}),
  };
  let payload: Json;
  let guildId: string | null;
  let channelId: string;
  let user: User;
  let forceEphemeral = false;
  if (place.kind === 'guild') {
    const { guild, channel, member } = place;
    const bot = guild.members.get(world.botUser.id);
    const memberPermissions = spec.memberPermissions !== undefined ? toBits(spec.memberPermissions, 0n) : channelPermissions(guild, member, channel);
    // A user-installed app in a server it is not in acts with what @everyone may do in the channel.
    const everyone: Member = { user: world.botUser, roles: [], nick: null, joinedAt: guild.joinedAt };
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
  world.interactions.set(id, state);
  world.interactionsByToken.set(token, state);
  // Interactions from servers without the bot go to the shard their guild id maps to, like any guild's.
  state.dispatch = world.gateway.dispatch('INTERACTION_CREATE', payload, guildId ?? undefined);
  return handleFor(world.changes, state);
}
