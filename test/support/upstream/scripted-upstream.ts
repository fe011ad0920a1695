import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A loopback service whose every answer is chosen by the test: status, headers (sent exactly as given, lying
 * Content-Length included) and body bytes. One server serves many generated runs; `answer` is swapped per run.
 */

export interface ScriptedReply {
  status: number;
  /** Sent as they are; a Content-Length here is sent even when it does not match the body. */
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /**
   * How the body goes out: 'whole' (default), or 'cut' (the socket is destroyed after this many bytes of the
   * body, whatever Content-Length said).
   */
  cutAfter?: number;
}

export interface ScriptedRequest {
  path: string;
  query: Record<string, string>;
  status: number;
}

export type Answer = (request: { path: string; query: Record<string, string> }) => ScriptedReply;

export interface ScriptedUpstream {
  readonly url: string;
  /** Every request seen since the last `reset`. */
  readonly requests: ScriptedRequest[];
  answer: Answer;
  reset(answer: Answer): void;
  close(): Promise<void>;
}

export async function startScriptedUpstream(answer: Answer): Promise<ScriptedUpstream> {
  const requests: ScriptedRequest[] = [];
  const sockets = new Set<Socket>();
  const state = { answer };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const query = Object.fromEntries(url.searchParams);
    let reply: ScriptedReply;
    try {
      reply = state.answer({ path: url.pathname, query });
    } catch (error) {
      reply = { status: 500, body: `script failed: ${String(error)}` };
    }
    requests.push({ path: url.pathname, query, status: reply.status });
    send(response, reply);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  // A client that hangs up mid-answer is part of the game, not a failure of the server.
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get answer() {
      return state.answer;
    },
    set answer(next: Answer) {
      state.answer = next;
    },
    reset(next) {
      requests.length = 0;
      state.answer = next;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(response: ServerResponse, reply: ScriptedReply): void {
  const body = typeof reply.body === 'string' ? Buffer.from(reply.body, 'utf8') : Buffer.from(reply.body ?? new Uint8Array());
  const headers = { ...reply.headers };
  const lies = Object.keys(headers).some((name) => name.toLowerCase() === 'content-length');
  // Node checks a Content-Length against what is written; a lying one goes out on the raw socket instead.
  if (lies || reply.cutAfter !== undefined) {
    const socket = response.socket;
    if (!socket) return;
    const head = [`HTTP/1.1 ${reply.status} ${statusText(reply.status)}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
    if (!lies) head.push('connection: close');
    socket.write(`${head.join('\r\n')}\r\n\r\n`);
    const sent = reply.cutAfter === undefined ? body : body.subarray(0, reply.cutAfter);
    socket.write(sent);
    if (reply.cutAfter !== undefined) socket.destroy();
    else socket.end();
    return;
  }
  response.writeHead(reply.status, headers);
  response.end(body);
}

function statusText(status: number): string {
  return { 200: 'OK', 301: 'Moved Permanently', 302: 'Found', 404: 'Not Found', 429: 'Too Many Requests', 503: 'Service Unavailable' }[status] ?? 'Status';
}
