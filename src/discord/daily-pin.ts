import { DiscordAPIError, RESTJSONErrorCodes, Routes, type REST } from 'discord.js';
import { clip } from '../schedule/discord-limits.ts';
import type { FailureReason } from '../schedule/failure-reason.ts';
import type { PinFailure } from '../schedule/pin-failure.ts';
import type { DailyMessage, PostResult } from '../schedule/poster.ts';
import { dmUserOf } from '../schedule/subscription.ts';
import { classifyPostError } from './post-errors.ts';
import type { PostTurns } from './post-turns.ts';

/**
 * The `pin` setting: today's post pinned (PUT /channels/:id/messages/pins/:id, Pin Messages), then the bot's previous
 * daily post unpinned. The post is made whatever happens here: a failure comes back as the post's `pinFailure` (the
 * scheduler logs it, counts it and shows it in the status), never as a failed post, so it is never posted again.
 * Each request takes a turn of the posts' pace first: pins count against Discord's global limit as posts do (a fan-out
 * with a tenth of its channels pinned met 41 global 429s before they did). A turn that cannot be had is the pin's
 * failure with the posts' reason for it (`noTurn`).
 */
export function dailyPins(rest: REST, { takeTurn }: Pick<PostTurns, 'takeTurn'>): (message: DailyMessage, posted: PostResult) => Promise<PostResult> {
  return async (message, posted) => {
    if (!message.pin || message.forumPost || dmUserOf(message.channelId) !== null) return posted;
    const problems: PinFailure[] = [];
    let mayPin = true;
    try {
      await takeTurn('after');
      await rest.put(Routes.channelMessagesPin(message.channelId, posted.messageId));
    } catch (error) {
      mayPin = !isMissingPermissions(error);
      problems.push(pinProblem('pin', error, message));
    }
    const unpin = message.pin.unpin;
    // Without the permission the unpin would fail the same way: said once.
    if (mayPin && unpin && unpin !== posted.messageId) {
      try {
        await takeTurn('after');
        await rest.delete(Routes.channelMessagesPin(message.channelId, unpin));
      } catch (error) {
        // Yesterday's post deleted since: nothing is left to unpin.
        if (!(error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownMessage)) problems.push(pinProblem('unpin', error, message));
      }
    }
    return problems.length > 0 ? { ...posted, pinFailure: problems } : posted;
  };
}

function isMissingPermissions(error: unknown): boolean {
  return error instanceof DiscordAPIError && (error.code === RESTJSONErrorCodes.MissingPermissions || error.code === RESTJSONErrorCodes.MissingAccess);
}

/** Missing Pin Messages in #words, a full channel's pins, or Discord's reason for another failure. */
function pinProblem(what: 'pin' | 'unpin', error: unknown, message: DailyMessage): PinFailure {
  return { what, reason: pinReason(error, message) };
}

function pinReason(error: unknown, message: DailyMessage): FailureReason {
  if (isMissingPermissions(error)) {
    return { kind: 'missingPermission', permission: 'PinMessages', ...(message.channelName ? { channelName: clip(message.channelName, 100) } : {}) };
  }
  if (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.MaximumNumberOfPinsReachedForTheChannel) return { kind: 'pinLimit' };
  return classifyPostError(error).reason;
}
