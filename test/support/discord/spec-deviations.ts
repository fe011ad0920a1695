/**
 * The one allow-list of places where the local Discord server knowingly accepts or answers what discord-api-spec
 * does not describe. Each entry says where (spec component schemas, and a property of each: one the spec lacks is
 * added; no property means the whole schema), what Discord really does there and why we believe it, and an example
 * value of its first place that Discord sends or accepts and the spec rejects. spec.test.ts checks that the spec
 * (strict, without this list) still rejects every example and that the entry makes it pass: an entry the spec no
 * longer needs fails there and must go. The run's `discord-spec:` lines name entries no payload needed.
 */
import * as z from 'zod/mini';
import type { Schema, SpecSchemaName } from './spec-schemas.ts';

export interface Deviation {
  id: string;
  reason: string;
  at: readonly { schema: SpecSchemaName; field?: string }[];
  /** The schema Discord follows there, given the spec's own (strict; undefined for a property the spec lacks). */
  allow: (spec: Schema | undefined) => Schema;
  /** A value of `at[0].schema` that Discord sends or accepts and the spec rejects. */
  example: unknown;
}

const formErrorEntry = z.strictObject({ code: z.string(), message: z.string() });
/** A node of the error tree: its own `_errors`, and its children's nodes by key. */
const formErrorTree: Schema = z.lazy(() => z.catchall(z.strictObject({ _errors: z.optional(z.array(formErrorEntry)) }), formErrorTree));

/** The message bodies of interaction responses and webhook calls, which discord.js builds with one serializer. */
const WEBHOOK_MESSAGE_BODIES = [
  'IncomingWebhookInteractionRequestSchema',
  'IncomingWebhookRequestPartialSchema',
  'IncomingWebhookUpdateRequestPartialSchema',
  'IncomingWebhookUpdateForInteractionCallbackRequestPartialSchema',
] as const;

export const DEVIATIONS: readonly Deviation[] = [
  {
    id: 'form-error-tree',
    reason:
      "The spec's `errors` of a 400 Invalid Form Body is either a map of child nodes or `{ _errors }` whose entries " +
      'reuse the top-level Error with a numeric `code`. Discord names field errors with strings ("BASE_TYPE_REQUIRED"; ' +
      "discord.js types them so) and a node may carry its own `_errors` beside its children's (a list that is wrong " +
      'as a whole and in one item).',
    at: [{ schema: 'ErrorDetailsSchema' }],
    allow: () => formErrorTree,
    example: { allowed_mentions: { _errors: [{ code: 'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE', message: 'x' }], parse: { 1: { _errors: [{ code: 'BASE_TYPE_CHOICES', message: 'y' }] } } } },
  },
  {
    id: 'default-member-permissions-as-string',
    reason:
      'The spec types a command\'s `default_member_permissions` as an integer; Discord documents it as a string of ' +
      'permission bits (it can exceed 2^53), answers it as a string, and discord.js sends it so.',
    at: [
      { schema: 'ApplicationCommandUpdateRequestSchema', field: 'default_member_permissions' },
      { schema: 'ApplicationCommandCreateRequestSchema', field: 'default_member_permissions' },
      { schema: 'ApplicationCommandPatchRequestPartialSchema', field: 'default_member_permissions' },
    ],
    allow: () => z.nullish(z.string().check(z.regex(/^\d{1,20}$/))),
    example: { name: 'wotd-subscribe', description: 'Subscribe a channel', default_member_permissions: '16' },
  },
  {
    id: 'discordjs-message-payload-extras',
    reason:
      'discord.js serializes every message body the same way, so interaction responses and webhook calls carry ' +
      '`tts` and `enforce_nonce` (false unless set) where the spec has no such field; Discord ignores a field a ' +
      'route does not take. Only these two are let through: any other unknown field is still a violation.',
    at: WEBHOOK_MESSAGE_BODIES.flatMap((schema) => [
      { schema, field: 'enforce_nonce' },
      ...(schema === 'IncomingWebhookUpdateRequestPartialSchema' || schema === 'IncomingWebhookUpdateForInteractionCallbackRequestPartialSchema' ? [{ schema, field: 'tts' }] : []),
    ]),
    allow: () => z.optional(z.boolean()),
    example: { content: 'hello', tts: false, enforce_nonce: false },
  },
  {
    id: 'media-channel-type',
    reason:
      "The spec's ChannelTypes lack GUILD_MEDIA (16), a channel type Discord documents (Channel Types: GUILD_MEDIA, " +
      'a channel that can only contain threads, like a forum) and discord.js names (ChannelType.GuildMedia); a ' +
      "command's channel option may list it among its `channel_types`, and Discord answers it back so.",
    at: [
      { schema: 'ApplicationCommandChannelOptionSchema', field: 'channel_types' },
      { schema: 'ApplicationCommandChannelOptionResponseSchema', field: 'channel_types' },
    ],
    allow: () => z.nullish(z.array(z.union([z.literal([1, 3, 0, 2, 4, 5, 10, 11, 12, 13, 14, 15]), z.literal(16)]))),
    example: { type: 7, name: 'channel', description: 'Where to post', channel_types: [0, 5, 15, 16] },
  },
  {
    id: 'media-channel-object',
    reason:
      "The spec's guild channel object takes types 0, 2, 4, 5, 13, 14 and 15, not GUILD_MEDIA (16), which Discord " +
      'documents (Channel Types; a media channel has the tags and flags of a forum: Channel Object, available_tags ' +
      "and REQUIRE_TAG) and sends for a media channel; discord-api-spec's preview build has it.",
    at: [{ schema: 'GuildChannelResponseSchema', field: 'type' }],
    allow: () => z.literal([0, 2, 4, 5, 13, 14, 15, 16]),
    example: { id: '41771983423143937', type: 16, guild_id: '41771983423143938', name: 'clips', position: 0, flags: 16, available_tags: [], permission_overwrites: [] },
  },
];
