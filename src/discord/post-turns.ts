import { Routes, type APIUser, type REST } from 'discord.js';
import { reasonText } from '../schedule/failure-reason.ts';
import { DeliveryError, type TurnPriority } from '../schedule/poster.ts';
import { classifyPostError } from './post-errors.ts';
import type { TakeTurn } from './post-pace.ts';

/**
 * What every kind of daily post (a channel message, a forum post, a webhook's post, a pin) shares: the turn of the
 * posts' pace each request waits for, and the bot's user id that tells its own posts from others'. The daily poster
 * makes one and hands it to each, so the id is asked of Discord once, not once per kind of post.
 */
export interface PostTurns {
  /**
   * Waits for the request's turn (`after`: only when no post waits); a turn that cannot be had (cluster mode's pacer
   * out of reach) fails as `noTurn`.
   */
  takeTurn: (priority?: TurnPriority) => Promise<void>;
  /** The bot's user id: the one given, or asked of Discord once; a failed ask is forgotten, so the next asks again. */
  selfId: () => Promise<string>;
}

export function postTurns(rest: REST, waitForTurn: TakeTurn, knownSelfId?: string): PostTurns {
  let self: Promise<string> | null = knownSelfId ? Promise.resolve(knownSelfId) : null;
  return {
    async takeTurn(priority) {
      try {
        await waitForTurn(priority);
      } catch (error) {
        throw new DeliveryError('transient', { kind: 'noTurn', detail: reasonText(error instanceof Error ? error.message : String(error)) }, { cause: error });
      }
    },
    selfId() {
      self ??= (rest.get(Routes.user()) as Promise<APIUser>).then(
        (user) => user.id,
        (error: unknown) => {
          self = null;
          throw classifyPostError(error);
        },
      );
      return self;
    },
  };
}
