/**
 * Every route the local server serves, as discord-api-spec describes it: keyed by the spec's own path template and
 * method, the schemas for its query, its JSON body (also the `payload_json` of a multipart body) and its answer per
 * status. `operation()` refuses at compile time a path or method the spec does not have, a schema whose type is not
 * the spec's `Paths` type for that place (string enums widened to string: the generated zod has their values, the
 * TS types their const enums), a success status missing or extra, and query parameters that differ from the spec's.
 * Error answers are the same for every operation: 429 RatelimitedResponse and 4XX ErrorResponse (checked too).
 * Path parameters follow from the template: `*_id` is a snowflake, `*_token` a non-empty string.
 */
import type { Paths } from 'discord-api-spec';
import * as z from 'zod/mini';
import { NO_BODY, specSchemas as S, type Schema } from './spec-schemas.ts';

export type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';
export type SpecPath = keyof Paths;
type MethodOf<P extends SpecPath> = Extract<keyof Paths[P], Method>;
type Op<P extends SpecPath, M extends MethodOf<P>> = Paths[P][M];
type BodyOf<P extends SpecPath, M extends MethodOf<P>> = Op<P, M> extends { requestBody?: infer B } ? Exclude<B, undefined> : never;
type ResponsesOf<P extends SpecPath, M extends MethodOf<P>> = Op<P, M> extends { responses: infer R } ? R : never;
type QueryOf<P extends SpecPath, M extends MethodOf<P>> = Op<P, M> extends { parameters: { query?: infer Q } } ? Exclude<Q, undefined> : never;
type SuccessStatus<P extends SpecPath, M extends MethodOf<P>> = Exclude<keyof ResponsesOf<P, M>, '429' | '4XX'> & string;

/** String enums widened to string, through arrays and objects. */
type Widen<T> = T extends string ? string : T extends readonly (infer E)[] ? Widen<E>[] : T extends object ? { [K in keyof T]: Widen<T[K]> } : T;
type Same<A, B> = [Widen<A>] extends [Widen<B>] ? ([Widen<B>] extends [Widen<A>] ? true : false) : false;
type Output<S> = S extends Schema ? z.output<S> : never;
/** `never` when schema S fits the spec's type T (no body where the spec has none: `never` for requests, `unknown` for a 204). */
type Fit<S, T, Where extends string> = [T] extends [never]
  ? S extends typeof NO_BODY ? never : `${Where}: the spec has none`
  : unknown extends T
    ? S extends typeof NO_BODY ? never : `${Where}: the spec has none`
    : Same<Output<S>, T> extends true
      ? never
      : `${Where}: the schema's type is not the spec's`;

/** A query parameter: the check of its text, and (for the compile-time comparison) the type the spec gives it. */
export interface QueryParam<T> {
  schema: Schema;
  readonly type?: T;
}
const snowflakeText = z.string().check(z.regex(/^(0|[1-9][0-9]*)$/));
export const query = {
  // What discord.js sends for a boolean (Discord's documentation shows true and false).
  boolean: { schema: z.enum(['true', 'false']) } as QueryParam<boolean>,
  integer: { schema: z.string().check(z.regex(/^-?\d+$/)) } as QueryParam<number>,
  snowflake: { schema: snowflakeText } as QueryParam<string>,
};
type QueryFit<Q, T> = [T] extends [never]
  ? [Q] extends [undefined] ? never : 'query: the spec has none'
  : Same<{ [K in keyof Q]-?: Q[K] extends QueryParam<infer V> ? V : never }, Required<T>> extends true
    ? never
    : 'query: the parameters differ from the spec';

interface OperationInput {
  body: Schema;
  query?: Record<string, QueryParam<unknown>>;
  responses: Record<string, Schema>;
}

type StatusProblems<P extends SpecPath, M extends MethodOf<P>, R> =
  | { [K in SuccessStatus<P, M>]: K extends keyof R ? Fit<R[K], ResponsesOf<P, M>[K], `response ${K}`> : `response ${K}: missing` }[SuccessStatus<P, M>]
  | { [K in Exclude<keyof R, SuccessStatus<P, M>> & string]: `response ${K}: the spec does not list it` }[Exclude<keyof R, SuccessStatus<P, M>> & string];

