import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { RateDecision } from './rate-limit.ts';

/** How the service writes an answer: shared by the API endpoints and the /databases pages. */

export const COMMON_HEADERS: OutgoingHttpHeaders = {
  'access-control-allow-origin': '*',
  'x-content-type-options': 'nosniff',
};

/** Writes a whole answer (JSON unless the headers say otherwise); HEAD gets the same headers without the body. */
export function send(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: OutgoingHttpHeaders,
): void {
  const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  response.writeHead(status, {
    ...COMMON_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    ...headers,
    'content-length': payload.length,
  });
  response.end(request.method === 'HEAD' ? undefined : payload);
}

export function rateHeaders(decision: RateDecision): OutgoingHttpHeaders {
  return {
    'ratelimit-limit': decision.limit,
    'ratelimit-remaining': decision.remaining,
    'ratelimit-reset': decision.resetSeconds,
  };
}

/** The client address a rate-limit window belongs to; IPv4 peers on a dual-stack socket count as IPv4. */
export function clientAddress(request: IncomingMessage): string {
  const address = request.socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

