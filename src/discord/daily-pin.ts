import { DiscordAPIError, RESTJSONErrorCodes, Routes, type REST } from 'discord.js';
import { clip } from '../schedule/discord-limits.ts';
import type { DailyMessage, PostResult } from '../schedule/poster.ts';
import { dmUserOf } from '../schedule/subscription.ts';
import { classifyPostError } from './channel-poster.ts';

/**
 * The `pin` setting: today's post pinned (PUT /channels/:id/messages/pins/:id, Pin Messages), then the bot's previous
 * daily post unpinned. The post is made whatever happens here: a failure comes back as the post's `pinFailure` (the
 * scheduler logs it, counts it and shows it in the status), never as a failed post, so it is never posted again.
 */
export function dailyPins(rest: REST): (message: DailyMessage, posted: PostResult) => Promise<PostResult> {
  return async (message, posted) => {
    if (!message.pin || message.forumPost || dmUserOf(message.channelId) !== null) return posted;
    const problems: string[] = [];
    let mayPin = true;
    try {
      await rest.put(Routes.channelMessagesPin(message.channelId, posted.messageId));
    } catch (error) {
      mayPin = !isMissingPermissions(error);
      problems.push(pinProblem('pin', error, message));
    }
    const unpin = message.pin.unpin;
    // Without the permission the unpin would fail the same way: said once.
    if (mayPin && unpin && unpin !== posted.messageId) {
      try {
        await rest.delete(Routes.channelMessagesPin(message.channelId, unpin));
      } catch (error) {
        // Yesterday's post deleted since: nothing is left to unpin.
        if (!(error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.UnknownMessage)) problems.push(pinProblem('unpin', error, message));
      }
    }
    return problems.length > 0 ? { ...posted, pinFailure: problems.join('; ') } : posted;
  };
}

function isMissingPermissions(error: unknown): boolean {
  return error instanceof DiscordAPIError && (error.code === RESTJSONErrorCodes.MissingPermissions || error.code === RESTJSONErrorCodes.MissingAccess);
}

/** "Missing Pin Messages in #words: today's post was not pinned", or Discord's reason for another failure. */
function pinProblem(what: 'pin' | 'unpin', error: unknown, message: DailyMessage): string {
  const done = what === 'pin' ? "today's post was not pinned" : "the previous post was not unpinned";
  if (isMissingPermissions(error)) return `Missing Pin Messages in ${message.channelName ? `#${clip(message.channelName, 100)}` : 'the channel'}: ${done}`;
  if (error instanceof DiscordAPIError && error.code === RESTJSONErrorCodes.MaximumNumberOfPinsReachedForTheChannel) {
    return `The channel has as many pins as Discord allows: ${done}`;
  }
  return `${classifyPostError(error).reason}: ${done}`;
}
