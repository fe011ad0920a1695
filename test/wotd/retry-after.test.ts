import Keyv from 'keyv';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderTimestamps } from '../../src/console/render.ts';
import { failureMessage } from '../../src/replies/messages.ts';
import { createWotdAdapter, type WotdAdapter } from '../../src/wotd/adapter.ts';
import { getJson, MAX_RETRY_AFTER_MS, parseRetryAfter } from '../../src/wotd/http-client.ts';
import { ManualClock } from '../support/upstream/manual-clock.ts';
import { startScriptedUpstream, type ScriptedReply, type ScriptedUpstream } from '../support/upstream/scripted-upstream.ts';
import { drive, failure } from './harness.ts';

/**
 * Issue 20, finding 1: whatever Retry-After the service sends, on a 429 or a 503, no request is held back longer
 * than MAX_RETRY_AFTER_MS (5 minutes), no timer overflows, no Date is invalid, the "busy" reply names a time at
 * most 5 minutes away, and the lookup after the service recovers is answered.
 */

const TODAY = '2024-06-15';
const NOW = `${TODAY}T12:00:00Z`;
const ENTRY = { date: TODAY, word: 'aplomb', pos: 'noun', ipa: '/əˈplɒm/', definition: 'self-confidence' };
const ok: ScriptedReply = { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(ENTRY) };
const refusal = (status: 429 | 503, retryAfter: string): ScriptedReply => ({
  status,
  headers: { 'retry-after': retryAfter, 'content-type': 'text/html' },
  body: '<html><body>Too busy</body></html>',
});

let upstream: ScriptedUpstream;
let adapter: WotdAdapter | undefined;
const warnings: Error[] = [];
const onWarning = (warning: Error): void => {
  warnings.push(warning);
};

beforeAll(async () => {
  upstream = await startScriptedUpstream(() => ok);
  process.on('warning', onWarning);
});

afterAll(async () => {
  process.off('warning', onWarning);
  await upstream.close();
});

afterEach(async () => {
  await adapter?.close();
  adapter = undefined;
  expect(warnings.filter((warning) => warning.name === 'TimeoutOverflowWarning').map((warning) => warning.message)).toEqual([]);
  warnings.length = 0;
});

/** Refuses the first `times` requests with `reply`, then answers today's entry. */
function refuseThenRecover(reply: ScriptedReply, times = 1): void {
  let refused = 0;
  upstream.reset(() => (refused++ < times ? reply : ok));
}

