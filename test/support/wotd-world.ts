import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { openStore } from '../../src/store/open-store.ts';
import { createWotdAdapter, type WotdAdapter, type WotdAdapterOptions } from '../../src/wotd/adapter.ts';
import type { IsoDate, Variant } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { startDeploymentTwin } from './upstream/deployment-twin.ts';

/**
 * A Word-of-the-Day world for tests and benchmarks: a word list in a temp SQLite file, our real service (or, with
 * `twin`, a twin of a real deployment, its rate limit off) on loopback, a proxy in front of it whose speed and health the caller controls, and the real adapter with a temp
 * SQLite cache. The clock runs at real speed from `today` at noon UTC.
 */

/** A loopback proxy; every field but `url` may be changed while it runs. */
export interface LoopbackProxy {
  readonly url: string;
  /** Requests that reached the proxy, answered by it or forwarded. */
  requests: number;
  /** Each request's arrival (epoch ms) and the status it was answered with, once answered. */
  readonly log: Array<{ at: number; path: string; status?: number }>;
  /** Delay before each request is answered or forwarded. */
  delayMs: number;
  /** Answer every request with a 503 and an HTML body, as a service that is down. */
  down: boolean;
  /** Answer every request as the live service does when its limit is spent: 429, an HTML body, no Retry-After. */
  rateLimited: boolean;
  close(): Promise<void>;
}

/**
 * A loopback HTTP proxy to `target`. A dead target resets the client's connection, so the adapter sees the service
 * as unreachable; a request whose client has gone before the delay ends is never forwarded.
 */
export async function startLoopbackProxy(target: string): Promise<LoopbackProxy> {
  const settings = { requests: 0, delayMs: 0, down: false, rateLimited: false };
  const log: LoopbackProxy['log'] = [];
  const server = createServer((incoming, outgoing) => {
    settings.requests += 1;
    const entry: LoopbackProxy['log'][number] = { at: Date.now(), path: (incoming.url ?? '/').split('?')[0] ?? '/' };
    log.push(entry);
    outgoing.on('finish', () => {
      entry.status = outgoing.statusCode;
    });
    const timer = setTimeout(() => {
      if (settings.down) {
        outgoing.writeHead(503, { 'content-type': 'text/html' }).end('<html><body>503 Service Unavailable</body></html>');
        return;
      }
      if (settings.rateLimited) {
        outgoing.writeHead(429, { 'content-type': 'text/html' }).end('<html><body>429 Too Many Requests</body></html>');
        return;
      }
      const forwarded = request(`${target}${incoming.url ?? '/'}`, { method: incoming.method, headers: incoming.headers }, (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      });
      forwarded.on('error', () => outgoing.destroy());
      incoming.pipe(forwarded);
    }, settings.delayMs);
    outgoing.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(settings, {
    log,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** A clock at real speed that reads `today`, noon UTC, when it is made. */
export function realSpeedClockFrom(today: IsoDate): () => Date {
  const offset = Date.parse(`${today}T12:00:00Z`) - Date.now();
  return () => new Date(Date.now() + offset);
}

export interface WotdWorldOptions {
  entries: Entry[];
  /** The service's date when the world starts. */
  today: IsoDate;
  /** Answer as a twin of the real deployment A or B instead of our own service. */
  twin?: Variant;
  /** Overrides of the adapter's test defaults (variant A, no retries, a limit that never binds). */
  adapter?: Partial<WotdAdapterOptions>;
}

export interface WotdWorld {
  dir: string;
  service: Pick<RunningService, 'url' | 'close'>;
  proxy: LoopbackProxy;
  adapter: WotdAdapter;
  now: () => Date;
  close(): Promise<void>;
}

export async function startWotdWorld(options: WotdWorldOptions): Promise<WotdWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'wotd-world-'));
  const dbPath = join(dir, 'words.sqlite');
  await writeWordDb(dbPath, options.entries);
  const now = realSpeedClockFrom(options.today);
  const service = options.twin
    ? await startDeploymentTwin({ variant: options.twin, entries: options.entries, now, rateLimitPerMinute: 0 })
    : await startWotdService({ dbPath, variant: 'A', port: 0, rateLimitPerMinute: 0, now });
  const proxy = await startLoopbackProxy(service.url);
  const store = await openStore<unknown>(`sqlite://${join(dir, 'store.sqlite')}`, 'wotd-cache');
  const adapter = await createWotdAdapter({
    baseUrl: proxy.url,
    store,
    ownsStore: true,
    variant: 'A',
    rateLimit: 1000,
    retries: 0,
    timeoutMs: 5000,
    now,
    ...options.adapter,
  });
  return {
    dir,
    service,
    proxy,
    adapter,
    now,
    async close() {
      await adapter.close();
      await proxy.close();
      await service.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
