import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { openStore } from '../../src/store.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { createWotdAdapter, type WotdAdapter, type WotdAdapterOptions } from '../../src/wotd/adapter.ts';
import type { Entry } from '../../src/wotd/entry.ts';

/**
 * The Word-of-the-Day side of the end-to-end tests: a word list in a temp SQLite file, our real service on
 * loopback, a loopback proxy in front of it that can be made slow or down, and the real adapter with a temp SQLite
 * cache. The clock runs at real speed but is set so that "today" is TODAY.
 */

export const TODAY = '2025-01-20';
export const SITE_URL = 'https://wotd.example';

const WORDS = [
  'abide', 'brisk', 'candor', 'dwell', 'ember', 'fathom', 'gusto', 'hearth', 'inkling', 'jovial',
  'kindle', 'lucid', 'mirth', 'nimble', 'opaque', 'plume', 'quixotic', 'reverie', 'solace', 'tenacity',
];

/** 2025-01-01 … 2025-01-20, with the awkward cases the bot must render safely. */
export function sampleEntries(): Entry[] {
  const entries = WORDS.map((word, index) => ({
    date: `2025-01-${String(index + 1).padStart(2, '0')}`,
    word,
    pos: 'noun',
    ipa: `/${word}/`,
    definition: `A plain definition of ${word}.`,
  }));
  const set = (date: string, patch: Partial<Entry>): void => {
    const entry = entries.find((candidate) => candidate.date === date);
    if (entry) Object.assign(entry, patch);
  };
  set('2025-01-14', { word: 'serendipity', pos: 'noun', ipa: '/ˌsɛɹ.ənˈdɪp.ɪ.ti/', definition: '(historical) The "happy" faculty of finding things by *chance*.' });
  set('2025-01-13', { definition: 'Ping @everyone and <@&111111111111111111> — nothing may be pinged.' });
  // A word that recurs with another part of speech and definition.
  set('2025-01-04', { word: 'quixotic', pos: 'adjective', definition: 'Idealistic without regard to practicality.' });
  // A word of the day on 22 days (2024-12-10 … 2024-12-31): three pages of /wotd-find results.
  for (let day = 10; day <= 31; day += 1) {
    entries.push({ date: `2024-12-${day}`, word: 'echo', pos: day % 2 === 0 ? 'noun' : 'verb', ipa: '/ˈɛk.oʊ/', definition: `Echo number ${day}.` });
  }
  return entries;
}

export interface SlowProxy {
  url: string;
  /** Delay before each request is forwarded. */
  delayMs: number;
  /** Answer every request with a bare 503, as a service that is down. */
  down: boolean;
  /** Answer every request as the live service does when its limit is spent: 429, an HTML body, no Retry-After. */
  rateLimited: boolean;
  requests: number;
  close(): Promise<void>;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
}

/** A loopback HTTP proxy to `target` whose speed and health the test controls. */
export async function startSlowProxy(target: string): Promise<SlowProxy> {
  const state = { delayMs: 0, down: false, rateLimited: false, requests: 0 };
  const server = createServer((incoming, outgoing) => {
    state.requests += 1;
    setTimeout(() => {
      if (state.down) {
        outgoing.writeHead(503, { 'content-type': 'text/html' }).end('<html><body>503 Service Unavailable</body></html>');
        return;
      }
      if (state.rateLimited) {
        outgoing.writeHead(429, { 'content-type': 'text/html' }).end('<html><body>429 Too Many Requests</body></html>');
        return;
      }
      const forwarded = request(`${target}${incoming.url ?? '/'}`, { method: incoming.method, headers: incoming.headers }, (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      });
      forwarded.on('error', () => outgoing.writeHead(502).end());
      incoming.pipe(forwarded);
    }, state.delayMs);
  });
  const url = await listen(server);
  return {
    url,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    get down() {
      return state.down;
    },
    set down(value: boolean) {
      state.down = value;
    },
    get rateLimited() {
      return state.rateLimited;
    },
    set rateLimited(value: boolean) {
      state.rateLimited = value;
    },
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A clock at real speed whose date is TODAY, noon UTC, at start. */
export function shiftedClock(): () => Date {
  const offset = Date.now() - Date.parse(`${TODAY}T12:00:00Z`);
  return () => new Date(Date.now() - offset);
}

export interface WotdWorld {
  dir: string;
  service: RunningService;
  proxy: SlowProxy;
  adapter: WotdAdapter;
  close(): Promise<void>;
}

export async function startWotdWorld(adapterOptions: Partial<WotdAdapterOptions> = {}): Promise<WotdWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'wotd-discord-'));
  const dbPath = join(dir, 'words.sqlite');
  await writeWordDb(dbPath, sampleEntries());
  const now = shiftedClock();
  const service = await startWotdService({ dbPath, variant: 'A', port: 0, rateLimitPerMinute: 0, now });
  const proxy = await startSlowProxy(service.url);
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
    ...adapterOptions,
  });
  return {
    dir,
    service,
    proxy,
    adapter,
    async close() {
      await adapter.close();
      await proxy.close();
      await service.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A logger whose lines the test can read back. */
export function capturingLogger(secrets: string[]): { logger: Logger; lines: string[]; text(): string } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  return { logger: createLogger({ level: 'trace', secrets, destination }), lines, text: () => lines.join('\n') };
}
