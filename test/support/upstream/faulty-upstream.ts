import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { addDays, parseIsoDate, type IsoDate } from '../../../src/wotd/dates.ts';

/**
 * A loopback Word-of-the-Day service that misbehaves on demand: it forwards to a healthy service (`target`, e.g.
 * our own `serve` or a deployment twin, variant A) until `fault` is set, then answers every request with that fault:
 *
 *   timeout      accepts the request and never answers
 *   reset        destroys the connection
 *   http500      500 with a JSON error
 *   http503      503 with `Retry-After: 1` and an HTML page
 *   html429      429 with an HTML page and no Retry-After, as the real deployments do
 *   invalidJson  200 with a cut-off JSON body
 *   wrongTypes   200 with well-formed JSON whose fields have the wrong types
 *   wrongDate    200 with an answer for something other than what was asked: /query an entry for another day,
 *                /query_previous a page holding the day asked itself, /find_wotd an entry of another word
 *   hugeBody     200 with 5 MB: declared in Content-Length on /query, streamed without one elsewhere
 *   slowDrip     200 at once, then the real answer one byte every 100 ms
 *   longField    the real answer, its first definition padded to LONG_FIELD_CHARS (the body stays under the bound)
 *
 * Fabricated entries use the word FAULT_WORD, so a test can search a cache for anything that came from a fault.
 * Every request is logged with the fault it met and how many body bytes went out before the client hung up.
 */

export type UpstreamFault =
  | 'timeout'
  | 'reset'
  | 'http500'
  | 'http503'
  | 'html429'
  | 'invalidJson'
  | 'wrongTypes'
  | 'wrongDate'
  | 'hugeBody'
  | 'slowDrip'
  | 'longField';

export const FAULT_WORD = 'counterfeit';
export const HUGE_BODY_BYTES = 5 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
/** Between chunks of a huge body, so what went out measures what the client read rather than socket buffers. */
const CHUNK_PAUSE_MS = 4;
const DRIP_EVERY_MS = 100;
export const LONG_FIELD_CHARS = 200_000;

export interface FaultyRequest {
  path: string;
  query: Record<string, string>;
  fault: UpstreamFault | null;
  status: number | 'reset' | 'none';
  /** Body bytes handed to the socket. */
  bytesSent: number;
  /** The whole body went out. */
  finished: boolean;
}

