/**
 * The REST route table: each route is a method, a template (":name" segments are parameters), whether it needs the
 * bot token, whether it counts against the global limit, its rate-limit bucket and its handler. Route modules add
 * theirs with `on`; `match` finds the one for a request.
 */
import { bucketHash, DEFAULT_RULE, type BucketRule } from './ratelimit.ts';
import type { StoredFile } from './messages.ts';

type Json = Record<string, unknown>;

export interface RouteContext {
  params: Record<string, string>;
  body: Json;
  rawBody: unknown;
  query: URLSearchParams;
  attachments: Json[];
  /** The uploaded files' bytes, in the order of `attachments`. */
  files: StoredFile[];
}

export interface RouteResult {
  status: number;
  body?: unknown;
}

export interface Route {
  method: string;
  template: string;
  segments: string[];
  /** Bot token required (webhook and interaction routes use their own token instead). */
  auth: boolean;
  /** Interaction endpoints are not counted against the global limit. */
  globalExempt: boolean;
  bucket: ((params: Record<string, string>) => { hash: string; major: string; rule: BucketRule }) | null;
  handle: (ctx: RouteContext) => RouteResult | Promise<RouteResult>;
}

export type RouteBucket = Route['bucket'];

export interface RouteOptions {
  auth?: boolean;
  globalExempt?: boolean;
  bucket?: RouteBucket | 'default' | null;
}

export const ok = (body: unknown, status = 200): RouteResult => ({ status, body });
export const noContent: RouteResult = { status: 204 };

export class RouteTable {
  private readonly routes: Route[] = [];

  on(method: string, template: string, handle: Route['handle'], options: RouteOptions = {}): void {
    const segments = template.split('/').filter(Boolean);
    const hash = bucketHash(`${method} ${template}`);
    const majorKey = segments.find((s) => s === ':channel_id' || s === ':guild_id' || s === ':webhook_id');
    const bucket =
      options.bucket === undefined || options.bucket === 'default'
        ? (params: Record<string, string>) => ({ hash, major: majorKey ? (params[majorKey.slice(1)] ?? '') : 'global', rule: DEFAULT_RULE })
        : options.bucket;
    // Exact segments win over parameters (e.g. @original before :message_id): keep static routes first.
    this.routes.push({ method, template, segments, auth: options.auth ?? true, globalExempt: options.globalExempt ?? false, bucket, handle });
    this.routes.sort((a, b) => staticScore(b.segments) - staticScore(a.segments));
  }

  /** Every route, static segments first (the order `match` tries them in). */
  get all(): readonly Route[] {
    return this.routes;
  }

  match(method: string, path: string): { route: Route; params: Record<string, string> } | 'method' | undefined {
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
    let methodMismatch = false;
    for (const route of this.routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let fits = true;
      for (let i = 0; i < parts.length; i += 1) {
        const seg = route.segments[i] as string;
        const part = parts[i] as string;
        if (seg.startsWith(':')) params[seg.slice(1)] = part;
        else if (seg !== part) {
          fits = false;
          break;
        }
      }
      if (!fits) continue;
      if (route.method !== method) {
        methodMismatch = true;
        continue;
      }
      return { route, params };
    }
    return methodMismatch ? 'method' : undefined;
  }
}

function staticScore(segments: string[]): number {
  return segments.reduce((n, s, i) => n + (s.startsWith(':') ? 0 : 2 ** (segments.length - i)), 0);
}
