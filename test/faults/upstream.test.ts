import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createChannelPoster } from '../../src/discord/channel-poster.ts';
import { entryEmbed } from '../../src/discord/embeds.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { openStore } from '../../src/store.ts';
import { createWotdAdapter, type WotdAdapter } from '../../src/wotd/adapter.ts';
import { addDays } from '../../src/wotd/dates.ts';
import { MAX_BODY_BYTES } from '../../src/wotd/http-client.ts';
import { captureLogger, makeSubscription } from '../schedule/helpers.ts';
import { FAULT_WORD, HUGE_BODY_BYTES, LONG_FIELD_CHARS, startFaultyUpstream, type FaultyUpstream, type UpstreamFault } from '../support/upstream/faulty-upstream.ts';
import { faultCell } from './tally.ts';
import {
  acknowledgedInTime,
  BUSY,
  entryOn,
  finalAnswer,
  invoke,
  NONSENSE,
  readKeyvRows,
  shown,
  SITE_URL,
  startFaultWorld,
  TODAY,
  UNREACHABLE,
  type FaultWorld,
} from './world.ts';

/**
 * Upstream faults × operations. Each cell gets a fresh adapter (production settings but for shorter timeouts,
 * one retry and a one-second rate window) over a fresh SQLite cache file, sets the fault, and then:
 * the member's command is acknowledged within Discord's 3 s (from the server's recorded callbacks) and ends in the
 * fault's own clear message; the cache file holds nothing from the fault; once the fault clears the same adapter
 * serves the right answer. The daily fetch instead runs the real scheduler and posts through the bot's REST client:
 * nothing is posted while the entry cannot be fetched, and exactly one post goes out once the fault clears.
 */

const TIMEOUT_MS = 600;

interface FaultRow {
  fault: UpstreamFault;
  label: string;
  /** What the member is told while the fault lasts. */
  told: string | RegExp;
}

const ROWS: FaultRow[] = [
  { fault: 'timeout', label: 'timeout', told: UNREACHABLE },
  { fault: 'reset', label: 'connection reset', told: UNREACHABLE },
  { fault: 'http500', label: '500', told: UNREACHABLE },
  { fault: 'http503', label: '503 + Retry-After', told: UNREACHABLE },
  { fault: 'html429', label: 'HTML 429', told: BUSY },
  { fault: 'invalidJson', label: 'invalid JSON', told: NONSENSE },
  { fault: 'wrongTypes', label: 'wrong types', told: NONSENSE },
  { fault: 'wrongDate', label: 'different date (word) than asked', told: NONSENSE },
  { fault: 'hugeBody', label: '5 MB body', told: NONSENSE },
  { fault: 'slowDrip', label: 'slow drip', told: UNREACHABLE },
];

let world: FaultWorld;
let upstream: FaultyUpstream;

beforeAll(async () => {
  world = await startFaultWorld();
  upstream = await startFaultyUpstream(world.service.url);
});

afterAll(async () => {
  await upstream?.close();
  await world?.close();
});

interface Scenario {
  adapter: WotdAdapter;
  cacheFile: string;
  dir: string;
  close(): Promise<void>;
}

