/**
 * The login's back-off (see login-retry.ts for which failures are retried): its delays, its internal setting and
 * its wait. Free of discord.js, so `start` can check the setting before loading it.
 */
export const LOGIN_BACKOFF_CAP_MS = 60_000;
export const DEFAULT_LOGIN_BACKOFF_BASE_MS = 1_000;
/** Internal: the first delay's ceiling, for tests that must not wait seconds. Whole ms, clamped to 1..the cap. */
export const LOGIN_BACKOFF_SETTING = 'WOTD_INTERNAL_LOGIN_BACKOFF_MS';

/** Full jitter: a uniform delay below min(cap, base * 2^attempt), attempt counting from 0. */
export function loginBackoffMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(LOGIN_BACKOFF_CAP_MS, baseMs * 2 ** Math.min(Math.max(0, attempt), 30));
  return Math.floor(Math.min(Math.max(random(), 0), 1) * ceiling);
}

export class LoginSettingError extends Error {
  override readonly name = 'LoginSettingError';
}

/** The base delay from the internal setting: unset is the default; a non-number is refused; a number is clamped. */
export function loginBackoffBaseMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[LOGIN_BACKOFF_SETTING]?.trim();
  if (!raw) return DEFAULT_LOGIN_BACKOFF_BASE_MS;
  if (!/^\d{1,16}$/.test(raw)) {
    throw new LoginSettingError(`Invalid ${LOGIN_BACKOFF_SETTING}: expected a whole number of milliseconds from 1 to ${LOGIN_BACKOFF_CAP_MS}`);
  }
  return Math.min(Math.max(Number(raw), 1), LOGIN_BACKOFF_CAP_MS);
}

/** Waits `ms`; resolves false at once when `signal` aborts (before or during the wait), true otherwise. */
export function waitUnlessAborted(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class LoginAbortedError extends Error {
  override readonly name = 'LoginAbortedError';
  constructor() {
    super('logging in to Discord was given up (stopping)');
  }
}
