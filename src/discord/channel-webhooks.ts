import { DiscordAPIError, HTTPError, REST, RESTJSONErrorCodes, Routes, WebhookType, type APIWebhook } from 'discord.js';
import { clip } from '../schedule/discord-limits.ts';
import type { FailureReason } from '../schedule/failure-reason.ts';
import { DeliveryError } from '../schedule/poster.ts';

/**
 * The bot's own webhook in a channel, for subscriptions with a webhook identity (issue 35). It is found among the
 * channel's webhooks (the one the bot's application created) or created, then remembered in this process's memory
 * only: a webhook's token is a secret that lets anyone post in the channel, so it is never stored, logged or
 * exported. A restart (or another cluster member) asks Discord again, one GET per channel, which Discord answers with
 * the token of a webhook the bot created.
 */

/** A webhook's id and its token (a secret). */
export interface ChannelWebhook {
  id: string;
  token: string;
}

/** Channels whose webhook is remembered; the oldest is forgotten past this (a fan-out's tenth of 100,000 fits). */
export const WEBHOOKS_REMEMBERED = 20_000;
/** Discord's channel names are at most 100 characters; a stored one is cut there too before it goes into a reason. */
const CHANNEL_NAME_LIMIT = 100;

export interface ChannelWebhooks {
  /** The bot's webhook in the channel: remembered, else found among the channel's, else created under `name`. */
  get(channelId: string, name: string, channelName: string | undefined): Promise<ChannelWebhook>;
  /** Forgets the channel's webhook: Discord said it no longer exists. */
  forget(channelId: string): void;
  /** The id of the webhook remembered for the channel, if any. */
  idIn(channelId: string): string | undefined;
}

/** The channel's name as a reason keeps it: within Discord's limit, absent when not known. */
export function reasonChannel(channelName: string | undefined): { channelName?: string } {
  return channelName ? { channelName: clip(channelName, CHANNEL_NAME_LIMIT) } : {};
}

/** Why a post through the webhook failed when the bot may not manage the channel's webhooks. */
export function missingPermissionIn(permission: 'ManageWebhooks' | 'ReadMessageHistory', channelName: string | undefined): FailureReason {
  return { kind: 'missingPermission', permission, ...reasonChannel(channelName) };
}

/**
 * The REST client that executes webhooks: the bot's own settings, but no retries of its own. discord.js repeats a
 * request that timed out or got a 5xx, and an execution carries no nonce for Discord to drop a repeat by, so a
 * repeat could post twice; the scheduler's retry looks for the earlier attempt's message first instead. One per
 * bot REST client, so the metrics and the poster see the same one.
 */
const webhookClients = new WeakMap<REST, REST>();
export function webhookRest(rest: REST): REST {
  let client = webhookClients.get(rest);
  if (!client) {
    client = new REST({ ...rest.options, retries: 0 });
    webhookClients.set(rest, client);
  }
  return client;
}

/** The error with the webhook's token taken out of its URL, so that logging it shows no secret. */
export function withoutToken(error: unknown, token: string): unknown {
  if ((error instanceof DiscordAPIError || error instanceof HTTPError) && token !== '') error.url = error.url.split(token).join('<token>');
  return error;
}

/**
 * `takeTurn` comes before each request to find or create a webhook: those are the bot's own (its token), counted
 * under its global limit like its posts.
 */
export function channelWebhooks(
  rest: REST,
  deps: { selfId: () => Promise<string>; takeTurn: () => Promise<void>; classify: (channelId: string, error: unknown) => Promise<DeliveryError> },
): ChannelWebhooks {
  const remembered = new Map<string, ChannelWebhook>();
  const pending = new Map<string, Promise<ChannelWebhook>>();
  const remember = (channelId: string, webhook: ChannelWebhook): void => {
    remembered.delete(channelId);
    remembered.set(channelId, webhook);
    if (remembered.size > WEBHOOKS_REMEMBERED) {
      const oldest = remembered.keys().next().value;
      if (oldest !== undefined) remembered.delete(oldest);
    }
  };
  const failure = async (channelId: string, channelName: string | undefined, error: unknown): Promise<DeliveryError> => {
    if (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.MissingPermissions) {
      return new DeliveryError('forbidden', missingPermissionIn('ManageWebhooks', channelName), { cause: error });
    }
    return deps.classify(channelId, error);
  };
  const findOrCreate = async (channelId: string, name: string, channelName: string | undefined): Promise<ChannelWebhook> => {
    const self = await deps.selfId();
    let found: APIWebhook | undefined;
    await deps.takeTurn();
    try {
      const hooks = (await rest.get(Routes.channelWebhooks(channelId))) as APIWebhook[];
      found = (Array.isArray(hooks) ? hooks : []).find(
        (hook) => hook.type === WebhookType.Incoming && typeof hook.token === 'string' && (hook.application_id === self || hook.user?.id === self),
      );
      if (!found) {
        await deps.takeTurn();
        found = (await rest.post(Routes.channelWebhooks(channelId), { body: { name } })) as APIWebhook;
      }
    } catch (error) {
      throw await failure(channelId, channelName, error);
    }
    if (typeof found.id !== 'string' || typeof found.token !== 'string' || found.token === '') {
      throw new DeliveryError('transient', { kind: 'webhookIncomplete' });
    }
    return { id: found.id, token: found.token };
  };
  return {
    async get(channelId, name, channelName) {
      const known = remembered.get(channelId);
      if (known) return known;
      let asked = pending.get(channelId);
      if (!asked) {
        asked = findOrCreate(channelId, name, channelName).finally(() => pending.delete(channelId));
        pending.set(channelId, asked);
      }
      const webhook = await asked;
      remember(channelId, webhook);
      return webhook;
    },
    forget(channelId) {
      remembered.delete(channelId);
    },
    idIn(channelId) {
      return remembered.get(channelId)?.id;
    },
  };
}
