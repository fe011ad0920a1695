/**
 * The local server's check against discord-api-spec: http-core.ts hands it every request (path parameters, query,
 * JSON or `payload_json` body) and every answer (status, body) of a route, the gateway every dispatch. What does not
 * fit the spec (spec-routes.ts, spec-gateway.ts, strict, with spec-deviations.ts) is recorded in this process's
 * ledger, and process-setup.ts fails the test it happened in. Answers above 499 are not checked (the spec describes
 * none), nor the raw bytes of an injected `answer` fault (deliberately anything).
 */
import { pathsList } from 'discord-api-spec';
import { specLedger, type SpecViolation } from '../spec-ledger.ts';
import { DEVIATIONS } from './spec-deviations.ts';
import { dispatchSchema } from './spec-gateway.ts';
import { operationFor, pathParamSchema, specPathOf, type SpecOperation } from './spec-routes.ts';
import { issuesOf, NO_BODY, specSchemas, StrictSchemas, type FieldIssue, type Schema } from './spec-schemas.ts';

let shared: StrictSchemas | undefined;

/** One strict copy of the spec's schemas per process (built as schemas are first used). */
function strictSchemas(): StrictSchemas {
  shared ??= new StrictSchemas({ deviations: DEVIATIONS, onDeviation: (id) => specLedger.deviationsUsed.add(id) });
  return shared;
}

/** A request the server matched to one of its routes, as far as the spec cares. */
export interface CheckedRequest {
  method: string;
  template: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** The JSON body, the parsed `payload_json` of a multipart body, or null when none was sent. */
  body: unknown;
}

/**
 * One request on its way through the server: the spec operation of its route and what was wrong with it. Its
 * issues are reported with its answer, unless that answer refuses the body as Discord would (see `answer`).
 */
export interface Exchange {
  route: string;
  operation: SpecOperation | null;
  issues: FieldIssue[];
}

/** Whether the spec has an operation for this method and concrete path ("/channels/123/pins"). */
function specOperationExists(method: string, path: string): boolean {
  const templates: readonly string[] = (pathsList as Record<string, readonly string[] | undefined>)[method.toLowerCase()] ?? [];
  const parts = path.split('/').filter(Boolean);
  return templates.some((template) => {
    const segments = template.split('/').filter(Boolean);
    return segments.length === parts.length && segments.every((segment, i) => segment.startsWith('{') || segment === parts[i]);
  });
}

function codeOf(body: unknown): number {
  return typeof body === 'object' && body !== null && 'code' in body && typeof body.code === 'number' ? body.code : 0;
}

/** Refusals of a body that Discord answers itself: Invalid Form Body, empty message, unreadable JSON. */
const BODY_REFUSALS = new Set([50035, 50006, 50109]);

export class SpecCheck {
  private readonly schemas = strictSchemas();

  /**
   * `enabled` false (startDiscordServer's `specCheck: false`, for benchmarks only) checks nothing: outside vitest no
   * one reads the ledger, and in bench:cluster the check was a fifth of the harness's time while the harness shared
   * two cores with the bots it measures.
   */
  constructor(private readonly enabled = true) {}

  /** An exchange for a request not routed yet (a body that is not JSON is answered before routing). */
  unrouted(method: string, path: string): Exchange {
    return { route: `${method} ${path}`, operation: null, issues: [] };
  }

  /** An exchange for a request the server has no route for: the sender called something it does not serve. */
  unserved(method: string, path: string): Exchange {
    if (!this.enabled) return this.unrouted(method, path);
    const inSpec = specOperationExists(method, path);
    const message = inSpec
      ? 'the local server does not serve this Discord route (add it, and its entry in spec-routes.ts)'
      : 'no such route in Discord\'s API';
    return { route: `${method} ${path}`, operation: null, issues: [{ field: 'route', message }] };
  }

  /** Checks a request against its route's operation (a route the spec mapping lacks is itself a violation). */
  request(req: CheckedRequest): Exchange {
    if (!this.enabled) return this.unrouted(req.method, req.template);
    const operation = operationFor(req.method, req.template) ?? null;
    if (!operation) {
      const route = `${req.method} ${specPathOf(req.template)}`;
      return { route, operation, issues: [{ field: 'route', message: 'the local server serves it, but spec-routes.ts maps no spec operation to it' }] };
    }
    specLedger.routes.add(operation.key);
    specLedger.requests += 1;
    const issues: FieldIssue[] = [];
    for (const [param, value] of Object.entries(req.params)) issues.push(...issuesOf(pathParamSchema(param), value, `path.${param}`));
    for (const [key, value] of req.query) {
      const schema = operation.query[key];
      if (schema) issues.push(...issuesOf(schema, value, `query.${key}`));
      else issues.push({ field: `query.${key}`, message: 'not in the spec (unknown query parameter)' });
    }
    if (operation.body === NO_BODY) {
      if (req.body !== null) issues.push({ field: 'body', message: 'the spec takes no body here' });
    } else {
      issues.push(...issuesOf(this.schemas.strict(operation.body), req.body, 'body'));
    }
    return { route: operation.key, operation, issues };
  }

  /**
   * Reports the request's issues and checks its answer (`body` undefined: none was sent; `raw`: the bytes of an
   * injected fault, not checked). A request the server refused as Discord would (400 with 50035, 50006 or 50109) is
   * not reported: the sender is told either way, and the harness's own tests send such bodies on purpose. A
   * request the server accepted, or refused for another reason, is.
   */
  answer(exchange: Exchange, status: number, body: unknown, { raw = false }: { raw?: boolean } = {}): void {
    if (!this.enabled) return;
    const refusedBody = status === 400 && BODY_REFUSALS.has(codeOf(body));
    if (!refusedBody) for (const issue of exchange.issues) this.report({ route: exchange.route, direction: 'request', ...issue });
    if (raw || status >= 500 || (exchange.operation === null && exchange.issues.length > 0)) return;
    const responses: Record<string, Schema> = exchange.operation ? exchange.operation.responses : { '4XX': specSchemas.ErrorResponseSchema };
    const schema = responses[String(status)] ?? responses[`${String(status).charAt(0)}XX`];
    specLedger.responses += 1;
    const route = exchange.route;
    if (!schema) {
      this.report({ route, direction: 'response', status, field: 'status', message: `the spec lists only ${Object.keys(responses).join(', ')} for this route` });
      return;
    }
    const issues = schema === NO_BODY ? (body === undefined ? [] : [{ field: 'body', message: 'the spec answers this status with no body' }]) : issuesOf(this.schemas.strict(schema), body, 'body');
    for (const issue of issues) this.report({ route, direction: 'response', status, ...issue });
  }

  /** Checks a gateway dispatch's `d` for event `t`. */
  dispatch(t: string, d: unknown): void {
    if (!this.enabled) return;
    specLedger.dispatches += 1;
    const route = `GATEWAY ${t}`;
    const schema = dispatchSchema(t);
    if (!schema) {
      this.report({ route, direction: 'gateway', field: 't', message: 'spec-gateway.ts has no schema for this dispatch' });
      return;
    }
    for (const issue of issuesOf(this.schemas.strict(schema), d, 'd')) this.report({ route, direction: 'gateway', ...issue });
  }

  private report(violation: SpecViolation): void {
    specLedger.record(violation);
  }
}
