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

export interface ChannelPosterOptions {
  /**
   * Most daily posts started in any one second (default 47; 0 turns pacing off). discord.js keeps to the global
   * 50 requests/s in its own one-second windows, which do not line up with Discord's, so a fan-out at full speed
   * draws a 429 now and then at a window edge. Posts capped below the ceiling over every sliding second never touch
   * it, and leave room for command replies.
   */
  postsPerSecond?: number;
  /**
   * Waits for the post's turn instead of the in-process pacing; cluster mode passes one shared by every process
   * (src/cluster/discord-pacer.ts), since Discord's global limit is per bot, not per process.
   */
  waitForTurn?: () => Promise<void>;
}

export const DEFAULT_POSTS_PER_SECOND = 47;
/** Posts are at least this far apart, so a burst after a stall catches up gently. */
const MIN_SPACING_MS = 1000 / 60;
const WINDOW_MS = 1000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Lets posts start one at a time: at least MIN_SPACING_MS apart and never more than `perSecond` in any second. */
function pacer(perSecond: number): () => Promise<void> {
  if (perSecond <= 0) return () => Promise.resolve();
  const started: number[] = [];
  let queue: Promise<void> = Promise.resolve();
  const take = async (): Promise<void> => {
    const last = started.at(-1);
    if (last !== undefined) {
      const gap = performance.now() - last;
      if (gap < MIN_SPACING_MS) await sleep(MIN_SPACING_MS - gap);
    }
    if (started.length >= perSecond) {
      const age = performance.now() - (started[started.length - perSecond] ?? 0);
      if (age < WINDOW_MS) await sleep(WINDOW_MS - age);
    }
    started.push(performance.now());
    if (started.length > perSecond) started.shift();
  };
  return () => {
    const turn = queue.then(take);
    queue = turn;
    return turn;
  };
}

/**
 * The daily post over discord.js's REST manager, which queues for Discord's global and per-route rate limits and
 * retries 429s and (a few times) 5xx itself. What is left when it gives up is sorted here into the scheduler's
 * three kinds of failure.
 */
export function createChannelPoster(rest: REST, options: ChannelPosterOptions = {}): ChannelPoster {
  const waitForSlot = options.waitForTurn ?? pacer(options.postsPerSecond ?? DEFAULT_POSTS_PER_SECOND);
  return {
    async post(message: DailyMessage) {
      try {
        await waitForSlot();
      } catch (error) {
        throw new DeliveryError('transient', `Could not take a turn under Discord's global limit: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      const body: RESTPostAPIChannelMessageJSONBody = {
        embeds: message.embeds,
        allowed_mentions: { parse: [], roles: message.mentionRoleId ? [message.mentionRoleId] : [] },
        nonce: message.nonce,
        enforce_nonce: true,
      };
      if (message.content !== undefined) body.content = message.content;
      let failure: DeliveryError;
      try {
        const created = (await rest.post(Routes.channelMessages(message.channelId), { body })) as APIMessage;
        return { messageId: created.id };
      } catch (error) {
        failure = classifyPostError(error);
      }
      throw failure.kind === 'gone' ? await confirmGone(rest, message.channelId, failure) : failure;
    },
  };
}

/**
 * "Gone" switches a subscription off for good, so a 404 is believed only when Discord also cannot find the
 * channel itself; a channel that is there (or a check that gets no clear answer) makes it a failure to retry later
 * the same day.
 */
async function confirmGone(rest: REST, channelId: string, failure: DeliveryError): Promise<DeliveryError> {
  try {
    await rest.get(Routes.channel(channelId));
  } catch (error) {
    const check = classifyPostError(error);
    if (check.kind === 'gone') return failure;
    return new DeliveryError('transient', `${failure.reason}, and looking the channel up failed (${check.reason})`, { cause: error });
  }
  return new DeliveryError('transient', `${failure.reason}, yet the channel is there`, { cause: failure });
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