async function scenario(): Promise<Scenario> {
  const dir = await mkdtemp(join(world.dir, 'cell-'));
  const cacheFile = join(dir, 'cache.sqlite');
  const adapter = await createWotdAdapter({
    baseUrl: upstream.url,
    store: await openStore(`sqlite://${cacheFile}`, 'wotd-cache'),
    ownsStore: true,
    variant: 'A',
    timeoutMs: TIMEOUT_MS,
    retries: 1,
    retryDelayMs: 50,
    rateLimit: 100,
    rateWindowMs: 500,
    now: world.now,
  });
  world.services.lookup = adapter;
  return {
    adapter,
    cacheFile,
    dir,
    async close() {
      upstream.fault = null;
      await adapter.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Nothing from the fault in the cache file: no entry, page, search result or miss; only the verified variant. */
async function expectNothingCached(cacheFile: string): Promise<void> {
  const rows = await readKeyvRows(cacheFile);
  const kept = rows.map((row) => row.key.replace(/^wotd-cache:/, '')).filter((key) => !key.startsWith('variant:'));
  expect(kept, 'cache keys written under the fault').toEqual([]);
  // Keys only: a value from the 5 MB fault would make a diff nobody can read.
  expect(rows.filter((row) => row.value.includes(FAULT_WORD)).map((row) => row.key), 'rows holding the fault\'s answer').toEqual([]);
}

/** What the fault's requests show about reading: a huge body or a drip is cut off, never read to its end. */
function readingNote(fault: UpstreamFault, since: number): string {
  const met = upstream.requests.slice(since).filter((request) => request.fault === fault);
  expect(met.length, 'requests that met the fault').toBeGreaterThan(0);
  if (fault === 'hugeBody') {
    for (const request of met) {
      expect(request.finished, `${request.path} read to its end`).toBe(false);
      expect(request.bytesSent).toBeLessThan(HUGE_BODY_BYTES);
    }
    const most = Math.max(...met.map((request) => request.bytesSent));
    const how = met[0]?.path === '/query' ? 'by Content-Length' : `past ${MAX_BODY_BYTES / 1024} KiB`;
    return `refused ${how}, ${Math.ceil(most / 1024)} KiB sent`;
  }
  if (fault === 'slowDrip') {
    for (const request of met) expect(request.finished, `${request.path} read to its end`).toBe(false);
    return `cut at ${TIMEOUT_MS} ms deadline`;
  }
  return `${met.length} request${met.length === 1 ? '' : 's'}`;
}

/**
 * A well-formed answer for the right day with one field far longer than anything shown: the member gets it in
 * time, cut to Discord's limits (escaping all of it would hold the bot's event loop for minutes).
 */
async function longFieldCell(name: string, options: Record<string, string | number>, expected: string): Promise<string> {
  const cell = await scenario();
  try {
    upstream.fault = 'longField';
    const handle = invoke(world, name, options);
    const answer = await finalAnswer(world, handle);
    const latency = acknowledgedInTime(handle);
    expect(shown(answer)).toMatch(new RegExp(`^${expected}`));
    const embed = answer.embeds[0] ?? {};
    const longest = Math.max(
      String(embed.description ?? '').length,
      ...(Array.isArray(embed.fields) ? (embed.fields as Array<{ value: string }>).map((field) => field.value.length) : [0]),
    );
    expect(longest).toBeLessThanOrEqual(4096);
    return `shown cut to ${longest} of ${LONG_FIELD_CHARS} chars (ack ${latency} ms)`;
  } finally {
    await cell.close();
  }
}

/** Runs one command under the fault, then again once it has cleared; returns the cell's reason. */
async function commandCell(
  row: FaultRow,
  name: string,
  options: Record<string, string | number>,
  expected: string | RegExp,
): Promise<string> {
  const cell = await scenario();
  try {
    const since = upstream.requests.length;
    upstream.fault = row.fault;
    const faulted = invoke(world, name, options);
    const answer = await finalAnswer(world, faulted);
    const latency = acknowledgedInTime(faulted);
    expect(answer.ephemeral, 'the failure is private').toBe(true);
    if (typeof row.told === 'string') expect(answer.content).toBe(row.told);
    else expect(answer.content).toMatch(row.told);
    const note = readingNote(row.fault, since);
    await expectNothingCached(cell.cacheFile);

    upstream.fault = null;
    const healthy = invoke(world, name, options);
    const good = await finalAnswer(world, healthy);
    acknowledgedInTime(healthy);
    if (typeof expected === 'string') expect(shown(good)).toBe(expected);
    else expect(shown(good)).toMatch(expected);
    const told = typeof row.told === 'string' ? (row.told === UNREACHABLE ? 'unreachable' : 'bad answer') : 'busy';
    return `told "${told}" (ack ${latency} ms), ${note}; then served`;
  } finally {
    await cell.close();
  }
}

const LONG_FIELD = 'oversized field (200 KB definition)';

describe('upstream faults', () => {
  for (const row of ROWS) {
    faultCell('upstream', row.label, 'query (/wotd)', () => commandCell(row, 'wotd', {}, entryOn(TODAY).word));

    faultCell('upstream', row.label, 'history (/wotd-history)', () =>
      commandCell(row, 'wotd-history', { limit: 3 }, 'Recent words of the day'),
    );

    faultCell('upstream', row.label, 'find (/wotd-find)', () =>
      commandCell(row, 'wotd-find', { word: entryOn('2025-01-05').word }, new RegExp(`^${entryOn('2025-01-05').word}: `)),
    );

    faultCell('upstream', row.label, 'daily fetch', async (figures) => {
      const cell = await scenario();
      const store = await SubscriptionStore.open(`sqlite://${join(cell.dir, 'subscriptions.sqlite')}`);
      try {
        const channelId = world.discord.addChannel(world.guild.id, { name: `daily-${row.fault}` }).id;
        await store.upsert(world.guild.id, channelId, 50, () =>
          makeSubscription({ guildId: world.guild.id, channelId, enabledAt: `${addDays(TODAY, -1)}T00:00:00.000Z` }),
        );
        const { logger } = captureLogger();
        const scheduler = new DailyScheduler({
          store,
          lookup: cell.adapter,
          poster: createChannelPoster(world.bot.client.rest),
          render: (entry) => entryEmbed(entry, { siteUrl: SITE_URL }),
          logger,
          concurrency: 2,
        });
        const since = upstream.requests.length;
        upstream.fault = row.fault;
        // The adapter's clock reads TODAY at noon: the 09:00 post is due.
        const during = await scheduler.tick(world.now());
        expect(during).toMatchObject({ waitingForEntry: 1, sent: 0 });
        const note = readingNote(row.fault, since);
        await expectNothingCached(cell.cacheFile);

        upstream.fault = null;
        // Past the scheduler's first back-off (one minute) and any pause the fault asked for.
        const after = await scheduler.tick(new Date(world.now().getTime() + 2 * 60_000));
        expect(after).toMatchObject({ sent: 1 });
        const posts = world.discord.messagesIn(channelId);
        figures.duplicated = Math.max(0, posts.length - 1);
        figures.lost = 1 - (await store.listAll()).length;
        expect(posts.map((post) => post.embeds[0]?.title)).toEqual([entryOn(TODAY).word]);
        return `nothing posted, ${note}; 1 post after`;
      } finally {
        await store.close();
        await cell.close();
      }
    });
  }

  faultCell('upstream', LONG_FIELD, 'query (/wotd)', () => longFieldCell('wotd', {}, entryOn(TODAY).word));
  faultCell('upstream', LONG_FIELD, 'history (/wotd-history)', () => longFieldCell('wotd-history', { limit: 3 }, 'Recent words of the day'));
  faultCell('upstream', LONG_FIELD, 'find (/wotd-find)', () => longFieldCell('wotd-find', { word: entryOn('2025-01-05').word }, `${entryOn('2025-01-05').word}: `));
  faultCell('upstream', LONG_FIELD, 'daily fetch', async (figures) => {
    const cell = await scenario();
    const store = await SubscriptionStore.open(`sqlite://${join(cell.dir, 'subscriptions.sqlite')}`);
    try {
      const channelId = world.discord.addChannel(world.guild.id, { name: 'daily-long-field' }).id;
      await store.upsert(world.guild.id, channelId, 50, () =>
        makeSubscription({ guildId: world.guild.id, channelId, enabledAt: `${addDays(TODAY, -1)}T00:00:00.000Z` }),
      );
      const scheduler = new DailyScheduler({
        store,
        lookup: cell.adapter,
        poster: createChannelPoster(world.bot.client.rest),
        render: (entry) => entryEmbed(entry, { siteUrl: SITE_URL }),
        logger: captureLogger().logger,
        concurrency: 2,
      });
      upstream.fault = 'longField';
      expect(await scheduler.tick(world.now())).toMatchObject({ sent: 1 });
      const posts = world.discord.messagesIn(channelId);
      figures.duplicated = Math.max(0, posts.length - 1);
      figures.lost = 1 - (await store.listAll()).length;
      const description = String(posts[0]?.embeds[0]?.description ?? '');
      expect(description.length).toBeGreaterThan(0);
      expect(description.length).toBeLessThanOrEqual(4096);
      return `posted once, cut to ${description.length} chars`;
    } finally {
      await store.close();
      await cell.close();
    }
  });
});
