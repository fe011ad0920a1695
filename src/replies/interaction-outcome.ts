/**
 * How an interaction ended, as the router reports it to an observer (metrics, benchmarks). Nothing here knows
 * discord.js or prom-client.
 */

/**
 * ok: answered as asked. user_error: the request could not be met as asked (a bad or future date, nothing found,
 * a missing permission, a stale button). upstream_error: the Word-of-the-Day service failed or was busy.
 * internal_error: a fault of ours (a handler threw, or finished without answering).
 */
export type InteractionOutcome = 'ok' | 'user_error' | 'upstream_error' | 'internal_error';

export type InteractionKind = 'command' | 'button' | 'modal' | 'autocomplete';

export interface InteractionDone {
  interactionId: string;
  kind: InteractionKind;
  /** The command's name (a button: its custom-id prefix); 'unknown' for one the bot does not handle. */
  name: string;
  outcome: InteractionOutcome;
  /** performance.now() when the router got the interaction. */
  receivedAt: number;
  /** performance.now() when the first acknowledgement (reply, deferral, update, choices) was accepted; null if none. */
  firstResponseAt: number | null;
  /** performance.now() when the first acknowledgement was handed to discord.js to send (the bot's own time ends here); null if none. */
  firstSentAt: number | null;
  /** performance.now() when the handler had finished and everything it sent was accepted. */
  doneAt: number;
}

/** Called once per interaction; it must not throw. */
export type InteractionObserver = (event: InteractionDone) => void;

const SEVERITY: Record<InteractionOutcome, number> = { ok: 0, user_error: 1, upstream_error: 2, internal_error: 3 };

/** The more serious of two outcomes: one interaction that sent an error and then failed counts as the failure. */
export function worseOutcome(a: InteractionOutcome, b: InteractionOutcome): InteractionOutcome {
  return SEVERITY[b] > SEVERITY[a] ? b : a;
}

/**
 * A refusal or failure message carries its outcome beside it, not in it: the message's shape (what transports render
 * and tests compare) stays the same, and the router's observer looks the mark up when the message is sent. A copy
 * of a message (a spread) has no mark; mark the copy.
 */
const marks = new WeakMap<object, Exclude<InteractionOutcome, 'ok'>>();

export function markOutcome<T extends object>(message: T, outcome: Exclude<InteractionOutcome, 'ok'>): T {
  marks.set(message, outcome);
  return message;
}

/** The outcome a message was marked with; undefined for an ordinary answer. */
export function outcomeOf(message: object): Exclude<InteractionOutcome, 'ok'> | undefined {
  return marks.get(message);
}
