import { DiscordAPIError, HTTPError, RESTJSONErrorCodes } from 'discord.js';
import { reasonText, type FailureReason } from '../schedule/failure-reason.ts';
import { DeliveryError } from '../schedule/poster.ts';

/**
 * What a request of a daily post (its post, pin, look-up…) that failed means for it, in the scheduler's kinds of
 * failure, with a reason an admin can read.
 */

/**
 * A 400 (50035 Invalid Form Body, 50006 empty message…) or 413: Discord will not take this message as it is, so the
 * day is recorded as refused with Discord's code and message rather than retried all day.
 */
function refusedBy(error: DiscordAPIError): DeliveryError {
  const answer = answerOf(error);
  return new DeliveryError('refused', { kind: 'refused', ...answer }, { cause: error, refusal: answer });
}

/** Discord's answer as a reason keeps it: its status, its JSON error code (0 when it gave none) and its own words. */
function answerOf(error: DiscordAPIError): { status: number; code: number; message: string } {
  const code = typeof error.code === 'number' && Number.isSafeInteger(error.code) && error.code >= 0 ? error.code : 0;
  const status = Number.isInteger(error.status) && error.status >= 100 && error.status <= 599 ? error.status : 500;
  return { status, code, message: reasonText(error.message) || `HTTP ${status}` };
}

/** Discord's JSON error codes whose meaning is a reason of its own, by the kind of failure they are. */
const CODED: ReadonlyMap<number, { kind: 'gone' | 'forbidden'; reason: FailureReason }> = new Map([
  // A member's DMs: closed to the bot, or no longer reachable (no shared server and no user install). Switched off at
  // once rather than retried for days; the member is told at their next command.
  [RESTJSONErrorCodes.CannotSendMessagesToThisUser, { kind: 'gone', reason: { kind: 'dmsClosed' } }],
  [RESTJSONErrorCodes.CannotSendMessagesToThisUserDueToHavingNoMutualGuilds, { kind: 'gone', reason: { kind: 'noSharedServer' } }],
  [RESTJSONErrorCodes.UnknownUser, { kind: 'gone', reason: { kind: 'userGone' } }],
  [RESTJSONErrorCodes.MissingAccess, { kind: 'forbidden', reason: { kind: 'missingAccess' } }],
  [RESTJSONErrorCodes.MissingPermissions, { kind: 'forbidden', reason: { kind: 'missingPermissions' } }],
  [RESTJSONErrorCodes.UnknownChannel, { kind: 'gone', reason: { kind: 'channelGone' } }],
  [RESTJSONErrorCodes.UnknownGuild, { kind: 'gone', reason: { kind: 'serverGone' } }],
]);

export function classifyPostError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof DiscordAPIError) {
    const coded = typeof error.code === 'number' ? CODED.get(error.code) : undefined;
    if (coded) return new DeliveryError(coded.kind, coded.reason, { cause: error });
    if (error.status === 400 || error.status === 413) return refusedBy(error);
    if (error.status === 403) return new DeliveryError('forbidden', { kind: 'forbidden', ...answerOf(error) }, { cause: error });
    if (error.status === 404) return new DeliveryError('gone', { kind: 'notFound', ...answerOf(error) }, { cause: error });
    // A 5xx, or any other 4xx (401: the token, 405, 409…), says nothing final about this post: retried later the same day.
    return new DeliveryError('transient', { kind: 'discordError', ...answerOf(error) }, { cause: error });
  }
  if (error instanceof HTTPError) {
    return new DeliveryError('transient', { kind: 'httpStatus', status: error.status >= 100 && error.status <= 599 ? error.status : 500 }, { cause: error });
  }
  if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) {
    return new DeliveryError('transient', { kind: 'timeout' }, { cause: error });
  }
  return new DeliveryError('transient', { kind: 'unreachable', detail: reasonText(error instanceof Error ? error.message : String(error)) }, { cause: error });
}
