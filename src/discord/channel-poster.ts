import {
  DiscordAPIError,
  HTTPError,
  RESTJSONErrorCodes,
  Routes,
  type APIMessage,
  type REST,
  type RESTPostAPIChannelMessageJSONBody,
} from 'discord.js';
import { DeliveryError, type ChannelPoster, type DailyMessage } from '../schedule/poster.ts';

/**
 * The daily post over discord.js's REST manager, which queues for Discord's global and per-route rate limits and
 * retries 429s and (a few times) 5xx itself. What is left when it gives up is sorted here into the scheduler's
 * three kinds of failure.
 */
export function createChannelPoster(rest: REST): ChannelPoster {
  return {
    async post(message: DailyMessage) {
      const body: RESTPostAPIChannelMessageJSONBody = {
        embeds: message.embeds,
        allowed_mentions: { parse: [], roles: message.mentionRoleId ? [message.mentionRoleId] : [] },
        nonce: message.nonce,
        enforce_nonce: true,
      };
      if (message.content !== undefined) body.content = message.content;
      try {
        const created = (await rest.post(Routes.channelMessages(message.channelId), { body })) as APIMessage;
        return { messageId: created.id };
      } catch (error) {
        throw classifyPostError(error);
      }
    },
  };
}

export function classifyPostError(error: unknown): DeliveryError {
  if (error instanceof DiscordAPIError) {
    const detail = `${error.message} (${error.code})`;
    if (error.code === RESTJSONErrorCodes.MissingAccess) return new DeliveryError('forbidden', 'Missing Access: the bot cannot see the channel', { cause: error });
    if (error.code === RESTJSONErrorCodes.MissingPermissions) {
      return new DeliveryError('forbidden', 'Missing Permissions: the bot may not post or embed links there', { cause: error });
    }
    if (error.code === RESTJSONErrorCodes.UnknownChannel) return new DeliveryError('gone', 'Unknown Channel: the channel no longer exists', { cause: error });
    if (error.code === RESTJSONErrorCodes.UnknownGuild) return new DeliveryError('gone', 'Unknown Guild: the bot is no longer in the server', { cause: error });
    if (error.status === 403) return new DeliveryError('forbidden', `Forbidden: ${detail}`, { cause: error });
    if (error.status === 404) return new DeliveryError('gone', `Not found: ${detail}`, { cause: error });
    if (error.status >= 500) return new DeliveryError('transient', `Discord error ${error.status}: ${detail}`, { cause: error });
    // Any other 4xx is a request Discord will never accept as it stands; retrying within the day is still harmless.
    return new DeliveryError('transient', `Rejected by Discord: ${detail}`, { cause: error });
  }
  if (error instanceof HTTPError) {
    return new DeliveryError('transient', `Discord answered HTTP ${error.status}`, { cause: error });
  }
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
    return new DeliveryError('transient', 'Discord did not answer in time', { cause: error });
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new DeliveryError('transient', `Could not reach Discord: ${reason}`, { cause: error });
}
