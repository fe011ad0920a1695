import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getJson } from '../../src/wotd/http-client.ts';
import { upstreamResult } from '../../src/wotd/upstream-result.ts';

let server: Server;
let base = '';
beforeAll(async () => {
  server = createServer((request, response) => {
    const status = Number(request.url?.slice(1).split('?')[0]);
    if (request.url === '/silent') return; // never answers
    if (request.url === '/not-json') return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
    if (request.url === '/redirect') return void response.writeHead(304).end();
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(status < 300 ? { ok: true } : { error: `status ${status}` }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function resultOf(url: string, timeoutMs = 2000): Promise<string> {
  return upstreamResult(await getJson(url, { timeoutMs, now: Date.now() }));
}

describe('upstream results as the metrics count them, over real HTTP', () => {
  it('tells ok, 404, 4xx, 429, 5xx, bad bodies, timeouts and network failures apart', async () => {
    expect(await resultOf(`${base}/200`)).toBe('ok');
    expect(await resultOf(`${base}/404`)).toBe('not_found');
    expect(await resultOf(`${base}/400`)).toBe('http_4xx');
    expect(await resultOf(`${base}/403`)).toBe('http_4xx');
    expect(await resultOf(`${base}/429`)).toBe('rate_limited');
    expect(await resultOf(`${base}/503`)).toBe('http_5xx');
    expect(await resultOf(`${base}/not-json`)).toBe('bad_response');
    expect(await resultOf(`${base}/redirect`)).toBe('bad_response');
    expect(await resultOf(`${base}/silent`, 100)).toBe('timeout');

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await resultOf(`http://127.0.0.1:${port}/200`)).toBe('network');
  });
});
