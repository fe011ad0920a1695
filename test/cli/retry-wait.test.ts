import { describe, expect, it } from 'vitest';
import { localClockTime, waitForRetry } from '../../src/cli/retry-wait.ts';

/** A clock that only moves when the wait sleeps, and a stream standing in for standard error. */
function setting(isTTY: boolean, startMs: number) {
  let now = startMs;
  const written: string[] = [];
  const slept: number[] = [];
  return {
    written,
    slept,
    options: {
      stream: { isTTY, write: (text: string) => written.push(text) },
      now: () => now,
      sleep: async (ms: number) => {
        slept.push(ms);
        now += ms;
      },
    },
  };
}

describe('waiting for the rate limit', () => {
  const start = Date.UTC(2026, 10, 25, 19, 18, 0, 400);
  const until = new Date(start + 3_000);
  const at = localClockTime(until);

  it('counts down in place on a terminal, once a second, and clears the line at the end', async () => {
    const { written, slept, options } = setting(true, start);
    await waitForRetry(until, options);
    expect(written).toEqual([
      `\r\u001b[Kwotd-bot: the Word-of-the-Day service is busy (rate limit); waiting 3 s (until ${at})`,
      `\r\u001b[Kwotd-bot: the Word-of-the-Day service is busy (rate limit); waiting 2 s (until ${at})`,
      `\r\u001b[Kwotd-bot: the Word-of-the-Day service is busy (rate limit); waiting 1 s (until ${at})`,
      '\r\u001b[K',
    ]);
    expect(slept).toEqual([1_000, 1_000, 1_000]);
  });

  it('says it once, on its own line, when standard error is not a terminal', async () => {
    const { written, slept, options } = setting(false, start + 400);
    await waitForRetry(until, options);
    expect(written).toEqual([`wotd-bot: the Word-of-the-Day service is busy (rate limit); waiting 3 s (until ${at})\n`]);
    expect(slept).toEqual([2_600]);
  });
});
