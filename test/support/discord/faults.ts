/**
 * Fault injection: a test makes chosen requests slow, fail with a status and Discord error code, hit a global or
 * per-route 429, or get a raw answer of any bytes. Faults are tried in the order they were injected.
 */
import type { FaultHandle, FaultSpec } from './public-types.ts';
import { rateLimitAnswer } from './ratelimit.ts';

interface ActiveFault extends FaultSpec {
  hits: number;
  removed: boolean;
}

/** What a status fault answers: the status, its body and headers, and whether it is a rate limit. */
export interface FaultAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  limited: 'global' | 'bucket' | null;
}

export class Faults {
  private readonly faults: ActiveFault[] = [];

  inject(spec: FaultSpec): FaultHandle {
    if (spec.status === undefined && spec.delayMs === undefined && spec.answer === undefined) throw new Error('a fault needs a status, an answer or a delayMs');
    const fault: ActiveFault = { ...spec, hits: 0, removed: false };
    this.faults.push(fault);
    return {
      get hits() {
        return fault.hits;
      },
      remove: () => {
        fault.removed = true;
      },
    };
  }

  clear(): void {
    for (const f of this.faults) f.removed = true;
    this.faults.length = 0;
  }

  /** The first live fault that matches the request, counting the hit; undefined when none does. */
  take(method: string, path: string): FaultSpec | undefined {
    for (const fault of this.faults) {
      if (fault.removed || (fault.times !== undefined && fault.hits >= fault.times)) continue;
      if (fault.channelId !== undefined && !path.startsWith(`/channels/${fault.channelId}`)) continue;
      if (fault.route instanceof RegExp && !fault.route.test(`${method} ${path}`)) continue;
      if (typeof fault.route === 'string' && !templateMatches(fault.route, method, path)) continue;
      fault.hits += 1;
      return fault;
    }
    return undefined;
  }
}

/** The answer of a fault with a status (a 429 is a rate limit); undefined for a delay-only fault. */
export function statusAnswer(fault: FaultSpec): FaultAnswer | undefined {
  if (fault.status === 429) {
    const { global, retryAfterMs, scope = 'user' } = fault.rateLimit ?? { global: false, retryAfterMs: 1000 };
    const seconds = retryAfterMs / 1000;
    const bucket = {
      'X-RateLimit-Limit': '5',
      // A shared resource's limit is not this bot's doing: its own bucket may have requests left.
      'X-RateLimit-Remaining': scope === 'shared' ? '4' : '0',
      'X-RateLimit-Reset': ((Date.now() + retryAfterMs) / 1000).toFixed(3),
      'X-RateLimit-Reset-After': seconds.toFixed(3),
      'X-RateLimit-Bucket': 'injected-fault',
    };
    const answer = rateLimitAnswer(global ? 'global' : scope, seconds, bucket);
    return { ...answer, limited: global ? 'global' : 'bucket' };
  }
  if (fault.status !== undefined) {
    const code = fault.code ?? (fault.status === 403 ? 50013 : fault.status === 404 ? 10003 : 0);
    const message = fault.message ?? defaultFaultMessage(fault.status, code);
    return { status: fault.status, body: { message, code }, headers: {}, limited: null };
  }
  return undefined;
}

function templateMatches(template: string, method: string, path: string): boolean {
  let t = template.trim();
  const space = t.indexOf(' ');
  if (space > 0) {
    if (t.slice(0, space).toUpperCase() !== method) return false;
    t = t.slice(space + 1);
  }
  const a = t.split('/').filter(Boolean);
  const b = path.split('/').filter(Boolean);
  // discord.js sends '@original' as '%40original'.
  return a.length === b.length && a.every((seg, i) => seg.startsWith(':') || seg === b[i] || seg === safeDecode(b[i] ?? ''));
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function defaultFaultMessage(status: number, code: number): string {
  if (code === 50001) return 'Missing Access';
  if (code === 50013) return 'Missing Permissions';
  if (code === 10003) return 'Unknown Channel';
  if (code === 10008) return 'Unknown Message';
  if (status === 500) return '500: Internal Server Error';
  if (status === 502) return '502: Bad Gateway';
  if (status === 503) return '503: Service Unavailable';
  return `${status}: Error`;
}
