import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ListenError, listenFailureText } from '../config/listen-error.ts';
import type { Logger } from '../config/logger.ts';
import type { BotMetrics } from './registry.ts';

/**
 * The health and metrics endpoint (METRICS_PORT, METRICS_HOST): GET /healthz answers JSON, 200 or 503 (see
 * health.ts); GET /metrics the Prometheus text format. Anything else is a 404 (405 for other methods).
 */

export interface MetricsServerOptions {
  metrics: BotMetrics;
  /** 0 picks a free port. */
  port: number;
  host: string;
  logger?: Logger;
}

export interface MetricsServer {
  /** e.g. http://127.0.0.1:9464 */
  url: string;
  port: number;
  /** Stops listening and drops open connections. Safe to call twice. */
  close(): Promise<void>;
}

/** METRICS_PORT or METRICS_HOST cannot be listened on: said in one line naming the setting (exit code 2). */
export class MetricsServerError extends ListenError {
  override readonly name = 'MetricsServerError';
}

export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const { metrics, logger } = options;
  const server = createServer((request, response) => {
    handle(request, response, metrics).catch((error: unknown) => {
      logger?.error({ err: error, path: request.url }, 'the metrics endpoint failed');
      if (!response.headersSent) send(response, 500, 'text/plain; charset=utf-8', 'The metrics could not be collected; see the bot\'s log.\n');
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, options)));
    server.listen(options.port, options.host, () => resolve());
  });
  server.on('error', (error) => logger?.error({ err: error }, 'the metrics endpoint failed'));
  const { port, address } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  let closed: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

async function handle(request: IncomingMessage, response: ServerResponse, metrics: BotMetrics): Promise<void> {
  const path = (request.url ?? '/').split('?')[0];
  if (path !== '/healthz' && path !== '/metrics') {
    send(response, 404, 'text/plain; charset=utf-8', 'Not found. This endpoint serves /healthz and /metrics.\n');
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('allow', 'GET, HEAD');
    send(response, 405, 'text/plain; charset=utf-8', `${path} answers GET (and HEAD) only.\n`);
    return;
  }
  if (path === '/healthz') {
    const report = await metrics.health();
    send(response, report.status === 'ok' ? 200 : 503, 'application/json; charset=utf-8', `${JSON.stringify(report)}\n`);
    return;
  }
  send(response, 200, metrics.registry.contentType, await metrics.text());
}

function send(response: ServerResponse, status: number, contentType: string, body: string): void {
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

function listenError(error: NodeJS.ErrnoException, options: MetricsServerOptions): MetricsServerError {
  const names = { port: 'METRICS_PORT', host: 'METRICS_HOST', inUseAdvice: '(each process of a cluster needs its own)' };
  return new MetricsServerError(listenFailureText(error.code, options.host, options.port, names, error.message), error.code, options.host, options.port);
}
