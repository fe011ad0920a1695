import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import sqlite3 from 'sqlite3';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { INTERACTIVE } from '../../src/replies/deliver.ts';
import { slotFor } from '../../src/schedule/due.ts';
import type { ChannelPoster, DailyMessage } from '../../src/schedule/poster.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { createSubscriptionService, type SubscriptionService } from '../../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { openStore } from '../../src/store/open-store.ts';
import { createWotdAdapter, type WotdAdapter } from '../../src/wotd/adapter.ts';
import { addDays, utcDateOf, type IsoDate } from '../../src/wotd/dates.ts';
import { captureLogger, entryFor } from '../schedule/helpers.ts';
import { ManualClock } from '../support/upstream/manual-clock.ts';

/**
 * Weeks of the bot's life in seconds: the real scheduler, adapter, our service on loopback and a SQLite store in a
 * temp dir, all on one manual clock. Each simulated day some channels unsubscribe and others subscribe (new ones, and
 * some that left earlier), people look words up, and the scheduler ticks at every moment a post falls due.
 */

/**
 * A full garbage collection, so a day's heap figure is what is still referenced. vitest's workers run without
 * --expose-gc, and a check that runs only with it would never run in `npm test`, so the flag is set here.
 */
const collectGarbage: () => void = (() => {
  const exposed: unknown = (globalThis as { gc?: unknown }).gc ?? (setFlagsFromString('--expose-gc'), runInNewContext('gc'));
  if (typeof exposed !== 'function') throw new Error('V8 did not expose gc()');
  return exposed as () => void;
})();

/** Post times that land on :00 and :30 UTC all year, two of them across a DST change in March. */
export const SCHEDULES = [
  { timeZone: 'UTC', time: '09:00' },
  { timeZone: 'Europe/London', time: '08:30' },
  { timeZone: 'America/New_York', time: '07:00' },
  { timeZone: 'Asia/Tokyo', time: '21:00' },
  { timeZone: 'Pacific/Kiritimati', time: '09:00' },
  { timeZone: 'America/Los_Angeles', time: '23:30' },
] as const;

const CHURN_AT_MS = 10 * 60_000;
const LOOKUPS_AT_MS = 12 * 60 * 60_000;
const DAY_MS = 86_400_000;

/** Seeded, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Post {
  channelId: string;
  nonce: string;
  at: number;
}

/** Discord as far as the scheduler sees it: records every post, keeps nothing else. */
class RecordingChannels implements ChannelPoster {
  readonly posts: Post[] = [];
  constructor(private readonly now: () => Date) {}

  // Every post is answered, so no retry ever needs to look for an earlier one.
  async findEarlierPost(): Promise<null> {
    throw new Error('no post was left unconfirmed, so nothing should look for one');
  }

  async post(message: DailyMessage): Promise<{ messageId: string }> {
    this.posts.push({ channelId: message.channelId, nonce: message.nonce, at: this.now().getTime() });
    return { messageId: String(this.posts.length) };
  }
}

export interface DayMeasure {
  day: IsoDate;
  deliveryRecords: number;
  oldestDeliveryDay: IsoDate | null;
  subscriptionKeys: number;
  retiredLists: number;
  guildLists: number;
  subscribed: number;
  /** Cache rows by kind (the key's prefix before ':'). */
  cacheRows: Record<string, number>;
  /** Bytes of keys and values per namespace. */
  bytes: { deliveries: number; subscriptions: number; cache: number };
  /** Pages in use in the SQLite file (page_count - freelist_count) and the page size. */
  usedPages: number;
  pageSize: number;
  scheduler: { entries: number; waits: number };
  adapter: ReturnType<WotdAdapter['footprint']>;
  pendingTimers: number;
  /** After a full collection. */
  heapUsed: number;
}

export interface LongRunOptions {
  firstDay: IsoDate;
  days: number;
  channels: number;
  churnPerDay: number;
  retentionDays?: number;
  lookups: boolean;
  seed: number;
}

export interface LongRun {
  posts: Post[];
  measures: DayMeasure[];
  /** When each channel was subscribed: [from, to) in epoch ms; to is Infinity while it still is. */
  intervals: Map<string, Array<[number, number]>>;
  scheduleOf: Map<string, (typeof SCHEDULES)[number]>;
  start: number;
  end: number;
  /** Every delivery record in the store at the end, as channel:day. */
  finalRecords: string[];
}

