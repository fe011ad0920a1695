import type { ButtonContext, OutgoingMessage, Respondable } from './interactions.ts';
import type { Logger } from '../config/logger.ts';
import { isWotdError } from '../wotd/errors.ts';
import type { LookupOptions } from '../wotd/lookup.ts';
import { failureMessage, type FailureSubject } from './messages.ts';

/** An answer that is not ready this soon is deferred first, well inside Discord's 3-second deadline. */
export const DEFER_AFTER_MS = 150;

/**
 * How long a member's lookup may queue behind the rate limiter before the answer becomes "busy, try again at …".
 * Far inside the 15 minutes a deferred interaction can still be answered.
 */
export const INTERACTIVE_MAX_WAIT_MS = 10_000;

export const INTERACTIVE: LookupOptions = { priority: 'interactive', maxWaitMs: INTERACTIVE_MAX_WAIT_MS };

export interface DeliverOptions {
  /** What a failure was about, for its message. */
  subject?: FailureSubject;
  logger?: Logger;
  deferAfterMs?: number;
}

/**
 * Waits for an answer and sends it, acknowledging in time: an answer ready within `deferAfterMs` (a cached one)
 * is sent at once; otherwise the interaction is deferred first and the answer follows. A failure becomes its
 * specific private message. `send` delivers a successful answer; failures always go through `respond`.
 */
async function deliver(
  target: Respondable,
  answer: Promise<OutgoingMessage>,
  send: (message: OutgoingMessage) => Promise<void>,
  options: DeliverOptions,
): Promise<void> {
  // The deferral is started by the timer itself rather than raced against the answer: per interaction that is one
  // timer and no extra promises, and most answers (cached ones) are ready long before it would fire.
  let deferral: Promise<void> | undefined;
  const timer = setTimeout(() => {
    if (target.acknowledged) return;
    deferral = target.defer();
    // Heard below, once the answer is in; not an unhandled rejection meanwhile.
    deferral.catch(() => undefined);
  }, options.deferAfterMs ?? DEFER_AFTER_MS);
  let message: OutgoingMessage;
  try {
    message = await answer;
  } catch (error) {
    clearTimeout(timer);
    await deferral;
    if (!isWotdError(error)) options.logger?.error({ err: error }, 'command failed');
    await target.respond(failureMessage(error, options.subject, target.invoker.locale));
    return;
  }
  clearTimeout(timer);
  await deferral;
  await send(message);
}

/** Answers a slash command: the answer replies (or edits the deferred reply). */
export function replyWhenReady(target: Respondable, answer: Promise<OutgoingMessage>, options: DeliverOptions = {}): Promise<void> {
  return deliver(target, answer, (message) => target.respond(message), options);
}

/** Answers a button press: a public answer replaces the button's message, a private one is sent beside it. */
export function updateWhenReady(target: ButtonContext, answer: Promise<OutgoingMessage>, options: DeliverOptions = {}): Promise<void> {
  return deliver(target, answer, (message) => (message.ephemeral ? target.respond(message) : target.update(message)), options);
}

/**
 * Answers a button press by replacing the button's message in place, private or public alike (a private message is
 * the presser's own: /wotd-review's next step); a failure still comes as its own private message.
 */
export function replaceWhenReady(target: ButtonContext, answer: Promise<OutgoingMessage>, options: DeliverOptions = {}): Promise<void> {
  return deliver(target, answer, (message) => target.update(message), options);
}
