import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createChannelPoster } from '../../src/discord/channel-poster.ts';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { openStore } from '../../src/store/open-store.ts';
import { createWotdAdapter, type WotdAdapter } from '../../src/wotd/adapter.ts';
import { addDays } from '../../src/wotd/dates.ts';
import { MAX_BODY_BYTES } from '../../src/wotd/http-client.ts';
import { captureLogger, makeSubscription } from '../schedule/helpers.ts';
import { FAULT_WORD, HUGE_BODY_BYTES, LONG_FIELD_CHARS, startFaultyUpstream, type FaultyUpstream, type UpstreamFault } from '../support/upstream/faulty-upstream.ts';
import { faultRow, type CellFigures } from './tally.ts';
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
 * Upstream faults × operations. Each fault gets fresh adapters (production settings but for shorter timeouts,
 * one retry and a half-second pause after a 429) over fresh SQLite cache files: one behind the commands, one behind the
 * daily scheduler, each in front of its own misbehaving service, and its four operations run side by side:
 * the member's command is acknowledged within Discord's 3 s (from the server's recorded callbacks) and ends in the
 * fault's own clear message; the cache file holds nothing from the fault; once the fault clears (after every
 * operation has met it) the same adapter serves the right answer. The daily fetch runs the real scheduler and
 * posts through the bot's REST client: nothing is posted while the entry cannot be fetched, and exactly one post
 * goes out once the fault clears.
 */

const TIMEOUT_MS = 500;

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
/** In front of the adapter the commands use, and of the scheduler's: each operation's requests are its own. */
let commandsUpstream: FaultyUpstream;
let dailyUpstream: FaultyUpstream;

beforeAll(async () => {
  world = await startFaultWorld();
  commandsUpstream = await startFaultyUpstream(world.service.url);
  dailyUpstream = await startFaultyUpstream(world.service.url);
});

afterAll(async () => {
  await commandsUpstream?.close();
  await dailyUpstream?.close();
  await world?.close();
});

function setFault(fault: UpstreamFault | null): void {
  commandsUpstream.fault = fault;
  dailyUpstream.fault = fault;
}

interface Scenario {
  adapter: WotdAdapter;
  cacheFile: string;
  dir: string;
  close(): Promise<void>;
}

async function scenario(upstream: FaultyUpstream): Promise<Scenario> {
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
    pauseAfter429Ms: 500,
    now: world.now,
  });
  return {
    adapter,
    cacheFile,
    dir,
    async close() {
      await adapter.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Nothing from the fault in the cache file: no entry, page, search result or miss; only the verified variant and
 * the time of the last sweep of expired records.
 */
async function expectNothingCached(cacheFile: string): Promise<void> {
  const rows = await readKeyvRows(cacheFile);
  const kept = rows.map((row) => row.key.replace(/^wotd-cache:/, '')).filter((key) => !key.startsWith('variant:') && key !== 'swept');
  expect(kept, 'cache keys written under the fault').toEqual([]);
  // Keys only: a value from the 5 MB fault would make a diff nobody can read.
  expect(rows.filter((row) => row.value.includes(FAULT_WORD)).map((row) => row.key), "rows holding the fault's answer").toEqual([]);
}

/** What the fault's requests on `path` show about reading: a huge body or a drip is cut off, never read to its end. */
function readingNote(upstream: FaultyUpstream, fault: UpstreamFault, path: string): string {
  const met = upstream.requests.filter((request) => request.fault === fault && request.path === path);
  expect(met.length, 'requests that met the fault').toBeGreaterThan(0);
  if (fault === 'hugeBody') {
    for (const request of met) {
      expect(request.finished, `${request.path} read to its end`).toBe(false);
      expect(request.bytesSent).toBeLessThan(HUGE_BODY_BYTES);
    }
    const most = Math.max(...met.map((request) => request.bytesSent));
    const how = path === '/query' ? 'by Content-Length' : `past ${MAX_BODY_BYTES / 1024} KiB`;
    return `refused ${how}, ${Math.ceil(most / 1024)} KiB sent`;
  }
  if (fault === 'slowDrip') {
    for (const request of met) expect(request.finished, `${request.path} read to its end`).toBe(false);
    return `cut at ${TIMEOUT_MS} ms deadline`;
  }
  return `${met.length} request${met.length === 1 ? '' : 's'}`;
}

/**
 * Lets every operation of a row meet the fault before any sees it cleared: the last to finish its part under the
 * fault clears it, and all go on from there. An operation that failed under the fault still passes through.
 */
function clearTogether(parties: number): () => Promise<void> {
  let arrived = 0;
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return async () => {
    arrived += 1;
    if (arrived === parties) {
      setFault(null);
      open();
    }
    await opened;
  };
}

interface RowState {
  /** Behind the commands (world.services.lookup), in front of commandsUpstream. */
  commands: Scenario;
  /** Behind the daily scheduler, in front of dailyUpstream. */
  daily: Scenario;
  cleared: () => Promise<void>;
}

/** An operation in two parts: under the fault, and once it has cleared. */
interface Operation {
  name: string;
  during(state: RowState, figures: CellFigures): Promise<string>;
  after(state: RowState, note: string, figures: CellFigures): Promise<string>;
}

const teardowns: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const teardown of teardowns.splice(0)) await teardown();
});

