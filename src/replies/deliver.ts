import type { ButtonContext, OutgoingMessage, Respondable } from '../interactions.ts';
import type { Logger } from '../logger.ts';
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

type Outcome = { ok: true; message: OutgoingMessage } | { ok: false; error: unknown };

const SLOW = Symbol('slow');

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
  const outcome: Promise<Outcome> = answer.then(
    (message) => ({ ok: true, message }),
    (error: unknown) => ({ ok: false, error }),
  );
  let timer: NodeJS.Timeout | undefined;
  const slow = new Promise<typeof SLOW>((resolve) => {
    timer = setTimeout(() => resolve(SLOW), options.deferAfterMs ?? DEFER_AFTER_MS);
  });
  const first = await Promise.race([outcome, slow]);
  clearTimeout(timer);
  if (first === SLOW && !target.acknowledged) await target.defer();
  const result = await outcome;
  if (result.ok) {
    await send(result.message);
    return;
  }
  const message = failureMessage(result.error, options.subject);
  if (!isWotdError(result.error)) options.logger?.error({ err: result.error }, 'command failed');
  await target.respond(message);
}

/** Answers a slash command: the answer replies (or edits the deferred reply). */
export function replyWhenReady(target: Respondable, answer: Promise<OutgoingMessage>, options: DeliverOptions = {}): Promise<void> {
  return deliver(target, answer, (message) => target.respond(message), options);
}

/** Answers a button press: a public answer replaces the button's message, a private one is sent beside it. */
export function updateWhenReady(target: ButtonContext, answer: Promise<OutgoingMessage>, options: DeliverOptions = {}): Promise<void> {
  return deliver(target, answer, (message) => (message.ephemeral ? target.respond(message) : target.update(message)), options);
}
