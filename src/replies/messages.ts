import { markOutcome, type InteractionOutcome } from './interaction-outcome.ts';
import type { OutgoingMessage } from './interactions.ts';
import { escapeText, clip } from './embeds.ts';
import { isWotdError } from '../wotd/errors.ts';
import { utcDateOf, type IsoDate } from '../wotd/dates.ts';
import { describeDate, discordTimestamp, revealedSoon, revealInstant } from './date-text.ts';

/** How to write a date, shown whenever one could not be read. */
export const DATE_HELP = 'Write it as `2025-01-14` (YYYY-MM-DD), `14-01-2025` (DD-MM-YYYY), `today` or `yesterday`.';

/** Text a member typed, safe to quote back: short, escaped, on one line. */
export function quoteInput(text: string): string {
  return escapeText(clip(text.replace(/\s+/g, ' '), 40));
}

export function privateNote(content: string): OutgoingMessage {
  return { content, ephemeral: true };
}

/** A private refusal of a request that cannot be met as asked (counted as a user error in the metrics). */
export function userError(content: string): OutgoingMessage {
  return markOutcome({ content, ephemeral: true }, 'user_error');
}

export function invalidDateMessage(text: string, realDay: false | null): OutgoingMessage {
  const what = realDay === false ? 'is not a real calendar day' : 'is not a date I can read';
  return userError(`“${quoteInput(text)}” ${what}. ${DATE_HELP}`);
}

/** A day after `today` (the service's day; by default this machine's UTC day): when it is revealed, or that it is not yet there. */
export function notRevealedMessage(date: IsoDate, today: IsoDate = utcDateOf(new Date())): OutgoingMessage {
  if (!revealedSoon(date, today)) {
    return userError(`There is no word of the day for ${describeDate(date)} yet: the service reveals each day's word on that day (UTC).`);
  }
  const reveal = revealInstant(date);
  return userError(
    `The word of the day for ${describeDate(date)} has not been revealed yet. ` +
      `It will be ${discordTimestamp(reveal, 'R')} (${discordTimestamp(reveal, 'f')}).`,
  );
}

/** What a failure was about, so the message can name it. */
export interface FailureSubject {
  /** The day asked for. */
  date?: IsoDate;
  /** Entries before this day were asked for. */
  before?: IsoDate;
}

/**
 * The one message a member sees when a lookup fails: specific, private, and never a stack trace.
 * Anything that is not a WotdError is a fault of ours and gets a generic apology (the caller logs it).
 */
export function failureMessage(error: unknown, subject: FailureSubject = {}): OutgoingMessage {
  return markOutcome(failureNote(error, subject), failureOutcome(error));
}

/** How a failed lookup counts in the metrics: the member's request, the service, or a fault of ours. */
export function failureOutcome(error: unknown): Exclude<InteractionOutcome, 'ok'> {
  if (!isWotdError(error)) return 'internal_error';
  switch (error.code) {
    case 'not_found':
    case 'future_date':
    case 'invalid_input':
      return 'user_error';
    case 'rate_limited':
    case 'unavailable':
    case 'bad_response':
      return 'upstream_error';
  }
}

function failureNote(error: unknown, subject: FailureSubject): OutgoingMessage {
  if (!isWotdError(error)) {
    return privateNote('Something went wrong on my side while answering. Please try again in a moment.');
  }
  switch (error.code) {
    case 'not_found':
      if (subject.date) return privateNote(`There is no word of the day for ${describeDate(subject.date)}.`);
      if (subject.before) return privateNote(`There are no words of the day before ${describeDate(subject.before)}.`);
      return privateNote('The Word-of-the-Day service has nothing for that.');
    case 'future_date':
      if (subject.date) return notRevealedMessage(subject.date);
      if (subject.before) return notRevealedMessage(subject.before);
      return privateNote('That day’s word has not been revealed yet.');
    case 'invalid_input':
      return privateNote(`The Word-of-the-Day service did not accept that request. ${DATE_HELP}`);
    case 'rate_limited': {
      const when = error.retryAt ? discordTimestamp(error.retryAt, 'R') : 'in a minute';
      return privateNote(`The Word-of-the-Day service is busy right now. Please try again ${when}.`);
    }
    case 'unavailable':
      return privateNote('The Word-of-the-Day service cannot be reached right now. Please try again later.');
    case 'bad_response':
      return privateNote('The Word-of-the-Day service sent an answer I could not make sense of. Please try again later.');
  }
}

/** Added to an answer served from the cache because the service is failing. */
export const STALE_NOTE = '⚠️ The Word-of-the-Day service is not answering, so this comes from my cache and may be out of date.';
