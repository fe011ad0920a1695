import type { Attempt } from './http-client.ts';

/** One upstream attempt as the metrics count it. */
export type UpstreamResult =
  | 'ok'
  | 'not_found'
  /** 400 and other 4xx answers (429 is rate_limited). */
  | 'http_4xx'
  | 'http_5xx'
  | 'timeout'
  /** Connection refused, reset or otherwise lost. */
  | 'network'
  | 'rate_limited'
  /** A 2xx answer whose body was not usable, or an unexpected status outside 4xx and 5xx. */
  | 'bad_response';

export function upstreamResult(attempt: Attempt): UpstreamResult {
  switch (attempt.kind) {
    case 'ok':
    case 'not_found':
    case 'rate_limited':
      return attempt.kind;
    case 'bad_request':
      return 'http_4xx';
    case 'retryable':
      return attempt.cause;
    case 'bad_response':
      return attempt.status !== undefined && attempt.status >= 400 && attempt.status < 500 ? 'http_4xx' : 'bad_response';
  }
}
