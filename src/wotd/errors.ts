/**
 * The small set of failures a caller of the Word-of-the-Day adapter must tell apart.
 * Each maps to one user-facing message; `retryAt` is set where waiting helps.
 */
export type WotdErrorCode =
  | 'not_found'
  | 'future_date'
  | 'invalid_input'
  | 'rate_limited'
  | 'unavailable'
  | 'bad_response';

export class WotdError extends Error {
  override readonly name = 'WotdError';

  constructor(
    readonly code: WotdErrorCode,
    message: string,
    readonly retryAt?: Date,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isWotdError(error: unknown, code?: WotdErrorCode): error is WotdError {
  return error instanceof WotdError && (code === undefined || error.code === code);
}