export interface FaultyUpstream {
  readonly url: string;
  /** The fault every request meets from now on; null forwards to the healthy service. */
  fault: UpstreamFault | null;
  readonly requests: FaultyRequest[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function fakeEntry(date: IsoDate, word = FAULT_WORD) {
  return { date, word, pos: 'noun', ipa: '/ˈkaʊn.tɚ.fɪt/', definition: 'An answer that was never asked for.' };
}

/** Something other than what was asked, in variant A's shapes. */
function wrongAnswer(path: string, query: URLSearchParams): unknown {
  const asked = parseIsoDate(query.get('date') ?? '') ?? '2025-01-20';
  if (path === '/query_previous') return { has_more: false, results: [fakeEntry(asked), fakeEntry(addDays(asked, -1))] };
  if (path === '/find_wotd') return fakeEntry(addDays(asked, -2), `${FAULT_WORD}-${query.get('word') ?? ''}`);
  return fakeEntry(addDays(asked, -3));
}

function wrongTypes(path: string): unknown {
  if (path === '/query_previous') return { has_more: 'yes', results: { date: 20250120, word: FAULT_WORD } };
  return { date: 20250120, word: 42, pos: null, ipa: [], definition: true, note: FAULT_WORD };
}

export async function startFaultyUpstream(target: string): Promise<FaultyUpstream> {
  const requests: FaultyRequest[] = [];
  const sockets = new Set<Socket>();
  const state = { fault: null as UpstreamFault | null };

  /** The healthy service's answer, for forwarding and for dripping. */
  function forward(incoming: IncomingMessage): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const out = request(`${target}${incoming.url ?? '/'}`, { method: 'GET', headers: { accept: 'application/json' } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const headers: Record<string, string> = {};
          const type = response.headers['content-type'];
          if (type) headers['content-type'] = type;
          resolve({ status: response.statusCode ?? 502, headers, body: Buffer.concat(chunks) });
        });
        response.on('error', reject);
      });
      out.on('error', reject);
      out.end();
    });
  }

  async function streamHuge(response: ServerResponse, record: FaultyRequest, declared: boolean): Promise<void> {
    const headers: Record<string, string | number> = { 'content-type': 'application/json' };
    if (declared) headers['content-length'] = HUGE_BODY_BYTES;
    response.writeHead(200, headers);
    // Valid JSON all the way: only its size is wrong.
    const opening = Buffer.from(`{"date":"2025-01-20","word":"${FAULT_WORD}","pos":"noun","ipa":"/x/","definition":"`);
    const closing = Buffer.from('"}');
    const filler = Buffer.alloc(CHUNK_BYTES, 'a');
    let remaining = HUGE_BODY_BYTES - opening.length - closing.length;
    const write = async (chunk: Buffer): Promise<boolean> => {
      if (response.destroyed) return false;
      record.bytesSent += chunk.length;
      if (!response.write(chunk)) {
        await new Promise<void>((resolve) => {
          const done = (): void => {
            response.off('drain', done);
            response.off('close', done);
            resolve();
          };
          response.on('drain', done);
          response.on('close', done);
        });
      }
      await sleep(CHUNK_PAUSE_MS);
      return !response.destroyed;
    };
    if (!(await write(opening))) return;
    while (remaining > 0) {
      const size = Math.min(remaining, CHUNK_BYTES);
      remaining -= size;
      if (!(await write(filler.subarray(0, size)))) return;
    }
    if (!(await write(closing))) return;
    response.end(() => {
      record.finished = true;
    });
  }

  async function handle(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(incoming.url ?? '/', 'http://faulty.test');
    const fault = state.fault;
    const record: FaultyRequest = { path: url.pathname, query: Object.fromEntries(url.searchParams), fault, status: 'none', bytesSent: 0, finished: false };
    requests.push(record);
    const send = (status: number, body: string, headers: Record<string, string> = {}): void => {
      record.status = status;
      record.bytesSent = Buffer.byteLength(body);
      response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), ...headers });
      response.end(body, () => {
        record.finished = true;
      });
    };
    switch (fault) {
      case null: {
        const answer = await forward(incoming);
        record.status = answer.status;
        record.bytesSent = answer.body.length;
        response.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
        response.end(answer.body, () => {
          record.finished = true;
        });
        return;
      }
      case 'timeout':
        return;
      case 'reset':
        record.status = 'reset';
        incoming.socket.destroy();
        return;
      case 'http500':
        return send(500, JSON.stringify({ error: 'Internal server error' }));
      case 'http503':
        return send(503, '<!doctype html><title>503 Service Unavailable</title><h1>Back soon</h1>', {
          'content-type': 'text/html; charset=utf-8',
          'retry-after': '1',
        });
      case 'html429':
        return send(429, '<!doctype html><title>429 Too Many Requests</title><h1>Too Many Requests</h1><p>10 per 1 minute</p>', {
          'content-type': 'text/html; charset=utf-8',
        });
      case 'invalidJson':
        return send(200, `{"date": "2025-01-2`);
      case 'wrongTypes':
        return send(200, JSON.stringify(wrongTypes(url.pathname)));
      case 'wrongDate':
        return send(200, JSON.stringify(wrongAnswer(url.pathname, url.searchParams)));
      case 'hugeBody':
        record.status = 200;
        return streamHuge(response, record, url.pathname === '/query');
      case 'longField': {
        const answer = await forward(incoming);
        const body = JSON.parse(answer.body.toString('utf8')) as unknown;
        const first = Array.isArray(body) ? body[0] : typeof body === 'object' && body !== null && 'results' in body ? (body.results as unknown[])[0] : body;
        if (typeof first === 'object' && first !== null && 'definition' in first) {
          (first as { definition: string }).definition = `${String(first.definition)} ${'a'.repeat(LONG_FIELD_CHARS)}`;
        }
        return send(answer.status, JSON.stringify(body));
      }
      case 'slowDrip': {
        const answer = await forward(incoming);
        record.status = 200;
        response.writeHead(200, { 'content-type': 'application/json' });
        for (const byte of answer.body) {
          if (response.destroyed) return;
          response.write(Buffer.from([byte]));
          record.bytesSent += 1;
          await sleep(DRIP_EVERY_MS);
        }
        response.end(() => {
          record.finished = true;
        });
        return;
      }
    }
  }

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch(() => response.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get fault() {
      return state.fault;
    },
    set fault(fault: UpstreamFault | null) {
      state.fault = fault;
    },
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