type ErrorProblems<P extends SpecPath, M extends MethodOf<P>> =
  | (Same<ResponsesOf<P, M> extends { '429': infer R } ? R : never, z.output<typeof S.RatelimitedResponseSchema>> extends true ? never : 'response 429: not RatelimitedResponse')
  | (Same<ResponsesOf<P, M> extends { '4XX': infer E } ? E : never, z.output<typeof S.ErrorResponseSchema>> extends true ? never : 'response 4XX: not ErrorResponse');

/** Every way the input differs from the spec's `Paths` entry; never when it fits. */
type Problems<P extends SpecPath, M extends MethodOf<P>, I extends OperationInput> =
  | Fit<I['body'], BodyOf<P, M>, 'body'>
  | QueryFit<'query' extends keyof I ? I['query'] : undefined, QueryOf<P, M>>
  | StatusProblems<P, M, I['responses']>
  | ErrorProblems<P, M>;

/** What the server checks for one spec operation. */
export interface SpecOperation {
  /** "POST /channels/{channel_id}/messages" */
  key: string;
  method: Method;
  path: SpecPath;
  body: Schema;
  query: Record<string, Schema>;
  /** By status ("200", "204", "429", "4XX"). */
  responses: Record<string, Schema>;
}

/**
 * One operation's schemas, compared with the spec's `Paths` entry for `path` and `method` at compile time: a
 * mismatch is an error on `input` naming each difference (spec.test.ts proves the refusals with @ts-expect-error).
 */
export function operation<P extends SpecPath, M extends MethodOf<P>, I extends OperationInput>(
  path: P,
  method: M,
  input: I & ([Problems<P, M, I>] extends [never] ? unknown : { 'differs from the spec': Problems<P, M, I> }),
): SpecOperation {
  return {
    key: `${method.toUpperCase()} ${path}`,
    method,
    path,
    body: input.body,
    query: Object.fromEntries(Object.entries(input.query ?? {}).map(([name, param]) => [name, param.schema])),
    responses: { ...input.responses, '429': S.RatelimitedResponseSchema, '4XX': S.ErrorResponseSchema },
  };
}

const commandList = z.nullable(z.array(S.ApplicationCommandResponseSchema));
const channel = z.union([S.GuildChannelResponseSchema, S.PrivateChannelResponseSchema, S.PrivateGroupChannelResponseSchema, S.ThreadResponseSchema]);
const webhookMessageQuery = { thread_id: query.snowflake };
const webhookEditQuery = { thread_id: query.snowflake, with_components: query.boolean };

/** The generated zod lets an autocomplete result's `data` be absent; the spec's type (and Discord) require it. */
const autocompleteResult = z.extend(S.ApplicationCommandAutocompleteCallbackRequestSchema, {
  data: z.union([
    S.InteractionApplicationCommandAutocompleteCallbackIntegerDataSchema,
    S.InteractionApplicationCommandAutocompleteCallbackNumberDataSchema,
    S.InteractionApplicationCommandAutocompleteCallbackStringDataSchema,
  ]),
});
const commandPut = z.nullable(z.array(S.ApplicationCommandUpdateRequestSchema));
const commandCreated = { '200': S.ApplicationCommandResponseSchema, '201': S.ApplicationCommandResponseSchema };
const command = { '200': S.ApplicationCommandResponseSchema };
const withLocalizations = { with_localizations: query.boolean };

