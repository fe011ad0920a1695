/**
 * The HTTP core every REST request goes through, in Discord's order: parse the body (JSON, or multipart with
 * payload_json and files), match a route (404, 405), check the bot token (401), take a turn against the global
 * limit, apply an injected fault, take the route's bucket, run the handler; then record the request and its answer.
 * The spec check (spec-check.ts) sees every matched request and every answer but the raw bytes of an `answer` fault.
 * A handler's ApiError is Discord's error answer; anything else is a harness bug, answered 500 and kept.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from './api-error.ts';
import { statusAnswer, type Faults } from './faults.ts';
import type { StoredFile } from './messages.ts';
import type { RecordedRequest } from './public-types.ts';
import { rateLimitAnswer, type BucketLimiter, type GlobalLimiter } from './ratelimit.ts';
import type { Recorder } from './recording.ts';
import type { RouteTable } from './route-table.ts';
import { snowflake } from './snowflake.ts';
import type { Exchange } from './spec-check.ts';
import type { World } from './world.ts';

type Json = Record<string, unknown>;

export interface HttpDeps {
  world: World;
  routes: RouteTable;
  faults: Faults;
  recorder: Recorder;
  globalLimiter: GlobalLimiter;
  buckets: BucketLimiter;
  /** Bugs inside the harness itself (answered 500). */
  internalErrors: Error[];
}

