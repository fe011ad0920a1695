/**
 * Channel webhooks (incoming webhooks a bot creates): create and list in a channel (Manage Webhooks, 15 a channel),
 * delete (the bot token, Manage Webhooks; a test deleting one plays the admin who removes it), and execute with the
 * token under each webhook's own rate-limit bucket (the route's, in webhook-routes.ts). An execution posts as the
 * webhook: its id as author and webhook_id, the `username` sent (else its name), and the application that owns it.
 */
import { PermissionFlagsBits } from 'discord.js';
import { ApiError, invalidForm, unknown } from './api-error.ts';
import { channelFor } from './channel-routes.ts';
import { createMessage, serializeMessage, viewMessage } from './messages.ts';
import { checkMessage } from './message-routes.ts';
import { makeUser, serializeUser } from './model.ts';
import { noContent, ok, type RouteResult, type RouteTable } from './route-table.ts';
import { snowflake } from './snowflake.ts';
import { FormErrors } from './validation.ts';
import type { World } from './world.ts';

type Json = Record<string, unknown>;

export interface StoredWebhook {
  id: string;
  token: string;
  channelId: string;
  guildId: string;
  name: string;
  /** The user that created it (the bot), and the application that owns it. */
  creatorId: string;
  applicationId: string;
}

/** Discord allows 15 webhooks in a channel. */
export const WEBHOOKS_PER_CHANNEL = 15;
const NAME_LIMIT = 80;
/** Channel types a webhook can be created in: text, announcement, forum, media. */
const WEBHOOK_CHANNEL_TYPES = new Set([0, 5, 15, 16]);

const stores = new WeakMap<World, Map<string, StoredWebhook>>();

/** The world's channel webhooks by id. */
export function webhooksOf(world: World): Map<string, StoredWebhook> {
  let store = stores.get(world);
  if (!store) {
    store = new Map();
    stores.set(world, store);
  }
  return store;
}

/** A webhook of the bot's application in the channel, as creating one makes it (benches add them beforehand with it). */
export function addChannelWebhook(world: World, channelId: string, name: string): StoredWebhook {
  const guildId = world.channels.get(channelId)?.guildId;
  if (guildId === undefined) throw new Error(`no channel ${channelId}`);
  const hook: StoredWebhook = {
    id: snowflake(),
    token: `wh-${snowflake()}-${Math.random().toString(36).slice(2)}`,
    channelId,
    guildId,
    name,
    creatorId: world.botUser.id,
    applicationId: world.applicationId,
  };
  webhooksOf(world).set(hook.id, hook);
  world.changes.notify();
  return hook;
}

/** What Discord refuses in a webhook's name or an execution's username (create-webhook's rules). */
function nameErrors(name: unknown, field: string): FormErrors {
  const errors = new FormErrors();
  if (typeof name !== 'string' || name.trim().length < 1 || name.length > NAME_LIMIT) {
    errors.add([field], 'BASE_TYPE_BAD_LENGTH', `Must be between 1 and ${NAME_LIMIT} in length.`);
  } else {
    const forbidden = ['clyde', 'discord'].find((word) => name.toLowerCase().includes(word));
    if (forbidden) errors.add([field], 'USERNAME_INVALID_CONTAINS', `Username cannot contain "${forbidden}"`);
  }
  return errors;
}

function serializeWebhook(world: World, hook: StoredWebhook, withToken: boolean): Json {
  const creator = world.users.get(hook.creatorId) ?? makeUser({ id: hook.creatorId });
  return {
    application_id: hook.applicationId,
    avatar: null,
    channel_id: hook.channelId,
    guild_id: hook.guildId,
    id: hook.id,
    name: hook.name,
    type: 1,
    user: serializeUser(creator),
    // Discord gives an application-owned webhook's token to that application only.
    ...(withToken ? { token: hook.token, url: `https://discord.com/api/webhooks/${hook.id}/${hook.token}` } : {}),
  };
}

export function defineChannelWebhookRoutes(table: RouteTable, world: World): void {
  const manage = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ManageWebhooks;
  table.on('GET', '/channels/:channel_id/webhooks', ({ params }) => {
    const channel = channelFor(world, params, manage);
    const hooks = [...webhooksOf(world).values()].filter((hook) => hook.channelId === channel.id);
    return ok(hooks.map((hook) => serializeWebhook(world, hook, hook.applicationId === world.applicationId)));
  });
  table.on('POST', '/channels/:channel_id/webhooks', ({ params, body }) => {
    const channel = channelFor(world, params, manage);
    const errors = nameErrors(body.name, 'name');
    if (!errors.empty) throw invalidForm(errors);
    if (!WEBHOOK_CHANNEL_TYPES.has(channel.type)) throw new ApiError(400, 50024, 'Cannot execute action on this channel type');
    const store = webhooksOf(world);
    if ([...store.values()].filter((hook) => hook.channelId === channel.id).length >= WEBHOOKS_PER_CHANNEL) {
      throw new ApiError(400, 30007, `Maximum number of webhooks reached (${WEBHOOKS_PER_CHANNEL})`);
    }
    return ok(serializeWebhook(world, addChannelWebhook(world, channel.id, String(body.name)), true));
  });
  table.on('DELETE', '/webhooks/:webhook_id', ({ params }) => {
    const hook = webhooksOf(world).get(params.webhook_id ?? '');
    if (!hook) throw unknown(10015, 'Webhook');
    channelFor(world, { channel_id: hook.channelId }, manage);
    webhooksOf(world).delete(hook.id);
    world.changes.notify();
    return noContent;
  });
}

/** POST /webhooks/:webhook_id/:webhook_token for a channel webhook: the message, or 204 without ?wait=true. */
export function executeChannelWebhook(world: World, params: Record<string, string>, body: Json, query: URLSearchParams, attachments: Json[]): RouteResult {
  const hook = webhooksOf(world).get(params.webhook_id ?? '');
  if (!hook) throw unknown(10015, 'Webhook');
  if (hook.token !== params.webhook_token) throw new ApiError(401, 50027, 'Invalid Webhook Token');
  checkMessage(body, 'create', false, attachments);
  if (body.username !== undefined && body.username !== null) {
    const errors = nameErrors(body.username, 'username');
    if (!errors.empty) throw invalidForm(errors);
  }
  const username = typeof body.username === 'string' ? body.username : hook.name;
  const author = makeUser({ id: hook.id, username, bot: true });
  const message = createMessage({ channelId: hook.channelId, guildId: hook.guildId, author, body, attachments, webhookId: hook.id });
  world.keep(message);
  world.onMessageCreated?.(viewMessage(message));
  if (query.get('wait') !== 'true') return { status: 204 };
  return ok(serializeMessage(message, hook.applicationId));
}
