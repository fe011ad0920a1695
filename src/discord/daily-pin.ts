import { DiscordAPIError, RESTJSONErrorCodes, Routes, type REST } from 'discord.js';
import { clip } from '../schedule/discord-limits.ts';
import type { FailureReason } from '../schedule/failure-reason.ts';
import type { PinFailure } from '../schedule/pin-failure.ts';
import type { PinTarget } from '../schedule/poster.ts';
import { classifyPostError } from './post-errors.ts';
import type { PostTurns } from './post-turns.ts';

/**
 * The `pin` setting: a daily post pinned (PUT /channels/:id/messages/pins/:id, Pin Messages), then the bot's previous
 * daily post unpinned. The scheduler asks for it once the post is made and recorded (src/schedule/pin-follow-ups.ts):
 * a failure comes back as what failed (the scheduler records it with the day's post, logs it, counts it and shows it
 * in the status), never as a failed post, so it is never posted again. The scheduler asks for no pin in a DM or a
 * forum (src/schedule/delivery.ts), so every target is a channel's message.
 * Each request takes a turn of the posts' pace first, at the `after` priority: pins count against Discord's global
 * limit as posts do (a fan-out with a tenth of its channels pinned met 41 global 429s before they did). A turn that
 * cannot be had is the pin's failure with the posts' reason for it (`noTurn`). In cluster mode the posts' pace is the
 * client's shared one (client.ts), which gives these requests `after` turns by their route (globalTurnPriority).
 */
export function dailyPins(rest: REST, { takeTurn }: Pick<PostTurns, 'takeTurn'>): (target: PinTarget) => Promise<PinFailure[]> {
  return async (target) => {
    const problems: PinFailure[] = [];
    let mayPin = true;
    try {
      await takeTurn('after');
      await rest.put(Routes.channelMessagesPin(target.channelId, target.messageId));
    } catch (error) {
      mayPin = !isMissingPermissions(error);
      problems.push(pinProblem('pin', error, target));
    }
    const unpin = target.unpin;
    // Without the permission the unpin would fail the same way: said once.
    if (mayPin && unpin && unpin !== target.messageId) {
      try {
        await takeTurn('after');
        await rest.delete(Routes.channelMessagesPin(target.channelId, unpin));
      } catch (error) {
        // Yesterday's post deleted since: nothing is left to unpin.
        if (!(error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownMessage)) problems.push(pinProblem('unpin', error, target));
      }
    }
    return problems;
  };
}

function isMissingPermissions(error: unknown): boolean {
  return error instanceof DiscordAPIError && (error.code === RESTJSONErrorCodes.MissingPermissions || error.code === RESTJSONErrorCodes.MissingAccess);
}

/** Missing Pin Messages in #words, a full channel's pins, or Discord's reason for another failure. */
function pinProblem(what: 'pin' | 'unpin', error: unknown, target: PinTarget): PinFailure {
  return { what, reason: pinReason(error, target) };
}

function pinReason(error: unknown, target: PinTarget): FailureReason {
  if (isMissingPermissions(error)) {
    return { kind: 'missingPermission', permission: 'PinMessages', ...(target.channelName ? { channelName: clip(target.channelName, 100) } : {}) };
  }
  if (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.MaximumNumberOfPinsReachedForTheChannel) return { kind: 'pinLimit' };
  return classifyPostError(error).reason;
}