/** One fault: its operations side by side, each one cell; the row's adapters are made by whichever starts first. */
function runRow(label: string, fault: UpstreamFault, operations: Operation[]): void {
  let state: Promise<RowState> | null = null;
  const prepare = async (): Promise<RowState> => {
    const commands = await scenario(commandsUpstream);
    const daily = await scenario(dailyUpstream);
    teardowns.push(() => commands.close(), () => daily.close());
    world.services.lookup = commands.adapter;
    setFault(fault);
    return { commands, daily, cleared: clearTogether(operations.length) };
  };
  faultRow(
    'upstream',
    label,
    operations.map((operation) => [
      operation.name,
      async (figures: CellFigures) => {
        const row = await (state ??= prepare());
        let note = '';
        let failure: unknown;
        try {
          note = await operation.during(row, figures);
        } catch (error) {
          failure = error;
        }
        await row.cleared();
        if (failure !== undefined) throw failure;
        return operation.after(row, note, figures);
      },
    ]),
    30_000,
  );
}

const PATHS: Record<string, string> = { wotd: '/query', 'wotd-history': '/query_previous', 'wotd-find': '/find_wotd' };

/** A command under the fault: answered in time with the fault's own private message, nothing cached. */
function command(row: FaultRow, name: string, options: Record<string, string | number>, expected: string | RegExp, operation: string): Operation {
  return {
    name: operation,
    async during(state) {
      const faulted = invoke(world, name, options);
      const answer = await finalAnswer(world, faulted);
      const latency = acknowledgedInTime(faulted);
      expect(answer.ephemeral, 'the failure is private').toBe(true);
      if (typeof row.told === 'string') expect(answer.content).toBe(row.told);
      else expect(answer.content).toMatch(row.told);
      const note = readingNote(commandsUpstream, row.fault, PATHS[name] ?? '');
      await expectNothingCached(state.commands.cacheFile);
      const told = typeof row.told === 'string' ? (row.told === UNREACHABLE ? 'unreachable' : 'bad answer') : 'busy';
      return `told "${told}" (ack ${latency} ms), ${note}`;
    },
    async after(_state, note) {
      const healthy = invoke(world, name, options);
      const good = await finalAnswer(world, healthy);
      acknowledgedInTime(healthy);
      if (typeof expected === 'string') expect(shown(good)).toBe(expected);
      else expect(shown(good)).toMatch(expected);
      return `${note}; then served`;
    },
  };
}

/** The scheduler's fetch of the day's entry under the fault: nothing posted, nothing cached; one post after. */
function dailyFetch(row: FaultRow): Operation {
  let channelId = '';
  let store: SubscriptionStore | null = null;
  let scheduler: DailyScheduler | null = null;
  return {
    name: 'daily fetch',
    async during(state) {
      channelId = world.discord.addChannel(world.guild.id, { name: `daily-${row.fault}` }).id;
      store = await SubscriptionStore.open(`sqlite://${join(state.daily.dir, 'subscriptions.sqlite')}`);
      const opened = store;
      teardowns.push(() => opened.close());
      await store.upsert(world.guild.id, channelId, 50, () =>
        makeSubscription({ guildId: world.guild.id, channelId, enabledAt: `${addDays(TODAY, -1)}T00:00:00.000Z` }),
      );
      scheduler = new DailyScheduler({
        store,
        lookup: state.daily.adapter,
        poster: createChannelPoster(world.bot.client.rest),
        render: (entry) => entryEmbed(entry, { siteUrl: SITE_URL }),
        logger: captureLogger().logger,
        concurrency: 2,
      });
      // The adapter's clock reads TODAY at noon: the 09:00 post is due.
      expect(await scheduler.tick(world.now())).toMatchObject({ waitingForEntry: 1, sent: 0 });
      const note = readingNote(dailyUpstream, row.fault, '/query');
      await expectNothingCached(state.daily.cacheFile);
      return `nothing posted, ${note}`;
    },
    async after(_state, note, figures) {
      if (!scheduler || !store) throw new Error('the fault part did not run');
      // Past the scheduler's first back-off (one minute) and any pause the fault asked for.
      expect(await scheduler.tick(new Date(world.now().getTime() + 2 * 60_000))).toMatchObject({ sent: 1 });
      const posts = world.discord.messagesIn(channelId);
      figures.duplicated = Math.max(0, posts.length - 1);
      figures.lost = 1 - (await store.listAll()).length;
      expect(posts.map((post) => post.embeds[0]?.title)).toEqual([entryOn(TODAY).word]);
      return `${note}; 1 post after`;
    },
  };
}