export const SPEC_OPERATIONS: readonly SpecOperation[] = [
  operation('/gateway', 'get', { body: NO_BODY, responses: { '200': S.GatewayResponseSchema } }),
  operation('/gateway/bot', 'get', { body: NO_BODY, responses: { '200': S.GatewayBotResponseSchema } }),
  operation('/users/@me', 'get', { body: NO_BODY, responses: { '200': S.UserPIIResponseSchema } }),
  operation('/users/{user_id}', 'get', { body: NO_BODY, responses: { '200': S.UserResponseSchema } }),
  operation('/applications/@me', 'get', { body: NO_BODY, responses: { '200': S.PrivateApplicationResponseSchema } }),
  operation('/oauth2/applications/@me', 'get', { body: NO_BODY, responses: { '200': S.PrivateApplicationResponseSchema } }),
  operation('/applications/{application_id}/commands', 'get', { body: NO_BODY, query: withLocalizations, responses: { '200': commandList } }),
  operation('/applications/{application_id}/commands', 'put', { body: commandPut, responses: { '200': commandList } }),
  operation('/applications/{application_id}/commands', 'post', { body: S.ApplicationCommandCreateRequestSchema, responses: commandCreated }),
  operation('/applications/{application_id}/commands/{command_id}', 'get', { body: NO_BODY, responses: command }),
  operation('/applications/{application_id}/commands/{command_id}', 'patch', { body: S.ApplicationCommandPatchRequestPartialSchema, responses: command }),
  operation('/applications/{application_id}/commands/{command_id}', 'delete', { body: NO_BODY, responses: { '204': NO_BODY } }),
  operation('/applications/{application_id}/guilds/{guild_id}/commands', 'get', { body: NO_BODY, query: withLocalizations, responses: { '200': commandList } }),
  operation('/applications/{application_id}/guilds/{guild_id}/commands', 'put', { body: commandPut, responses: { '200': commandList } }),
  operation('/applications/{application_id}/guilds/{guild_id}/commands', 'post', { body: S.ApplicationCommandCreateRequestSchema, responses: commandCreated }),
  operation('/applications/{application_id}/guilds/{guild_id}/commands/{command_id}', 'get', { body: NO_BODY, responses: command }),
  operation('/applications/{application_id}/guilds/{guild_id}/commands/{command_id}', 'patch', { body: S.ApplicationCommandPatchRequestPartialSchema, responses: command }),
  operation('/applications/{application_id}/guilds/{guild_id}/commands/{command_id}', 'delete', { body: NO_BODY, responses: { '204': NO_BODY } }),
  operation('/guilds/{guild_id}', 'get', { body: NO_BODY, query: { with_counts: query.boolean }, responses: { '200': S.GuildWithCountsResponseSchema } }),
  operation('/guilds/{guild_id}/channels', 'get', { body: NO_BODY, responses: { '200': z.nullable(z.array(channel)) } }),
  operation('/guilds/{guild_id}/roles', 'get', { body: NO_BODY, responses: { '200': z.array(S.GuildRoleResponseSchema) } }),
  operation('/guilds/{guild_id}/members/{user_id}', 'get', { body: NO_BODY, responses: { '200': S.GuildMemberResponseSchema } }),
  operation('/channels/{channel_id}', 'get', { body: NO_BODY, responses: { '200': channel } }),
  operation('/users/@me/channels', 'post', {
    body: S.CreatePrivateChannelRequestSchema,
    responses: { '200': z.union([S.PrivateChannelResponseSchema, S.PrivateGroupChannelResponseSchema]) },
  }),
  operation('/channels/{channel_id}/messages', 'get', {
    body: NO_BODY,
    query: { around: query.snowflake, before: query.snowflake, after: query.snowflake, limit: query.integer },
    responses: { '200': z.nullable(z.array(S.MessageResponseSchema)) },
  }),
  operation('/channels/{channel_id}/messages', 'post', { body: S.MessageCreateRequestSchema, responses: { '200': S.MessageResponseSchema } }),
  operation('/channels/{channel_id}/messages/{message_id}', 'get', { body: NO_BODY, responses: { '200': S.MessageResponseSchema } }),
  operation('/channels/{channel_id}/messages/{message_id}', 'patch', { body: S.MessageEditRequestPartialSchema, responses: { '200': S.MessageResponseSchema } }),
  operation('/channels/{channel_id}/messages/{message_id}', 'delete', { body: NO_BODY, responses: { '204': NO_BODY } }),
  operation('/channels/{channel_id}/messages/{message_id}/threads', 'post', {
    body: S.CreateTextThreadWithMessageRequestSchema,
    responses: { '201': S.ThreadResponseSchema },
  }),
  operation('/channels/{channel_id}/threads', 'post', {
    body: z.union([S.CreateForumThreadRequestSchema, S.CreateTextThreadWithoutMessageRequestSchema]),
    responses: { '201': S.CreatedThreadResponseSchema },
  }),
  operation('/guilds/{guild_id}/threads/active', 'get', { body: NO_BODY, responses: { '200': S.ThreadsResponseSchema } }),
  operation('/channels/{channel_id}/messages/pins/{message_id}', 'put', { body: NO_BODY, responses: { '204': NO_BODY } }),
  operation('/channels/{channel_id}/messages/pins/{message_id}', 'delete', { body: NO_BODY, responses: { '204': NO_BODY } }),
  operation('/channels/{channel_id}/messages/{message_id}/crosspost', 'post', { body: NO_BODY, responses: { '200': S.MessageResponseSchema } }),
  operation('/channels/{channel_id}/webhooks', 'get', {
    body: NO_BODY,
    responses: { '200': z.nullable(z.array(z.union([S.ApplicationIncomingWebhookResponseSchema, S.ChannelFollowerWebhookResponseSchema, S.GuildIncomingWebhookResponseSchema]))) },
  }),
  operation('/channels/{channel_id}/webhooks', 'post', {
    body: z.object({ name: z.string(), avatar: z.optional(z.nullable(z.string())) }),
    responses: { '200': S.GuildIncomingWebhookResponseSchema },
  }),
  operation('/webhooks/{webhook_id}', 'delete', { body: NO_BODY, responses: { '204': NO_BODY } }),
  operation('/interactions/{interaction_id}/{interaction_token}/callback', 'post', {
    body: z.union([
      autocompleteResult,
      S.CreateMessageInteractionCallbackRequestSchema,
      S.LaunchActivityInteractionCallbackRequestSchema,
      S.ModalInteractionCallbackRequestSchema,
      S.PongInteractionCallbackRequestSchema,
      S.SocialLayerSKUPurchaseEligibilityInteractionCallbackRequestSchema,
      S.UpdateMessageInteractionCallbackRequestSchema,
    ]),
    query: { with_response: query.boolean },
    responses: { '200': S.InteractionCallbackResponseSchema, '204': NO_BODY },
  }),
  operation('/webhooks/{webhook_id}/{webhook_token}', 'post', {
    body: z.union([S.IncomingWebhookRequestPartialSchema, S.IncomingWebhookUpdateRequestPartialSchema]),
    query: { wait: query.boolean, thread_id: query.snowflake, with_components: query.boolean },
    responses: { '200': S.MessageResponseSchema, '204': NO_BODY },
  }),
  operation('/webhooks/{webhook_id}/{webhook_token}/messages/@original', 'get', { body: NO_BODY, query: webhookMessageQuery, responses: { '200': S.MessageResponseSchema } }),
  operation('/webhooks/{webhook_id}/{webhook_token}/messages/@original', 'patch', {
    body: S.IncomingWebhookUpdateRequestPartialSchema,
    query: webhookEditQuery,
    responses: { '200': S.MessageResponseSchema },
  }),
  operation('/webhooks/{webhook_id}/{webhook_token}/messages/@original', 'delete', { body: NO_BODY, query: webhookMessageQuery, responses: { '204': NO_BODY } }),
  operation('/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}', 'get', { body: NO_BODY, query: webhookMessageQuery, responses: { '200': S.MessageResponseSchema } }),
  operation('/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}', 'patch', {
    body: S.IncomingWebhookUpdateRequestPartialSchema,
    query: webhookEditQuery,
    responses: { '200': S.MessageResponseSchema },
  }),
  operation('/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}', 'delete', { body: NO_BODY, query: webhookMessageQuery, responses: { '204': NO_BODY } }),
];

const byKey = new Map(SPEC_OPERATIONS.map((op) => [op.key, op]));

/** Our route template (":name" parameters) in the spec's spelling ("{name}"). */
export function specPathOf(template: string): string {
  return template.replace(/:([A-Za-z_]+)/g, '{$1}');
}

/** The spec operation for one of our routes ("POST", "/channels/:channel_id/messages"), if mapped. */
export function operationFor(method: string, template: string): SpecOperation | undefined {
  return byKey.get(`${method.toUpperCase()} ${specPathOf(template)}`);
}

/** The schema a path parameter's value must meet, from its name. */
export function pathParamSchema(name: string): Schema {
  return name.endsWith('_id') ? snowflakeText : z.string().check(z.minLength(1));
}
