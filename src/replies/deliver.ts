import type { ButtonContext, OutgoingMessage, Respondable } from './interactions.ts';
import type { Logger } from '../config/logger.ts';
import { isWotdError } from '../wotd/errors.ts';
import type { LookupOptions } from '../wotd/lookup.ts';
import { failureMessage, type FailureSubject } from './messages.ts';
import { Deadline, DeadlineQueue } from './deadlines.ts';

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

/** An answer being waited for, queued for its deferral. */
class PendingAnswer extends Deadline {
  deferral: Promise<void> | undefined;

  constructor(readonly target: Respondable) {
    super();
  }
}

function deferIfUnanswered(pending: PendingAnswer): void {
  if (pending.target.acknowledged) return;
  pending.deferral = pending.target.defer();
  // Heard in deliver, once the answer is in; not an unhandled rejection meanwhile.
  pending.deferral.catch(ignore);
}

function ignore(): void {}

/** One queue (one timer) per deferral delay: nearly always only DEFER_AFTER_MS's. */
const deferrals = new Map<number, DeadlineQueue<PendingAnswer>>();

function deferralsAfter(ms: number): DeadlineQueue<PendingAnswer> {
  let queue = deferrals.get(ms);
  if (!queue) {
    queue = new DeadlineQueue(ms, deferIfUnanswered);
    deferrals.set(ms, queue);
  }
  return queue;
}

/**
 * Waits for an answer and sends it, acknowledging in time: an answer ready within `deferAfterMs` (a cached one)
 * is sent at once; otherwise the interaction is deferred first and the answer follows. A failure becomes its
 * specific private message. A successful answer replies (`respond`), or, given the `button` pressed, replaces its
 * message: a public answer always, a private one when `replacePrivate`. Failures always go through `respond`.
 */
async function deliver(
  target: Respondable,
  button: ButtonContext | null,
  replacePrivate: boolean,
  answer: Promise<OutgoingMessage>,
  options: DeliverOptions,
): Promise<void> {
  // The deferral is started by the queue's timer rather than raced against the answer: per interaction that is
  // no timer and no extra promises, and most answers (cached ones) are ready long before it would fire.
  const queue = deferralsAfter(options.deferAfterMs ?? DEFER_AFTER_MS);
  const pending = new PendingAnswer(target);
  queue.add(pending);
  let message: OutgoingMessage;
  try {
    message = await answer;
  } catch (error) {
    queue.cancel(pending);
    if (pending.deferral) await pending.deferral;
    if (!isWotdError(error)) options.logger?.error({ err: error }, 'command failed');
    await target.respond(failureMessage(error, options.subject, target.invoker.locale));
    return;
  }
  queue.cancel(pending);
  if (pending.deferral) await pending.deferral;
  if (button && (replacePrivate || !message.ephemeral)) await button.update(message);
  else await target.respond(message);
}

/** Answers a slash command: the answer replies (or edits the deferred reply). */
export function replyWhenReady(target: Respondable, answer: Promise<OutgoingMessage>, options: DeliverOptions = {}): Promise<void> {
  return deliver(target, null, false, answer, options);
}

/** Answers a button press: a public answer replaces the button's message, a private one is sent beside it. */
export function updateWhenReady(target: ButtonContext, answer: Promise<OutgoingMessage>, options: DeliverOptions = {}): Promise<void> {
  return deliver(target, target, false, answer, options);
}

/**
 * Answers a button press by replacing the button's message in place, private or public alike (a private message is
 * the presser's own: /wotd-review's next step); a failure still comes as its own private message.
 */
export function replaceWhenReady(target: ButtonContext, answer: Promise<OutgoingMessage>, options: DeliverOptions = {}): Promise<void> {
  return deliver(target, target, true, answer, options);
}
