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
   * Most daily posts started in any one second (default 47, see postsPerSecondFor; 0 turns pacing off). discord.js
   * keeps to the global limit in its own one-second windows, which do not line up with Discord's, so a fan-out at
   * full speed draws a 429 now and then at a window edge. Posts capped below the ceiling over every sliding second
   * never touch it, and leave room for command replies.
   */
  postsPerSecond?: number;
  /**
   * Waits for the post's turn instead of the in-process pacing; cluster mode passes one shared by every process
   * (src/cluster/discord-pacer.ts), since Discord's global limit is per bot, not per process.
   */
  waitForTurn?: () => Promise<void>;
}

/** The share of Discord's global limit the daily posts take; the rest is left for everything else the bot sends. */
const SHARE_OF_GLOBAL_LIMIT = 0.94;

/** Daily posts per second under a global limit of `globalLimit` requests per second: 47 at Discord's 50, 470 at 500. */
export function postsPerSecondFor(globalLimit: number): number {
  return Math.max(1, Math.floor(globalLimit * SHARE_OF_GLOBAL_LIMIT));
}

export const DEFAULT_POSTS_PER_SECOND = postsPerSecondFor(50);
const WINDOW_MS = 1000;
/**
 * Posts that fell behind their schedule (a busy event loop, a timer that fired late) go out at once while they are
 * at most this far behind, so late timers do not add up to a slower pace; further behind, the schedule starts
 * again from now, so a burst after a stall stays small.
 */
const CATCH_UP_MS = 50;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Lets posts start one at a time, on a schedule of `perSecond` evenly spaced turns, and never more than
 * `perSecond` in any sliding second.
 */
function pacer(perSecond: number): () => Promise<void> {
  if (perSecond <= 0) return () => Promise.resolve();
  const spacing = WINDOW_MS / perSecond;
  /** Start times of the last `perSecond` posts, oldest at `oldest`. */
  const started = new Float64Array(perSecond).fill(Number.NEGATIVE_INFINITY);
  let oldest = 0;
  let nextAt = Number.NEGATIVE_INFINITY;
  let queue: Promise<void> = Promise.resolve();
  const take = async (): Promise<void> => {
    let now = performance.now();
    if (nextAt < now - CATCH_UP_MS) nextAt = now;
    // Timers fire a millisecond late at best: a turn due within one goes now.
    if (nextAt - now >= 1) {
      await sleep(nextAt - now);
      now = performance.now();
    }
    const age = now - (started[oldest] ?? Number.NEGATIVE_INFINITY);
    if (age < WINDOW_MS) {
      await sleep(WINDOW_MS - age);
      now = performance.now();
    }
    started[oldest] = now;
    oldest = (oldest + 1) % perSecond;
    nextAt += spacing;
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