describe('parseRetryAfter', () => {
  const now = Date.parse(NOW);
  it.each([
    ['0', 0],
    ['1', 1_000],
    ['1.5', 1_500],
    ['  120 ', 120_000],
    ['300', MAX_RETRY_AFTER_MS],
    ['86400', MAX_RETRY_AFTER_MS],
    ['99999999999', MAX_RETRY_AFTER_MS],
    ['1000000000000000', MAX_RETRY_AFTER_MS],
    ['9'.repeat(400), MAX_RETRY_AFTER_MS],
    ['Sat, 15 Jun 2024 12:01:00 GMT', 60_000],
    ['Saturday, 15-Jun-24 12:02:00 GMT', 120_000],
    ['Sat Jun 15 12:00:30 2024', 30_000],
    ['Sat Jun  1 12:00:30 2024', 0],
    ['Fri, 31 Dec 9999 23:59:59 GMT', MAX_RETRY_AFTER_MS],
    ['Mon, 01 Jan 1900 00:00:00 GMT', 0],
  ])('reads %j as %d ms', (header, expected) => {
    expect(parseRetryAfter(header, now)).toBe(expected);
  });

  it.each(['', '-5', '-0.5', '1e15', 'soon', '1.5.2', 'Infinity', 'NaN', '0x10', 'Sat, 31 Feb 2024 12:00:00 GMT', 'x 2', 'Sat, 15 Jun 2024 25:00:00 GMT'])(
    'finds %j unreadable (the caller uses its default)',
    (header) => {
      expect(parseRetryAfter(header, now)).toBeNull();
    },
  );

  it('is null without the header', () => {
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});

describe('Retry-After through the HTTP client and the adapter on loopback', () => {
  it('hands the adapter a 429 or 503 Retry-After already clamped to 5 minutes', async () => {
    for (const status of [429, 503] as const) {
      upstream.reset(() => refusal(status, '99999999999'));
      const attempt = await getJson(`${upstream.url}/query`, { timeoutMs: 2_000, now: Date.now() });
      expect(attempt).toMatchObject({ retryAfterMs: MAX_RETRY_AFTER_MS });
    }
  });

  it('answers a lookup met by 429 "Retry-After: 99999999999" with "busy" naming a time at most 5 minutes away, on real timers', async () => {
    upstream.reset(() => refusal(429, '99999999999'));
    adapter = await createWotdAdapter({ baseUrl: upstream.url, store: new Keyv(), variant: 'A', retryDelayMs: 0 });
    const started = Date.now();
    const error = await failure(adapter.getEntry(undefined, { priority: 'interactive', maxWaitMs: 200 }));
    expect(error.code).toBe('rate_limited');
    const retryAt = error.retryAt?.getTime() ?? Number.NaN;
    expect(retryAt).toBeGreaterThanOrEqual(started);
    expect(retryAt).toBeLessThanOrEqual(Date.now() + MAX_RETRY_AFTER_MS);
    expect(error.message).toMatch(/retry at \d{4}-\d\d-\d\dT/);
    // The member's reply, as the console shows it: a near, human time.
    const reply = failureMessage(error).content ?? '';
    expect(renderTimestamps(reply, new Date())).toMatch(/^The Word-of-the-Day service is busy right now\. Please try again in [1-5] minutes?\.$/);
  });

  it('does not throw or hang on "Retry-After: 1000000000000000" (seconds past the largest Date) for a waiting lookup', async () => {
    upstream.reset(() => refusal(429, '1000000000000000'));
    adapter = await createWotdAdapter({ baseUrl: upstream.url, store: new Keyv(), variant: 'A', retryDelayMs: 0 });
    const error = await failure(adapter.getEntry(undefined, { priority: 'interactive', maxWaitMs: 200 }));
    expect(error.code).toBe('rate_limited');
    expect(error.retryAt?.getTime()).toBeLessThanOrEqual(Date.now() + MAX_RETRY_AFTER_MS);
    // The pause is 5 minutes, not forever: a later lookup queues behind it, and is told so.
    const later = await failure(adapter.getEntry('2024-06-01', { priority: 'interactive', maxWaitMs: 200 }));
    expect(later.retryAt?.getTime()).toBeLessThanOrEqual(Date.now() + MAX_RETRY_AFTER_MS);
  });

  it.each([
    [429, '86400'],
    [429, '99999999999'],
    [429, 'Fri, 31 Dec 9999 23:59:59 GMT'],
    [503, '1000000000000000'],
  ] as const)('holds the daily fetch after a %d with Retry-After %j back at most 5 minutes, then answers it', async (status, header) => {
    const clock = new ManualClock(NOW);
    refuseThenRecover(refusal(status, header));
    adapter = await createWotdAdapter({ baseUrl: upstream.url, store: new Keyv(), variant: 'A', retryDelayMs: 0, now: clock.now, timers: clock });
    const { value } = await drive(clock, adapter, adapter.getEntry(TODAY, { priority: 'scheduled' }));
    expect(value).toEqual(ENTRY);
    expect(clock.ms - Date.parse(NOW)).toBeLessThanOrEqual(MAX_RETRY_AFTER_MS);
    expect(upstream.requests.map((request) => request.status)).toEqual([status, 200]);
  });

  it('answers the next lookup once the service recovers after a refused one', async () => {
    const clock = new ManualClock(NOW);
    refuseThenRecover(refusal(429, '99999999999'), 2);
    adapter = await createWotdAdapter({ baseUrl: upstream.url, store: new Keyv(), variant: 'A', retryDelayMs: 0, now: clock.now, timers: clock });
    const busy = await failure(drive(clock, adapter, adapter.getEntry(TODAY, { priority: 'scheduled' })));
    expect(busy.code).toBe('rate_limited');
    expect((busy.retryAt?.getTime() ?? Number.NaN) - clock.ms).toBeLessThanOrEqual(MAX_RETRY_AFTER_MS);
    const { value } = await drive(clock, adapter, adapter.getEntry(TODAY, { priority: 'interactive' }));
    expect(value).toEqual(ENTRY);
    expect(clock.ms - Date.parse(NOW)).toBeLessThanOrEqual(2 * MAX_RETRY_AFTER_MS);
  });
});
