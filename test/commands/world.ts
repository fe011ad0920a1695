import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BotServices } from '../../src/interactions.ts';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { openStore } from '../../src/store.ts';
import { createWotdAdapter, type WotdAdapter, type WotdAdapterOptions } from '../../src/wotd/adapter.ts';
import { addDays } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';

/**
 * The real pieces behind the command tests: a word list in a temp SQLite file, our service on loopback, a counting
 * proxy in front of it that can be slowed down, and the real adapter with a temp SQLite cache. The clock runs at
 * real speed from TODAY at noon UTC.
 */
export const TODAY = '2025-01-20';
export const SITE_URL = 'https://wotd.example';
/** The word that recurs on twelve days, for pagination. */
export const RECURRING = 'echo';

const WORDS = [
  'abide', 'brisk', 'candor', 'dwell', 'ember', 'fathom', 'gusto', 'hearth', 'inkling', 'jovial', 'kindle', 'lucid',
  'mirth', 'nimble', 'opaque', 'plume', 'quill', 'reverie', 'solace', 'tenacity', 'umbra', 'verve', 'whimsy', 'zephyr',
];

/**
 * 2024-11-01 … 2025-01-20: plain words, RECURRING on twelve days (every fifth day from 2024-11-01),
 * and a few awkward entries the bot must render safely.
 */
export function testEntries(): Entry[] {
  const entries: Entry[] = [];
  for (let index = 0, date = '2024-11-01'; date <= TODAY; index += 1, date = addDays(date, 1)) {
    const recurring = index % 5 === 0 && index < 60;
    const word = recurring ? RECURRING : `${WORDS[index % WORDS.length]}${Math.floor(index / WORDS.length) || ''}`;
    entries.push({
      date,
      word,
      pos: recurring && index % 10 === 5 ? 'verb' : 'noun',
      ipa: `/${word}/`,
      definition: recurring ? `Sense number ${index / 5 + 1} of the echo.` : `A plain definition of ${word}.`,
    });
  }
  const set = (date: string, patch: Partial<Entry>): void => {
    const entry = entries.find((candidate) => candidate.date === date);
    if (entry) Object.assign(entry, patch);
  };
  set('2025-01-14', {
    word: 'serendipity',
    pos: 'noun',
    ipa: '/ˌsɛɹ.ənˈdɪp.ɪ.ti/',
    definition: '(historical) The "happy" faculty of finding things by *chance*.',
  });
  set('2025-01-13', {
    word: 'mark_down',
    pos: 'noun',
    definition: '# Loud **bold** `code` ~~strike~~ ||spoiler|| [link](https://evil.example) @everyone <@123>\n> quoted',
  });
  return entries;
}

export interface CountingProxy {
  url: string;
  /** Requests that reached the proxy (so, the service). */
  requests: number;
  /** Delay before each request is forwarded. */
  delayMs: number;
  close(): Promise<void>;
}

/** A loopback proxy to `target` that counts requests and can be made slow; a dead target resets the connection. */
export async function startCountingProxy(target: string): Promise<CountingProxy> {
  const state = { requests: 0, delayMs: 0 };
  const server = createServer((incoming, outgoing) => {
    state.requests += 1;
    const timer = setTimeout(() => {
      const forwarded = request(`${target}${incoming.url ?? '/'}`, { method: incoming.method, headers: incoming.headers }, (response) => {
        outgoing.writeHead(response.statusCode ?? 502, response.headers);
        response.pipe(outgoing);
      });
      forwarded.on('error', () => outgoing.destroy());
      incoming.pipe(forwarded);
    }, state.delayMs);
    outgoing.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests;
    },
    set requests(value: number) {
      state.requests = value;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A clock at real speed that reads TODAY, noon UTC, when the world starts. */
export function clockAtToday(): () => Date {
  const offset = Date.parse(`${TODAY}T12:00:00Z`) - Date.now();
  return () => new Date(Date.now() + offset);
}

export interface CommandWorld {
  services: BotServices;
  adapter: WotdAdapter;
  service: RunningService;
  proxy: CountingProxy;
  now: () => Date;
  close(): Promise<void>;
}

export async function startCommandWorld(adapterOptions: Partial<WotdAdapterOptions> = {}): Promise<CommandWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'wotd-commands-'));
  const dbPath = join(dir, 'words.sqlite');
  await writeWordDb(dbPath, testEntries());
  const now = clockAtToday();
  const service = await startWotdService({ dbPath, variant: 'A', port: 0, rateLimitPerMinute: 0, now });
  const proxy = await startCountingProxy(service.url);
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
    services: { lookup: adapter, siteUrl: SITE_URL },
    adapter,
    service,
    proxy,
    now,
    async close() {
      await adapter.close();
      await proxy.close();
      await service.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
