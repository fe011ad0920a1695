import { markOutcome, type InteractionOutcome } from './interaction-outcome.ts';
import type { OutgoingMessage } from './interactions.ts';
import { escapeText, clip } from './embeds.ts';
import { isWotdError } from '../wotd/errors.ts';
import { utcDateOf, type IsoDate } from '../wotd/dates.ts';
import { discordTimestamp, revealedSoon, revealInstant } from './date-text.ts';
import { longDate } from './i18n/formats.ts';
import { translatorFor, type Translate } from './i18n/translate.ts';

/** English, the texts of a reply whose caller names no language. */
const ENGLISH = translatorFor('en');

/** How to write a date, shown whenever one could not be read. */
export function dateHelp(t: Translate = ENGLISH): string {
  return t('date.help', { today: t('date.word.today'), yesterday: t('date.word.yesterday') });
}

/** How to write a date, in English. */
export const DATE_HELP = dateHelp();

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

export function invalidDateMessage(text: string, realDay: false | null, t: Translate = ENGLISH): OutgoingMessage {
  const key = realDay === false ? 'error.date.notReal' : 'error.date.unreadable';
  return userError(t(key, { text: quoteInput(text), help: dateHelp(t) }));
}

/** A day after `today` (the service's day; by default this machine's UTC day): when it is revealed, or that it is not yet there. */
export function notRevealedMessage(date: IsoDate, today: IsoDate = utcDateOf(new Date()), t: Translate = ENGLISH, locale?: string): OutgoingMessage {
  const day = longDate(date, locale);
  if (!revealedSoon(date, today)) return userError(t('error.date.notYetListed', { date: day }));
  const reveal = revealInstant(date);
  return userError(t('error.date.notRevealed', { date: day, relative: discordTimestamp(reveal, 'R'), absolute: discordTimestamp(reveal, 'f') }));
}

/** What a failure was about, so the message can name it. */
export interface FailureSubject {
  /** The day asked for. */
  date?: IsoDate;
  /** Entries before this day were asked for. */
  before?: IsoDate;
}

/**
 * The one message a member sees when a lookup fails: specific, private (so in the member's `locale`), and never a
 * stack trace. Anything that is not a WotdError is a fault of ours and gets a generic apology (the caller logs it).
 */
export function failureMessage(error: unknown, subject: FailureSubject = {}, locale?: string): OutgoingMessage {
  return markOutcome(failureNote(error, subject, locale), failureOutcome(error));
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

function failureNote(error: unknown, subject: FailureSubject, locale: string | undefined): OutgoingMessage {
  const t = translatorFor(locale);
  if (!isWotdError(error)) return privateNote(t('common.tryAgain'));
  switch (error.code) {
    case 'not_found':
      if (subject.date) return privateNote(t('error.noWordFor', { date: longDate(subject.date, locale) }));
      if (subject.before) return privateNote(t('error.noWordsBefore', { date: longDate(subject.before, locale) }));
      return privateNote(t('error.notFound'));
    case 'future_date':
      if (subject.date) return notRevealedMessage(subject.date, undefined, t, locale);
      if (subject.before) return notRevealedMessage(subject.before, undefined, t, locale);
      return privateNote(t('error.futureDate'));
    case 'invalid_input':
      return privateNote(t('error.invalidInput', { help: dateHelp(t) }));
    case 'rate_limited':
      return privateNote(error.retryAt ? t('error.rateLimitedUntil', { when: discordTimestamp(error.retryAt, 'R') }) : t('error.rateLimited'));
    case 'unavailable':
      return privateNote(t('error.unavailable'));
    case 'bad_response':
      return privateNote(t('error.badResponse'));
  }
}

/** Added to an answer served from the cache because the service is failing. */
export function staleNote(t: Translate = ENGLISH): string {
  return t('reply.stale');
}

/** The stale note in English. */
export const STALE_NOTE = staleNote();
