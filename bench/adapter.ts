/**
 * npm run bench:adapter — one simulated day of lookups through the adapter, in accelerated time, twice: without the
 * database mirror (mirror=off) and with it (mirror=on: the mirror is refreshed from the service's own /databases at
 * the start of the day, the download counted with the upstream requests).
 *
 * Our own service (data/words.sqlite, its 10 requests/minute limit on) and the adapter (10/minute limiter,
 * SQLite cache in a temp dir) share a manual clock; 100,000 lookups arrive evenly over 24 simulated hours:
 * 20% today's word, 5% a history page, 5% a word search (a tenth of them for words that never ran), the rest
 * a date drawn Zipf-like over the last three years. Lookups are interactive with a bounded wait of
 * MAX_WAIT_MS simulated milliseconds for the limiter; past it they count as "busy" (or are served stale).
 * Answer times of lookups served from cache are measured in real milliseconds.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startWotdService } from '../src/service/server.ts';
import { readWordDb } from '../src/service/word-db.ts';
import { createLogger } from '../src/config/logger.ts';
import { InProcessLock } from '../src/store/lock.ts';
import { openStore } from '../src/store/open-store.ts';
import { createWotdAdapter, type WotdAdapter } from '../src/wotd/adapter.ts';
import { MirrorHolder } from '../src/wotd/mirror/mirror-holder.ts';
import { MirrorRefresher } from '../src/wotd/mirror/mirror-refresh.ts';
import { MIRROR_NAMESPACE, MirrorStore } from '../src/wotd/mirror/mirror-store.ts';
import { addDays, utcDateOf, type IsoDate } from '../src/wotd/dates.ts';
import { isWotdError } from '../src/wotd/errors.ts';
import { seededRandom } from '../scripts/sample-data/select.ts';
import { ManualClock } from '../test/support/upstream/manual-clock.ts';

const LOOKUPS = 100_000;
const DAY_MS = 86_400_000;
const START = '2026-03-01T00:00:00Z';
const HISTORY_DAYS = 3 * 365;
const ZIPF_EXPONENT = 1;
const MAX_WAIT_MS = 3_000;
const DB_PATH = 'data/words.sqlite';

function zipfSampler(n: number, exponent: number, random: () => number): () => number {
  const cdf: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= n; rank++) {
    total += 1 / rank ** exponent;
    cdf.push(total);
  }
  return () => {
    const target = random() * total;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((cdf[mid] ?? total) < target) low = mid + 1;
      else high = mid;
    }
    return low + 1;
  };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function runDay(mirrorOn: boolean): Promise<string> {
  const wallStart = performance.now();
  const dir = await mkdtemp(join(tmpdir(), 'wotd-bench-'));
  const clock = new ManualClock(START);
  const service = await startWotdService({ dbPath: DB_PATH, variant: 'A', rateLimitPerMinute: 10, now: clock.now });
  const wordOf = new Map((await readWordDb(DB_PATH)).map((entry) => [entry.date, entry.word]));
  const store = await openStore(`sqlite://${join(dir, 'cache.sqlite')}`, 'wotd-cache');
  const statuses = new Map<number, number>();
  const holder = new MirrorHolder();
  const countingFetch: typeof fetch = async (url, init) => {
    const response = await fetch(url, init);
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    return response;
  };
  const adapter = await createWotdAdapter({
    baseUrl: service.url,
    store,
    ownsStore: true,
    variant: 'auto',
    rateLimit: 10,
    now: clock.now,
    timers: clock,
    fetch: countingFetch,
    ...(mirrorOn ? { mirror: holder } : {}),
  });
  let mirrorNote = 'off';
  let closeMirror = async (): Promise<void> => undefined;
  if (mirrorOn) {
    const mirrorStore = await openStore(`sqlite://${join(dir, 'store.sqlite')}`, MIRROR_NAMESPACE, { throwOnErrors: true });
    const lock = new InProcessLock(`bench:${dir}`);
    const refresher = new MirrorRefresher({
      source: { kind: 'site', origin: service.url },
      store: new MirrorStore(mirrorStore, lock),
      holder,
      lookup: adapter,
      logger: createLogger({ level: 'silent' }),
      now: clock.now,
      timers: clock,
      fetch: countingFetch,
      tempParent: dir,
    });
    const report = await settleWithClock(clock, adapter, refresher.runOnce());
    mirrorNote = `${report?.outcome ?? 'not run'}: ${holder.current()?.rows ?? 0} rows through ${holder.current()?.coveredThrough ?? '-'} (${report?.detail ?? ''})`;
    closeMirror = async () => {
      await refresher.close();
      await lock.close();
      await mirrorStore.disconnect();
    };
  }

  // Seeded, so every run draws the same day.
  const random = seededRandom(20260301);
  const daysAgo = zipfSampler(HISTORY_DAYS, ZIPF_EXPONENT, random);
  const startMs = clock.ms;
  const cachedTimes: number[] = [];
  const busyMinutes: number[] = [];
  const outcomes = { found: 0, notFound: 0, busy: 0, stale: 0, other: 0 };
  let settled = 0;
  const kinds = { today: 0, date: 0, history: 0, find: 0 };

  for (let i = 0; i < LOOKUPS; i++) {
    clock.advanceTo(startMs + Math.floor((i * DAY_MS) / LOOKUPS));
    const today = utcDateOf(clock.now());
    const pastDay = (): IsoDate => addDays(today, -daysAgo());
    const draw = random();
    const options = { priority: 'interactive' as const, maxWaitMs: MAX_WAIT_MS };
    let lookup: () => Promise<{ fromCache: boolean; stale: boolean }>;
    if (draw < 0.2) {
      kinds.today++;
      lookup = () => adapter.getEntry(undefined, options);
    } else if (draw < 0.25) {
      kinds.history++;
      const before = random() < 0.3 ? today : pastDay();
      const limit = 1 + Math.floor(random() * 8);
      lookup = () => adapter.getPrevious(before, limit, options);
    } else if (draw < 0.3) {
      kinds.find++;
      const word = random() < 0.1 ? `nonword${Math.floor(random() * 500)}` : (wordOf.get(pastDay()) ?? 'absent');
      lookup = () => adapter.findWord(word, options);
    } else {
      kinds.date++;
      const day = pastDay();
      lookup = () => adapter.getEntry(day, options);
    }

    const before = adapter.stats();
    const began = performance.now();
    let done = false;
    lookup()
      .then(
        (result) => {
          if (result.stale) outcomes.stale++;
          else outcomes.found++;
          if (result.fromCache && !result.stale) cachedTimes.push(performance.now() - began);
        },
        (error: unknown) => {
          const elapsed = performance.now() - began;
          if (isWotdError(error, 'not_found')) {
            outcomes.notFound++;
            const after = adapter.stats();
            if (after.cacheHits > before.cacheHits && after.upstreamRequests === before.upstreamRequests) cachedTimes.push(elapsed);
          } else if (isWotdError(error, 'rate_limited')) {
            outcomes.busy++;
            busyMinutes.push(Math.floor((clock.ms - startMs) / 60_000));
          }
          else {
            outcomes.other++;
            process.stderr.write(`lookup failed: ${String(error)}\n`);
          }
        },
      )
      .finally(() => {
        done = true;
        settled++;
      });
    // Let the lookup finish (cache reads, an HTTP exchange) unless it is waiting for the limiter: then the
    // simulated clock must move on for it to be served.
    while (!done) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (done) break;
      const now = adapter.stats();
      if (now.inFlight === 0 && now.waitingLookups > before.waitingLookups) break;
    }
  }
  // Let whatever still waits for the limiter finish.
  while (settled < LOOKUPS) {
    await new Promise<void>((resolve) => setTimeout(resolve, 1));
    if (adapter.stats().inFlight === 0) clock.runNext();
  }

  const stats = adapter.stats();
  await closeMirror();
  await adapter.close();
  await service.close();
  await rm(dir, { recursive: true, force: true });

  cachedTimes.sort((a, b) => a - b);
  const hitRatio = stats.cacheHits / stats.lookups;
  const p50 = percentile(cachedTimes, 50);
  const p99 = percentile(cachedTimes, 99);
  const simulatedHours = (clock.ms - startMs) / 3_600_000;
  const statusText = [...statuses.entries()].map(([status, count]) => `${status}×${count}`).join(' ');
  const lines = [
    `adapter benchmark, mirror ${mirrorOn ? 'on' : 'off'}: ${LOOKUPS} lookups over ${simulatedHours.toFixed(1)} simulated hours from ${START}, against our service (10/min limit on)`,
    ...(mirrorOn ? [`  mirror: ${mirrorNote}; ${stats.mirrorHits} lookups answered from it`] : []),
    `  mix: today ${kinds.today}, past dates ${kinds.date} (Zipf s=${ZIPF_EXPONENT} over ${HISTORY_DAYS} days), history ${kinds.history}, find ${kinds.find}`,
    `  upstream: ${stats.upstreamRequests} requests (${(stats.upstreamRequests / (simulatedHours * 60)).toFixed(2)}/min on average; statuses ${statusText}), 429s ${stats.upstream429}`,
    `  cache: ${stats.cacheHits} hits of ${stats.lookups} lookups (${(hitRatio * 100).toFixed(2)}%), ${stats.coalesced} joined a request under way`,
    `  outcomes: ${outcomes.found} found, ${outcomes.notFound} not found, ${outcomes.stale} stale, ${outcomes.busy} busy after waiting up to ${MAX_WAIT_MS / 1000} s, ${outcomes.other} other failures`,
    `  busy lookups fell in simulated minutes ${busyMinutes.length > 0 ? `${Math.min(...busyMinutes)} to ${Math.max(...busyMinutes)} of the day` : '(none)'}`,
    `  cached answers (${cachedTimes.length}): p50 ${p50.toFixed(3)} ms, p99 ${p99.toFixed(3)} ms, max ${(cachedTimes.at(-1) ?? Number.NaN).toFixed(3)} ms (real time)`,
    `  wall time ${((performance.now() - wallStart) / 1000).toFixed(1)} s`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return `bench adapter: mirror=${mirrorOn ? 'on' : 'off'} lookups=${LOOKUPS} upstream_requests=${stats.upstreamRequests} upstream_429=${stats.upstream429} hit_ratio=${hitRatio.toFixed(4)} cached_p50_ms=${p50.toFixed(3)} cached_p99_ms=${p99.toFixed(3)} busy=${outcomes.busy}`;
}

/** Settles `promise` (the mirror's first refresh), moving the manual clock whenever the adapter waits for its limiter. */
async function settleWithClock<T>(clock: ManualClock, adapter: WotdAdapter, promise: Promise<T>): Promise<T> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) {
    await new Promise<void>((resolve) => setTimeout(resolve, 2));
    if (!settled && adapter.stats().inFlight === 0) clock.runNext();
  }
  return promise;
}

// Both days, then their lines together, so one run gives the comparison.
const summary = [await runDay(false), await runDay(true)];
process.stdout.write(`${summary.join('\n')}\n`);
