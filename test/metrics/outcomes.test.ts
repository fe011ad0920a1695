import { describe, expect, it } from 'vitest';
import { outcomeOf, worseOutcome } from '../../src/replies/interaction-outcome.ts';
import { failureMessage, invalidDateMessage, notRevealedMessage, privateNote, userError } from '../../src/replies/messages.ts';
import { WotdError } from '../../src/wotd/errors.ts';

describe('how a reply counts in the metrics', () => {
  it('marks a failure by whose it is: the member\'s request, the service, or a fault of ours', () => {
    const outcome = (error: unknown) => outcomeOf(failureMessage(error, { date: '2025-01-01' }));
    expect(outcome(new WotdError('not_found', 'x'))).toBe('user_error');
    expect(outcome(new WotdError('future_date', 'x'))).toBe('user_error');
    expect(outcome(new WotdError('invalid_input', 'x'))).toBe('user_error');
    expect(outcome(new WotdError('rate_limited', 'x'))).toBe('upstream_error');
    expect(outcome(new WotdError('unavailable', 'x'))).toBe('upstream_error');
    expect(outcome(new WotdError('bad_response', 'x'))).toBe('upstream_error');
    expect(outcome(new TypeError('boom'))).toBe('internal_error');
  });

  it('marks refusals, leaves answers unmarked, and keeps the message itself as it was', () => {
    expect(outcomeOf(userError('Choose the channel to post in.'))).toBe('user_error');
    expect(outcomeOf(invalidDateMessage('someday', null))).toBe('user_error');
    expect(outcomeOf(notRevealedMessage('2099-01-01'))).toBe('user_error');
    expect(outcomeOf(privateNote('Unsubscribed #words.'))).toBeUndefined();
    expect(userError('Choose the channel to post in.')).toEqual({ content: 'Choose the channel to post in.', ephemeral: true });
  });

  it('keeps the worse of two outcomes', () => {
    expect(worseOutcome('ok', 'user_error')).toBe('user_error');
    expect(worseOutcome('upstream_error', 'user_error')).toBe('upstream_error');
    expect(worseOutcome('user_error', 'internal_error')).toBe('internal_error');
  });
});
