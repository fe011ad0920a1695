/**
 * Schemas for the gateway dispatches the local server sends. discord-api-spec describes the REST API only (OpenAPI
 * has no gateway), so each dispatch here is the REST object it carries, from the spec, plus the extra fields the
 * gateway documentation (discord.com/developers/docs/events/gateway-events) lists for it. The interaction in
 * INTERACTION_CREATE has no schema in the spec: its envelope is written from the documentation, and the objects in
 * it (member, user, channel, message, entitlements) are the spec's. Command `data` is checked only as an object.
 */
import * as z from 'zod/mini';
import { specSchemas as S, type Schema } from './spec-schemas.ts';

const snowflake = S.SnowflakeTypeSchema;
const timestamp = z.iso.datetime({ offset: true });

/** A member without its user, as MESSAGE_CREATE carries the author's (the docs: "partial guild member"). */
const partialMember = z.partial(z.omit(S.GuildMemberResponseSchema, { user: true }));

/** MESSAGE_CREATE and MESSAGE_UPDATE (the full message since API v10's message updates). */
const messageEvent = z.extend(S.MessageResponseSchema, { guild_id: z.optional(snowflake), member: z.optional(partialMember) });

const channelEvent = z.union([S.GuildChannelResponseSchema, S.ThreadResponseSchema]);

const ready = z.strictObject({
  v: z.literal(10),
  user: S.UserPIIResponseSchema,
  guilds: z.array(z.strictObject({ id: snowflake, unavailable: z.literal(true) })),
  session_id: z.string(),
  resume_gateway_url: z.string(),
  shard: z.optional(z.tuple([z.int(), z.int()])),
  application: z.strictObject({ id: snowflake, flags: z.int() }),
  // Undocumented, but what Discord sends a bot in READY too.
  session_type: z.optional(z.string()),
  private_channels: z.optional(z.array(z.unknown())),
  user_settings: z.optional(z.record(z.string(), z.unknown())),
  relationships: z.optional(z.array(z.unknown())),
  presences: z.optional(z.array(z.unknown())),
  geo_ordered_rtc_regions: z.optional(z.array(z.string())),
  guild_join_requests: z.optional(z.array(z.unknown())),
  _trace: z.optional(z.array(z.string())),
});

const guildCreate = z.extend(S.GuildResponseSchema, {
  // Not in the documentation's list; discord-api-types' GUILD_CREATE (its guild object) carries it.
  hub_type: z.optional(z.nullable(z.int())),
  joined_at: timestamp,
  large: z.boolean(),
  unavailable: z.optional(z.boolean()),
  member_count: z.int(),
  voice_states: z.array(z.partial(S.VoiceStateResponseSchema)),
  members: z.array(S.GuildMemberResponseSchema),
  // Channels in GUILD_CREATE come without guild_id.
  channels: z.array(z.omit(S.GuildChannelResponseSchema, { guild_id: true })),
  threads: z.array(S.ThreadResponseSchema),
  presences: z.array(z.record(z.string(), z.unknown())),
  stage_instances: z.array(S.StageInstanceResponseSchema),
  guild_scheduled_events: z.array(S.ScheduledEventResponseSchema),
  soundboard_sounds: z.array(S.SoundboardSoundResponseSchema),
});

const interaction = z.strictObject({
  id: snowflake,
  application_id: snowflake,
  type: S.InteractionTypesSchema,
  data: z.optional(z.record(z.string(), z.unknown())),
  guild: z.optional(z.strictObject({ id: snowflake, locale: z.string(), features: z.array(z.string()) })),
  guild_id: z.optional(snowflake),
  // The documentation's "partial channel": any of the channel's fields, none it does not have.
  channel: z.optional(
    z.union([z.partial(S.GuildChannelResponseSchema), z.partial(S.ThreadResponseSchema), z.partial(S.PrivateChannelResponseSchema), z.partial(S.PrivateGroupChannelResponseSchema)]),
  ),
  channel_id: z.optional(snowflake),
  member: z.optional(z.extend(S.GuildMemberResponseSchema, { permissions: z.string() })),
  user: z.optional(S.UserResponseSchema),
  token: z.string(),
  version: z.literal(1),
  message: z.optional(S.MessageResponseSchema),
  app_permissions: z.string(),
  locale: z.optional(z.string()),
  guild_locale: z.optional(z.string()),
  entitlements: z.array(S.EntitlementResponseSchema),
  authorizing_integration_owners: z.record(z.string(), snowflake),
  context: z.optional(S.InteractionContextTypeSchema),
  attachment_size_limit: z.int(),
});

const DISPATCHES: Record<string, Schema> = {
  READY: ready,
  RESUMED: z.strictObject({ _trace: z.optional(z.array(z.string())) }),
  GUILD_CREATE: guildCreate,
  GUILD_DELETE: z.strictObject({ id: snowflake, unavailable: z.optional(z.boolean()) }),
  CHANNEL_CREATE: channelEvent,
  CHANNEL_UPDATE: channelEvent,
  CHANNEL_DELETE: channelEvent,
  THREAD_CREATE: z.extend(S.ThreadResponseSchema, { newly_created: z.optional(z.boolean()) }),
  GUILD_MEMBER_UPDATE: z.extend(S.GuildMemberResponseSchema, { guild_id: snowflake }),
  GUILD_ROLE_UPDATE: z.strictObject({ guild_id: snowflake, role: S.GuildRoleResponseSchema }),
  MESSAGE_CREATE: messageEvent,
  MESSAGE_UPDATE: messageEvent,
  MESSAGE_DELETE: z.strictObject({ id: snowflake, channel_id: snowflake, guild_id: z.optional(snowflake) }),
  INTERACTION_CREATE: interaction,
};

export function dispatchSchema(t: string): Schema | undefined {
  return DISPATCHES[t];
}

/** Every dispatch name with a schema (spec.test.ts checks the server sends no other). */
export const CHECKED_DISPATCHES: readonly string[] = Object.keys(DISPATCHES);