export async function handleRequest(deps: HttpDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const at = Date.now();
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = (req.method ?? 'GET').toUpperCase();
  const prefix = '/api/v10';
  const path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) || '/' : url.pathname;
  const record: RecordedRequest = {
    seq: deps.recorder.nextSeq(),
    at,
    method,
    path,
    query: Object.fromEntries(url.searchParams),
    route: null,
    body: null,
    status: 0,
    response: null,
    responseHeaders: {},
    limited: null,
    countedGlobally: false,
    faulted: false,
    durationMs: 0,
  };
  let headers: Record<string, string> = {};
  let exchange: Exchange = deps.world.spec.unrouted(method, path);
  const respond = (status: number, body?: unknown): void => {
    deps.world.spec.answer(exchange, status, body);
    record.status = status;
    record.response = body ?? null;
    record.responseHeaders = { ...headers };
    record.durationMs = Date.now() - at;
    deps.recorder.add(record);
    deps.world.changes.notify();
    if (res.destroyed) return;
    const out: Record<string, string> = { ...headers, Via: '1.1 fake-discord' };
    if (body === undefined) {
      res.writeHead(status, out);
      res.end();
    } else {
      out['Content-Type'] = 'application/json';
      res.writeHead(status, out);
      res.end(JSON.stringify(body));
    }
  };

  try {
    const raw = await readBody(req);
    let parsed: { body: unknown; attachments: Json[]; files: StoredFile[] };
    try {
      parsed = await parseBody(raw, req.headers['content-type']);
    } catch {
      record.body = raw.toString('utf8');
      respond(400, { message: 'The request body contains invalid JSON.', code: 50109 });
      return;
    }
    record.body = parsed.body;
    if (!url.pathname.startsWith(`${prefix}/`)) {
      exchange = deps.world.spec.unserved(method, url.pathname);
      respond(404, { message: '404: Not Found', code: 0 });
      return;
    }
    const match = deps.routes.match(method, path);
    if (!match || match === 'method') exchange = deps.world.spec.unserved(method, path);
    if (!match) {
      respond(404, { message: '404: Not Found', code: 0 });
      return;
    }
    if (match === 'method') {
      respond(405, { message: '405: Method Not Allowed', code: 0 });
      return;
    }
    const { route, params } = match;
    const routeName = `${route.method} ${route.template}`;
    record.route = routeName;
    exchange = deps.world.spec.request({ method, template: route.template, params, query: url.searchParams, body: parsed.body });
    if (route.auth && req.headers.authorization !== `Bot ${deps.world.token}`) {
      respond(401, { message: '401: Unauthorized', code: 0 });
      return;
    }
    if (route.auth && !route.globalExempt) {
      // Judged by arrival time, the same clock the per-second stats use, so the two always agree.
      const verdict = deps.globalLimiter.take(at);
      if (verdict.ok) record.countedGlobally = true;
      else {
        record.limited = 'global';
        const limited = rateLimitAnswer('global', verdict.retryAfter);
        headers = limited.headers;
        respond(limited.status, limited.body);
        return;
      }
    }
    const fault = deps.faults.take(method, path);
    if (fault) {
      record.faulted = true;
      if (fault.delayMs) await sleep(fault.delayMs);
      if (fault.answer) {
        const { status, headers: sent = {}, body = '' } = fault.answer;
        deps.world.spec.answer(exchange, status, undefined, { raw: true });
        record.status = status;
        record.response = typeof body === 'string' ? body : body.toString('latin1');
        record.responseHeaders = { ...sent };
        record.durationMs = Date.now() - at;
        deps.recorder.add(record);
        deps.world.changes.notify();
        if (!res.destroyed) {
          res.writeHead(status, { ...sent, Via: '1.1 fake-discord' });
          res.end(body);
        }
        return;
      }
      const injected = statusAnswer(fault);
      if (injected) {
        record.limited = injected.limited;
        headers = injected.headers;
        respond(injected.status, injected.body);
        return;
      }
    }
    if (route.bucket) {
      const b = route.bucket(params);
      const verdict = deps.buckets.take(b.hash, b.major, b.rule, Date.now());
      headers = verdict.headers;
      if (verdict.retryAfter !== undefined) {
        record.limited = 'bucket';
        const limited = rateLimitAnswer('user', verdict.retryAfter, verdict.headers);
        headers = limited.headers;
        respond(limited.status, limited.body);
        return;
      }
    }
    const body = (typeof parsed.body === 'object' && parsed.body !== null && !Array.isArray(parsed.body) ? parsed.body : {}) as Json;
    const result = await route.handle({ params, body, rawBody: parsed.body, query: url.searchParams, attachments: parsed.attachments, files: parsed.files });
    const rewrite = deps.world.rewriteResponse;
    respond(result.status, rewrite ? rewrite(routeName, result.status, result.body) : result.body);
  } catch (error) {
    if (error instanceof ApiError) respond(error.status, error.body());
    else {
      const failure = error instanceof Error ? error : new Error(String(error));
      deps.internalErrors.push(failure);
      process.stderr.write(`discord harness: internal error on ${method} ${path}: ${failure.stack ?? failure.message}\n`);
      respond(500, { message: `500: Internal Server Error (${failure.message})`, code: 0 });
    }
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** JSON bodies, or multipart with `payload_json` plus files (what discord.js sends with attachments). */
async function parseBody(raw: Buffer, contentType: string | undefined): Promise<{ body: unknown; attachments: Json[]; files: StoredFile[] }> {
  if (raw.length === 0) return { body: null, attachments: [], files: [] };
  if (contentType?.startsWith('multipart/form-data')) {
    const form = await new Request('http://localhost/', { method: 'POST', headers: { 'content-type': contentType }, body: raw }).formData();
    let body: unknown = {};
    const attachments: Json[] = [];
    const files: StoredFile[] = [];
    for (const [name, value] of form.entries()) {
      if (name === 'payload_json' && typeof value === 'string') body = JSON.parse(value);
      else if (typeof value !== 'string') {
        const id = snowflake();
        const path = `attachments/${id}/${encodeURIComponent(value.name)}`;
        attachments.push({ id, filename: value.name, size: value.size, content_type: value.type, url: `https://cdn.invalid/${path}`, proxy_url: `https://media.invalid/${path}` });
        files.push({ filename: value.name, contentType: value.type, data: Buffer.from(await value.arrayBuffer()) });
      }
    }
    return { body, attachments, files };
  }
  return { body: JSON.parse(raw.toString('utf8')) as unknown, attachments: [], files: [] };
}
