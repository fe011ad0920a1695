import {
  DiscordAPIError,
  makeURLSearchParams,
  MessageType,
  RESTJSONErrorCodes,
  Routes,
  SnowflakeUtil,
  type APIEmbed,
  type APIMessage,
  type REST,
  type RESTPostAPIWebhookWithTokenJSONBody,
} from 'discord.js';
import type { Logger } from '../config/logger.ts';
import { unexpectedReason } from '../schedule/failure-reason.ts';
import { DeliveryError, type ChannelPoster, type DailyMessage } from '../schedule/poster.ts';
import { channelWebhooks, missingPermissionIn, reasonChannel, webhookRest, withoutToken, type ChannelWebhook } from './channel-webhooks.ts';
import { dailyButtonRows } from './daily-post-edit.ts';

/**
 * Daily posts of subscriptions with a webhook identity (issue 35): executed through the bot's own webhook in the
 * channel with the subscription's name and avatar URL, with the same mentions, thread and publication as the bot's
 * own posts. A webhook execution has no nonce, so exactly-once rests on the scheduler's look before every
 * retry (findEarlierPost: a message of the bot's webhook with the day's embed) and on executing without discord.js's
 * own repeats (webhookRest). Executions have per-webhook rate limits, which discord.js keeps to from Discord's
 * headers (429s are waited out and counted: metrics-view.ts).
 */

export interface WebhookPosterDeps {
  takeTurn: () => Promise<void>;
  selfId: () => Promise<string>;
  logger: Logger | undefined;
  /** The post's thread and publication (channel-poster.ts's). */
  extras: (rest: REST, message: DailyMessage, created: APIMessage, logger: Logger | undefined) => Promise<void>;
  /** What a failed request means for the post (channel-poster.ts's, which checks a 404's channel). */
  failure: (rest: REST, channelId: string, error: unknown) => Promise<DeliveryError>;
  sameEmbed: (seen: APIEmbed | undefined, sent: APIEmbed | undefined) => boolean;
  history: { pages: number; pageSize: number; lookBackMs: number };
}

function unknownWebhook(error: unknown): boolean {
  return error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownWebhook;
}

export function createWebhookPoster(rest: REST, deps: WebhookPosterDeps): Required<Pick<ChannelPoster, 'post' | 'findEarlierPost'>> {
  const executor = webhookRest(rest);
  const webhooks = channelWebhooks(rest, { selfId: deps.selfId, takeTurn: deps.takeTurn, classify: (channelId, error) => deps.failure(rest, channelId, error) });

  const execute = async (hook: ChannelWebhook, message: DailyMessage, identity: NonNullable<DailyMessage['webhook']>): Promise<APIMessage> => {
    const body: RESTPostAPIWebhookWithTokenJSONBody = {
      embeds: message.embeds,
      allowed_mentions: { parse: [], roles: message.mentionRoleId ? [message.mentionRoleId] : [] },
      username: identity.name,
    };
    if (identity.avatarUrl !== undefined) body.avatar_url = identity.avatarUrl;
    if (message.content !== undefined) body.content = message.content;
    if (message.buttons?.length) body.components = dailyButtonRows(message.buttons);
    try {
      return (await executor.post(Routes.webhook(hook.id, hook.token), { body, query: makeURLSearchParams({ wait: true }), auth: false })) as APIMessage;
    } catch (error) {
      throw withoutToken(error, hook.token);
    }
  };

  const sent = async (message: DailyMessage, created: APIMessage): Promise<{ messageId: string }> => {
    if (typeof (created as Partial<APIMessage> | null)?.id !== 'string' || !/^\d{1,20}$/.test(created.id)) {
      throw new DeliveryError('transient', { kind: 'noMessageId' });
    }
    await deps.extras(rest, message, created, deps.logger);
    return { messageId: created.id };
  };

  return {
    async post(message) {
      const identity = message.webhook;
      if (!identity) throw new DeliveryError('refused', unexpectedReason(new Error('a webhook post without a webhook identity')));
      // An execution goes out without the bot's token, so Discord counts it under the webhook's limits, not the bot's
      // global one: it takes no turn of the bot's pace; finding or creating the webhook does (channel-webhooks.ts).
      const hook = await webhooks.get(message.channelId, identity.name, message.channelName);
      try {
        return await sent(message, await execute(hook, message, identity));
      } catch (error) {
        if (error instanceof DeliveryError) throw error;
        if (!unknownWebhook(error)) throw await deps.failure(rest, message.channelId, error);
      }
      // Someone deleted the bot's webhook: it is created anew, once; deleted again at once, the post fails with why.
      webhooks.forget(message.channelId);
      deps.logger?.warn({ channelId: message.channelId, webhookId: hook.id }, "the bot's webhook in the channel was deleted; creating it again, once");
      const again = await webhooks.get(message.channelId, identity.name, message.channelName);
      try {
        return await sent(message, await execute(again, message, identity));
      } catch (error) {
        if (error instanceof DeliveryError) throw error;
        if (!unknownWebhook(error)) throw await deps.failure(rest, message.channelId, error);
        webhooks.forget(message.channelId);
        throw new DeliveryError('forbidden', { kind: 'webhookDeletedAgain', ...reasonChannel(message.channelName) }, { cause: error });
      }
    },

    async findEarlierPost(message, since) {
      const self = await deps.selfId();
      let after = SnowflakeUtil.generate({ timestamp: since.getTime() - deps.history.lookBackMs }).toString();
      for (let page = 0; page < deps.history.pages; page += 1) {
        await deps.takeTurn();
        let batch: APIMessage[];
        try {
          const query = makeURLSearchParams({ after, limit: deps.history.pageSize });
          batch = (await rest.get(Routes.channelMessages(message.channelId), { query })) as APIMessage[];
        } catch (error) {
          const failure = await deps.failure(rest, message.channelId, error);
          // Without a nonce, posting again unseen could post twice (the scheduler posts on after a forbidden look):
          // the day is given up instead, with the reason.
          if (failure.kind !== 'forbidden') throw failure;
          throw new DeliveryError('refused', missingPermissionIn('ReadMessageHistory', message.channelName), { cause: failure });
        }
        const known = webhooks.idIn(message.channelId);
        const found = batch.find((candidate) => isWebhookPostOf(candidate, message, self, known, deps.sameEmbed));
        if (found) {
          await deps.extras(rest, message, found, deps.logger);
          return { messageId: found.id };
        }
        if (batch.length < deps.history.pageSize) return null;
        after = batch.reduce((newest, m) => (BigInt(m.id) > BigInt(newest) ? m.id : newest), after);
      }
      return null;
    },
  };
}

/**
 * A message one of the bot's webhooks posted (the one it knows in the channel, or any its application owns: an
 * earlier attempt may have used a webhook deleted since), carrying the day's embed. Interaction replies, which the
 * bot's application also sends as a webhook under its own id, are not daily posts.
 */
function isWebhookPostOf(
  candidate: APIMessage,
  message: DailyMessage,
  self: string,
  known: string | undefined,
  sameEmbed: WebhookPosterDeps['sameEmbed'],
): boolean {
  const webhookId = candidate.webhook_id;
  if (webhookId === undefined || webhookId === self || candidate.type !== MessageType.Default) return false;
  if (webhookId !== known && candidate.application_id !== self) return false;
  return sameEmbed(candidate.embeds[0], message.embeds[0]);
}
