/**
 * The child of bench:tick (bench/tick.ts): opens a seeded store as the bot does, runs the scheduler's first pass and
 * then idle ticks on a fixed clock, and prints one `result key=value …` line. Nothing may be posted: every post is
 * either recorded as sent already or still ahead. Last, as a baseline in the same process, one pass that reads what
 * a tick read before the index (every subscription, and the records of those whose time has passed today).
 */
import { createLogger } from '../src/config/logger.ts';
import { deliverableSlots } from '../src/schedule/due.ts';
import { ensureDueIndex } from '../src/schedule/due-index-build.ts';
import { DEFAULT_DELIVERY_RETENTION_DAYS, pruneDeliveries } from '../src/schedule/delivery-retention.ts';
import { DailyScheduler } from '../src/schedule/scheduler.ts';
import { SubscriptionStore } from '../src/schedule/subscription-store.ts';
import type { StoreLocation } from '../src/store/open-store.ts';
import { threadCpu, threadCpuSince, type ThreadCpu } from './thread-cpu.ts';
import { BENCH_NOON } from './tick-day.ts';

const spawnedAt = Number(process.env.BENCH_TICK_SPAWNED_AT);
const location = JSON.parse(process.env.BENCH_TICK_LOCATION ?? '{}') as StoreLocation;
const ticks = Number(process.env.BENCH_TICK_TICKS ?? '10');
const withScan = process.env.BENCH_TICK_SCAN !== '0';
const withPrune = process.env.BENCH_TICK_PRUNE === '1';
const NOON = BENCH_NOON;
// The "later" state's first post time is 12:30: the idle ticks stay before it, a minute apart or closer.
const STEP_MS = Math.min(60_000, Math.floor((29 * 60_000) / Math.max(1, ticks)));

const rssMb = () => process.memoryUsage.rss() / 1_048_576;
const fixed = (value: number, digits = 1) => value.toFixed(digits);
const logger = createLogger({ level: 'warn' });
const store = await SubscriptionStore.open(location, logger);
await ensureDueIndex(store, logger);
let posts = 0;
const scheduler = new DailyScheduler({
  store,
  logger,
  concurrency: 20,
  dueIndexBuilt: true,
  lookup: { getEntry: async () => Promise.reject(new Error('no entry is needed: nothing is due')) },
  render: () => ({}),
  poster: {
    post: async () => {
      posts += 1;
      throw new Error('nothing should be posted');
    },
    findEarlierPost: async () => null,
  },
});
const firstStart = performance.now();
const rssBeforeFirst = rssMb();
let rssPeakFirst = rssBeforeFirst;
const firstSampler = setInterval(() => (rssPeakFirst = Math.max(rssPeakFirst, rssMb())), 20);
const first = await scheduler.tick(new Date(NOON));
clearInterval(firstSampler);
const firstPassMs = performance.now() - firstStart;
const firstPassRssClimb = Math.max(rssPeakFirst, rssMb()) - rssBeforeFirst;
const startupMs = Date.now() - spawnedAt;
const idleTicks: Array<{ cpu: number; wall: number; threads: ThreadCpu }> = [];
let rssLow = rssMb();
let rssHigh = rssLow;
for (let i = 1; i <= ticks; i += 1) {
  const threadsBefore = threadCpu();
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const report = await scheduler.tick(new Date(NOON + i * STEP_MS));
  const wall = performance.now() - wallBefore;
  const cpu = process.cpuUsage(cpuBefore);
  idleTicks.push({ cpu: (cpu.user + cpu.system) / 1000, wall, threads: threadCpuSince(threadsBefore) });
  if (report.total !== 0 || report.waitingForEntry !== 0) throw new Error(`an idle tick found ${report.total + report.waitingForEntry} posts due`);
  const rss = rssMb();
  rssLow = Math.min(rssLow, rss);
  rssHigh = Math.max(rssHigh, rss);
}
const idleRss = rssMb();
// The daily pruning of delivery records, which the first tick of each UTC day runs: one day's pass (the store's
// mark is moved on by a day each run), with the most RSS rose during it, sampled every 20 ms.
let pruned = '';
if (withPrune) {
  const mark = await store.deliveryPruneMark();
  const today = new Date(Date.parse(`${mark ?? '2026-06-14'}T00:00:00Z`) + (DEFAULT_DELIVERY_RETENTION_DAYS + 2) * 86_400_000).toISOString().slice(0, 10);
  const rssBefore = rssMb();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMb())), 20);
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const report = await pruneDeliveries(store, today, DEFAULT_DELIVERY_RETENTION_DAYS);
  const cpu = process.cpuUsage(cpuBefore);
  clearInterval(sampler);
  const mode = report === null ? 'none' : report.scanned ? 'scan' : 'daily';
  pruned = ` prune_pass=${mode} prune_cpu_ms=${Math.round((cpu.user + cpu.system) / 1000)} prune_wall_ms=${Math.round(performance.now() - wallBefore)} prune_rss_climb_mb=${fixed(Math.max(rssPeak, rssMb()) - rssBefore)} rss_after_prune_mb=${fixed(rssMb())}`;
}
// The baseline, in the same process: one pass as the scheduler made it before the index (every subscription read,
// and the delivery records of those whose post time has passed today).
const scanCpuBefore = process.cpuUsage();
const scanWallBefore = performance.now();
const scanNow = new Date(NOON + (ticks + 1) * STEP_MS);
for await (const page of withScan ? store.pages() : []) {
  const byDay = new Map<string, string[]>();
  for (const subscription of page) {
    for (const slot of deliverableSlots(subscription, scanNow)) byDay.set(slot.serviceDay, [...(byDay.get(slot.serviceDay) ?? []), subscription.channelId]);
  }
  for (const [day, ids] of byDay) await store.getDeliveries(ids, day);
}
const scanCpu = process.cpuUsage(scanCpuBefore);
const scanWallMs = performance.now() - scanWallBefore;
await store.close();
if (posts > 0 || first.total > 0 || first.waitingForEntry > 0) throw new Error(`posts were due: first pass ${first.total}, posted ${posts}`);
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const scanned = withScan ? ` full_scan_cpu_ms=${Math.round((scanCpu.user + scanCpu.system) / 1000)} full_scan_wall_ms=${Math.round(scanWallMs)}` : '';
process.stdout.write(
  `result startup_ms=${startupMs} first_pass_ms=${Math.round(firstPassMs)} first_pass_rss_climb_mb=${fixed(firstPassRssClimb)} cpu_ms_per_idle_tick=${fixed(mean(idleTicks.map((t) => t.cpu)), 2)} cpu_ms_p50=${fixed(median(idleTicks.map((t) => t.cpu)), 2)} main_thread_cpu_ms=${fixed(mean(idleTicks.map((t) => t.threads.main)), 3)} other_threads_cpu_ms=${fixed(mean(idleTicks.map((t) => t.threads.others)), 3)} tick_wall_ms=${fixed(mean(idleTicks.map((t) => t.wall)), 2)} idle_rss_mb=${fixed(idleRss)} rss_climb_mb=${fixed(rssHigh - rssLow)}${pruned}${scanned}\n`,
);
process.exit(0);