/** Runs the simulation and measures the store and the in-memory structures at the end of every day. */
export async function runLongRun(options: LongRunOptions): Promise<LongRun> {
  // RAM-backed where there is one: the run commits some 20 000 records and measures sizes, not durability, and each
  // commit's fsync on a shared disk would turn seconds into minutes.
  const dir = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'wotd-uptime-'));
  const dbPath = join(dir, 'words.sqlite');
  const storePath = join(dir, 'store.sqlite');
  const storeUrl = `sqlite://${storePath}`;
  const start = Date.parse(`${options.firstDay}T00:00:00Z`);
  const clock = new ManualClock(new Date(start));
  const words = Array.from({ length: 500 + options.days }, (_, i) => entryFor(addDays(options.firstDay, i - 500)));
  await writeWordDb(dbPath, words);

  const closers: Array<() => Promise<void>> = [];
  let service: RunningService | undefined;
  let adapter: WotdAdapter | undefined;
  let store: SubscriptionStore | undefined;
  let raw: sqlite3.Database | undefined;
  try {
    service = await startWotdService({ dbPath, variant: 'A', rateLimitPerMinute: 100_000, now: clock.now });
    closers.push(() => service!.close());
    adapter = await createWotdAdapter({
      baseUrl: service.url,
      store: await openStore(storeUrl, 'wotd-cache'),
      ownsStore: true,
      variant: 'A',
      rateLimit: 1_000,
      retries: 0,
      memoryRecords: 300,
      now: clock.now,
      timers: clock,
    });
    closers.unshift(() => adapter!.close());
    store = await SubscriptionStore.open(storeUrl, undefined, { now: clock.now });
    closers.unshift(() => store!.close());
    const subscriptions = createSubscriptionService({ store, limit: 10, now: clock.now });
    const poster = new RecordingChannels(clock.now);
    const scheduler = new DailyScheduler({
      store,
      lookup: adapter,
      poster,
      render: (entry) => entryEmbed(entry, { siteUrl: 'https://wotd.site' }),
      logger: captureLogger().logger,
      concurrency: 8,
      now: clock.now,
      ...(options.retentionDays !== undefined ? { retentionDays: options.retentionDays } : {}),
    });
    raw = new sqlite3.Database(storePath, sqlite3.OPEN_READONLY);
    const query = promisify(raw.all.bind(raw)) as (sql: string) => Promise<Array<Record<string, unknown>>>;

    const rand = random(options.seed);
    const guilds = Math.max(1, Math.ceil(options.channels / 6));
    const intervals = new Map<string, Array<[number, number]>>();
    const scheduleOf = new Map<string, (typeof SCHEDULES)[number]>();
    const subscribed = new Set<string>();
    const left: string[] = [];
    let nextChannel = 0;

    const subscribe = async (channelId: string): Promise<void> => {
      const schedule = scheduleOf.get(channelId) ?? SCHEDULES[Math.floor(rand() * SCHEDULES.length)]!;
      const result = await subscriptions.subscribe({
        guildId: `g${Number(channelId.slice(1)) % guilds}`,
        channelId,
        channelName: channelId,
        ...schedule,
        roleId: null,
        userId: 'admin',
      });
      if (result.kind === 'limit_reached') return;
      scheduleOf.set(channelId, schedule);
      subscribed.add(channelId);
      intervals.set(channelId, [...(intervals.get(channelId) ?? []), [clock.ms, Infinity]]);
    };
    const unsubscribe = async (channelId: string): Promise<void> => {
      await subscriptions.unsubscribe(`g${Number(channelId.slice(1)) % guilds}`, channelId);
      subscribed.delete(channelId);
      const spans = intervals.get(channelId) ?? [];
      const open = spans.at(-1);
      if (open) open[1] = clock.ms;
      left.push(channelId);
    };

    for (let i = 0; i < options.channels; i += 1) await subscribe(`c${nextChannel++}`);

    const measures: DayMeasure[] = [];
    for (let d = 0; d < options.days; d += 1) {
      const dayStart = start + d * DAY_MS;
      const day = utcDateOf(new Date(dayStart));
      const events: Array<{ at: number; kind: 'churn' | 'lookups' | 'tick' }> = [
        { at: dayStart + CHURN_AT_MS, kind: 'churn' },
        { at: dayStart + CHURN_AT_MS, kind: 'tick' },
      ];
      if (options.lookups) events.push({ at: dayStart + LOOKUPS_AT_MS, kind: 'lookups' });
      for (const schedule of SCHEDULES) {
        for (const offset of [-1, 0, 1]) {
          const postAt = slotFor(schedule, addDays(day, offset)).postAt.getTime();
          if (postAt >= dayStart && postAt < dayStart + DAY_MS) events.push({ at: postAt, kind: 'tick' });
        }
      }
      events.sort((a, b) => a.at - b.at || (a.kind === 'tick' ? 1 : 0) - (b.kind === 'tick' ? 1 : 0));

      for (const event of events) {
        clock.advanceTo(event.at);
        if (event.kind === 'tick') {
          await scheduler.tick(clock.now());
        } else if (event.kind === 'churn' && d > 0) {
          const leaving = [...subscribed].filter(() => rand() < options.churnPerDay / subscribed.size);
          for (const channelId of leaving) await unsubscribe(channelId);
          const returning = left.splice(0, Math.floor(options.churnPerDay / 3)).filter((id) => !subscribed.has(id));
          for (const channelId of returning) await subscribe(channelId);
          while (subscribed.size < options.channels) await subscribe(`c${nextChannel++}`);
        } else if (event.kind === 'lookups') {
          await adapter.getEntry(undefined, INTERACTIVE);
          await adapter.getPrevious(undefined, 5, INTERACTIVE);
          // People ask about the same few dates and words again and again.
          await adapter.getEntry(addDays(options.firstDay, -10 - Math.floor(rand() * 20)), INTERACTIVE);
          await adapter.findWord(`word-${addDays(options.firstDay, -10 - Math.floor(rand() * 20))}`, INTERACTIVE);
          for (let k = 0; k < 5; k += 1) await adapter.findWord(`nonsense-${day}-${k}`, INTERACTIVE).catch(() => undefined);
          await adapter.getEntry(addDays(options.firstDay, -900 - d), INTERACTIVE).catch(() => undefined);
          await adapter.suggestWords('word-20', 10);
          await subscriptions.list(`g${Math.floor(rand() * guilds)}`);
        }
      }
      await adapter.settled();

      const rows = await query("SELECT key FROM keyv WHERE key LIKE 'deliveries:%' OR key LIKE 'subscriptions:%' OR key LIKE 'wotd-cache:%'");
      const keys = rows.map((row) => String(row.key));
      const deliveries = keys.filter((key) => key.startsWith('deliveries:')).map((key) => key.slice('deliveries:'.length));
      const subscriptionKeys = keys.filter((key) => key.startsWith('subscriptions:')).map((key) => key.slice('subscriptions:'.length));
      const cacheRows: Record<string, number> = {};
      for (const key of keys.filter((k) => k.startsWith('wotd-cache:'))) {
        const kind = key.slice('wotd-cache:'.length).split(':')[0] ?? '';
        cacheRows[kind] = (cacheRows[kind] ?? 0) + 1;
      }
      const [bytes] = await query(
        "SELECT (SELECT sum(length(key) + length(value)) FROM keyv WHERE key LIKE 'deliveries:%') AS deliveries, " +
          "(SELECT sum(length(key) + length(value)) FROM keyv WHERE key LIKE 'subscriptions:%') AS subscriptions, " +
          "(SELECT sum(length(key) + length(value)) FROM keyv WHERE key LIKE 'wotd-cache:%') AS cache",
      );
      const [pages] = await query('SELECT (SELECT page_count FROM pragma_page_count()) AS pages, (SELECT freelist_count FROM pragma_freelist_count()) AS free, (SELECT page_size FROM pragma_page_size()) AS size');
      collectGarbage();
      measures.push({
        day,
        deliveryRecords: deliveries.length,
        oldestDeliveryDay: deliveries.map((key) => key.slice(key.lastIndexOf(':') + 1)).sort()[0] ?? null,
        subscriptionKeys: subscriptionKeys.length,
        retiredLists: subscriptionKeys.filter((key) => key.startsWith('retired:')).length,
        guildLists: subscriptionKeys.filter((key) => key.startsWith('guild:')).length,
        subscribed: subscribed.size,
        cacheRows,
        bytes: { deliveries: Number(bytes?.deliveries ?? 0), subscriptions: Number(bytes?.subscriptions ?? 0), cache: Number(bytes?.cache ?? 0) },
        usedPages: Number(pages?.pages) - Number(pages?.free),
        pageSize: Number(pages?.size),
        scheduler: scheduler.footprint(),
        adapter: adapter.footprint(),
        pendingTimers: clock.timerCount,
        heapUsed: process.memoryUsage().heapUsed,
      });
    }

    const finalRows = await query("SELECT key FROM keyv WHERE key LIKE 'deliveries:%'");
    return {
      posts: poster.posts,
      measures,
      intervals,
      scheduleOf,
      start,
      end: clock.ms,
      finalRecords: finalRows.map((row) => String(row.key).slice('deliveries:'.length)).sort(),
    };
  } finally {
    if (raw) await promisify(raw.close.bind(raw))();
    for (const close of closers) await close();
    await rm(dir, { recursive: true, force: true });
  }
}
