import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/config/logger.ts';
import { describeDate, readDateOption } from '../../src/replies/date-text.ts';
import { replyWhenReady } from '../../src/replies/deliver.ts';
import { failureMessage, notRevealedMessage } from '../../src/replies/messages.ts';
import { WotdError } from '../../src/wotd/errors.ts';
import { commandContext } from '../commands/recording-context.ts';

describe('date options', () => {
  it('reads both written forms, today and yesterday, and tells unreadable, impossible and future days apart', () => {
    expect(readDateOption(null, '2025-03-01')).toEqual({ kind: 'date', date: '2025-03-01' });
    expect(readDateOption('YESTERDAY', '2025-03-01')).toEqual({ kind: 'date', date: '2025-02-28' });
    expect(readDateOption('29-02-2024', '2025-03-01')).toEqual({ kind: 'date', date: '2024-02-29' });
    expect(readDateOption('2025-02-29', '2025-03-01')).toEqual({ kind: 'invalid', text: '2025-02-29', realDay: false });
    expect(readDateOption('tomorrow', '2025-03-01')).toEqual({ kind: 'invalid', text: 'tomorrow', realDay: null });
    expect(readDateOption('02-03-2025', '2025-03-01')).toEqual({ kind: 'future', date: '2025-03-02' });
    expect(describeDate('0999-12-31')).toBe('31 December 999');
  });
});

describe('failure messages', () => {
  it('are private and specific for every failure, and never show internals', () => {
    expect(failureMessage(new WotdError('rate_limited', 'x', new Date('2025-01-01T00:01:00Z')))).toEqual({
      content: 'The Word-of-the-Day service is busy right now. Please try again <t:1735689660:R>.',
      ephemeral: true,
    });
    expect(failureMessage(new WotdError('rate_limited', 'x')).content).toContain('try again in a minute');
    expect(failureMessage(new WotdError('bad_response', 'Unexpected token < in JSON')).content).toBe(
      'The Word-of-the-Day service sent an answer I could not make sense of. Please try again later.',
    );
    // Far ahead (here, of this machine's day) there is plainly no word yet; within a week, a countdown to its reveal.
    expect(failureMessage(new WotdError('future_date', 'x'), { date: '2999-01-01' }).content).toBe(
      "There is no word of the day for 1 January 2999 yet: the service reveals each day's word on that day (UTC).",
    );
    expect(notRevealedMessage('2098-01-01', '2026-01-01').content).toBe(
      "There is no word of the day for 1 January 2098 yet: the service reveals each day's word on that day (UTC).",
    );
    expect(notRevealedMessage('2026-01-08', '2026-01-01').content).toBe(
      `The word of the day for 8 January 2026 has not been revealed yet. It will be <t:${Date.UTC(2026, 0, 8) / 1000}:R> (<t:${Date.UTC(2026, 0, 8) / 1000}:f>).`,
    );
    expect(notRevealedMessage('2026-01-09', '2026-01-01').content).toMatch(/^There is no word of the day for 9 January 2026 yet/);
    const internal = failureMessage(new TypeError('Cannot read properties of undefined'));
    expect(internal).toEqual({ content: 'Something went wrong on my side while answering. Please try again in a moment.', ephemeral: true });
  });
});

describe('replyWhenReady', () => {
  it('answers a fault of ours with an apology and logs it, instead of throwing', async () => {
    const lines: string[] = [];
    const logger = createLogger({
      level: 'error',
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    });
    const context = commandContext('wotd');
    await replyWhenReady(context, Promise.reject(new TypeError('boom')), { logger });
    expect(context.recorder.answer.content).toBe('Something went wrong on my side while answering. Please try again in a moment.');
    expect(lines.join('')).toContain('boom');
  });

  it('defers only when the answer is not ready within the threshold', async () => {
    const quick = commandContext('wotd');
    await replyWhenReady(quick, Promise.resolve({ content: 'hi' }), { deferAfterMs: 1_000 });
    expect(quick.recorder.events).toEqual([{ kind: 'respond', message: { content: 'hi' } }]);
    const slow = commandContext('wotd');
    await replyWhenReady(slow, new Promise((resolve) => setTimeout(() => resolve({ content: 'late' }), 50)), { deferAfterMs: 0 });
    expect(slow.recorder.events).toEqual([
      { kind: 'defer', ephemeral: false },
      { kind: 'respond', message: { content: 'late' } },
    ]);
  });
});
