import { WotdError } from './errors.ts';

/** A lookup that cannot be answered in time (limiter, shared budget or the service's 429): retry at `retryAtMs`. */
export function busy(retryAtMs: number, message = 'The Word-of-the-Day service is busy'): WotdError {
  const retryAt = new Date(retryAtMs);
  return new WotdError('rate_limited', `${message}; retry at ${retryAt.toISOString()}`, retryAt);
}