/**
 * A well-formed answer for the right day with one field far longer than anything shown: the member gets it in
 * time, cut to Discord's limits (escaping all of it would hold the bot's event loop for minutes).
 */
function longField(name: string, options: Record<string, string | number>, expected: string, operation: string): Operation {
  return {
    name: operation,
    async during() {
      const handle = invoke(world, name, options);
      const answer = await finalAnswer(world, handle);
      const latency = acknowledgedInTime(handle);
      expect(shown(answer).startsWith(expected), `"${shown(answer)}" starts with "${expected}"`).toBe(true);
      const embed = answer.embeds[0] ?? {};
      const fields = Array.isArray(embed.fields) ? (embed.fields as Array<{ value: string }>) : [];
      const longest = Math.max(String(embed.description ?? '').length, ...fields.map((field) => field.value.length));
      expect(longest).toBeLessThanOrEqual(4096);
      return `shown cut to ${longest} of ${LONG_FIELD_CHARS} chars (ack ${latency} ms)`;
    },
    after: async (_state, note) => note,
  };
}

function longFieldPost(): Operation {
  return {
    name: 'daily fetch',
    async during(state, figures) {
      const channelId = world.discord.addChannel(world.guild.id, { name: 'daily-long-field' }).id;
      const store = await SubscriptionStore.open(`sqlite://${join(state.daily.dir, 'subscriptions.sqlite')}`);
      teardowns.push(() => store.close());
      await store.upsert(world.guild.id, channelId, 50, () =>
        makeSubscription({ guildId: world.guild.id, channelId, enabledAt: `${addDays(TODAY, -1)}T00:00:00.000Z` }),
      );
      const scheduler = new DailyScheduler({
        store,
        lookup: state.daily.adapter,
        poster: createChannelPoster(world.bot.client.rest),
        render: (entry) => entryEmbed(entry, { siteUrl: SITE_URL }),
        logger: captureLogger().logger,
        concurrency: 2,
      });
      expect(await scheduler.tick(world.now())).toMatchObject({ sent: 1 });
      const posts = world.discord.messagesIn(channelId);
      figures.duplicated = Math.max(0, posts.length - 1);
      figures.lost = 1 - (await store.listAll()).length;
      const description = String(posts[0]?.embeds[0]?.description ?? '');
      expect(description.length).toBeGreaterThan(0);
      expect(description.length).toBeLessThanOrEqual(4096);
      return `posted once, cut to ${description.length} chars`;
    },
    after: async (_state, note) => note,
  };
}

const FOUND_WORD = entryOn('2025-01-05').word;

describe('upstream faults', () => {
  for (const row of ROWS) {
    runRow(row.label, row.fault, [
      command(row, 'wotd', {}, entryOn(TODAY).word, 'query (/wotd)'),
      command(row, 'wotd-history', { limit: 3 }, 'Recent words of the day', 'history (/wotd-history)'),
      command(row, 'wotd-find', { word: FOUND_WORD }, new RegExp(`^${FOUND_WORD}: `), 'find (/wotd-find)'),
      dailyFetch(row),
    ]);
  }

  runRow('oversized field (200 KB definition)', 'longField', [
    longField('wotd', {}, entryOn(TODAY).word, 'query (/wotd)'),
    longField('wotd-history', { limit: 3 }, 'Recent words of the day', 'history (/wotd-history)'),
    longField('wotd-find', { word: FOUND_WORD }, `${FOUND_WORD}: `, 'find (/wotd-find)'),
    longFieldPost(),
  ]);
});
