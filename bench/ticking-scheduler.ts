import type { Logger } from 'pino';
import { DailyScheduler } from '../src/schedule/scheduler.ts';
import { SubscriptionStore } from '../src/schedule/subscription-store.ts';
import type { StoreLocation } from '../src/store/open-store.ts';
import { BENCH_NOON } from './tick-day.ts';

/**
 * The daily scheduler of a store that bench:tick seeded and kept in its "sent" state (every post of the day made),
 * ticking beside a bot in the same thread: `bench:commands` with COMMANDS_BESIDE_TICKS. A tick every quarter of a
 * second, each a simulated minute later, from noon of bench:tick's day on, so a run of a few minutes stays within that
 * day's idle afternoon; the real bot ticks once a minute, so this is 240 times its tick load. A tick that finds anything due
 * is counted (`busy`): the store was not in the state this measures.
 */
export interface TickingScheduler {
  start(): void;
  /** Stops ticking, waits for a tick under way; what the ticks since start() cost. */
  stop(): Promise<{ ticks: number; busy: number; maxWallMs: number }>;
  close(): Promise<void>;
}

const TICK_EVERY_MS = 250;
/** A simulated minute per tick. */
const SIMULATED_MS_PER_REAL_MS = 60_000 / TICK_EVERY_MS;

export async function openTickingScheduler(location: StoreLocation, logger: Logger): Promise<TickingScheduler> {
  const store = await SubscriptionStore.open(location, logger);
  const scheduler = new DailyScheduler({
    store,
    logger,
    concurrency: 20,
    dueIndexBuilt: true,
    lookup: { getEntry: () => Promise.reject(new Error('no entry is needed: nothing is due')) },
    render: () => ({}),
    poster: {
      post: () => Promise.reject(new Error('nothing should be posted')),
      findEarlierPost: async () => null,
    },
  });
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let figures = { ticks: 0, busy: 0, maxWallMs: 0 };
  const startedAt = { real: 0 };
  const tick = async () => {
    const at = new Date(BENCH_NOON + (performance.now() - startedAt.real) * SIMULATED_MS_PER_REAL_MS);
    const before = performance.now();
    const report = await scheduler.tick(at);
    figures.maxWallMs = Math.max(figures.maxWallMs, performance.now() - before);
    figures.ticks += 1;
    if (report.total !== 0 || report.waitingForEntry !== 0) figures.busy += 1;
  };
  return {
    start() {
      figures = { ticks: 0, busy: 0, maxWallMs: 0 };
      startedAt.real = performance.now();
      timer = setInterval(() => {
        running = running.then(tick, tick).catch((error: unknown) => {
          figures.busy += 1;
          logger.error({ err: error }, 'bench: a tick failed');
        });
      }, TICK_EVERY_MS);
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
      return figures;
    },
    close: () => store.close(),
  };
}
