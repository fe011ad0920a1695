/**
 * The lookup CLI's wait for the service's rate limit: one line on standard error with the wait in seconds and the
 * local time it ends, counting down in place on a terminal, then cleared.
 */

/** Where the line goes: standard error, a terminal or not. */
export interface WaitStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface RetryWaitOptions {
  stream: WaitStream;
  /** Epoch ms. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** A clock time as this machine shows it: 19:18:04 (24-hour, local time zone). */
export function localClockTime(instant: Date): string {
  return new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false }).format(instant);
}

/** Whole seconds from `now` to `until`, at least 1 (a wait under a second still reads "1 s"). */
export function secondsUntil(until: number, now: number): number {
  return Math.max(1, Math.ceil((until - now) / 1000));
}

/** "busy; waiting 12 s (until 19:18:04)": what the wait line says, at one moment of the countdown. */
export function waitingText(until: Date, now: number): string {
  return `the Word-of-the-Day service is busy (rate limit); waiting ${secondsUntil(until.getTime(), now)} s (until ${localClockTime(until)})`;
}

/** "try again in 245 s (at 19:22:04)": for a wait longer than the CLI takes on itself. */
export function tryAgainText(until: Date, now: number): string {
  return `the Word-of-the-Day service is busy (rate limit); try again in ${secondsUntil(until.getTime(), now)} s (at ${localClockTime(until)})`;
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits until `until`, saying so once (and counting down each second on a terminal). */
export async function waitForRetry(until: Date, options: RetryWaitOptions): Promise<void> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? sleepFor;
  const { stream } = options;
  const end = until.getTime();
  if (!stream.isTTY) {
    stream.write(`wotd-bot: ${waitingText(until, now())}\n`);
    const left = end - now();
    if (left > 0) await sleep(left);
    return;
  }
  for (let left = end - now(); left > 0; left = end - now()) {
    stream.write(`\r\u001b[Kwotd-bot: ${waitingText(until, now())}`);
    // To the next whole second of the countdown, so the number steps once a second.
    await sleep(Math.min(left, left % 1000 || 1000));
  }
  stream.write('\r\u001b[K');
}
