import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DeliveryOutcome } from '../schedule/delivery.ts';
import type { SchedulerObserver } from '../schedule/scheduler.ts';

const POST_OUTCOMES: Record<DeliveryOutcome, 'sent' | 'failed' | 'refused' | 'retrying' | 'skipped'> = {
  sent: 'sent',
  forbidden: 'failed',
  gone: 'failed',
  refused: 'refused',
  transient: 'retrying',
  skipped: 'skipped',
};
const TICK_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300];

/** How the metrics learn, and tell, when the scheduler last showed life (health reads the same). */
export interface SchedulerLiveness {
  /** A tick finished well, or a post of a fan-out still running did. */
  sawLife(): void;
  /** Since the scheduler last showed life (since start, before the first). */
  tickAgeMs(): number;
}

/** The daily scheduler's passes, fan-outs and posts. Returns the scheduler's observer. */
export function registerDailyPostMetrics(registers: Registry[], liveness: SchedulerLiveness): SchedulerObserver {
  const posts = new Counter({
    name: 'wotd_bot_daily_posts_total',
    help: 'Daily posts finished, by outcome: sent, failed (no permission or channel gone), refused (Discord rejected the message: 400), retrying (a transient failure), skipped.',
    labelNames: ['outcome'] as const,
    registers,
  });
  const damagedDeliveries = new Counter({
    name: 'wotd_bot_delivery_records_damaged_total',
    help: 'Delivery records found unreadable when their post was due; each day is confirmed against the channel before posting.',
    registers,
  });
  const pinFailures = new Counter({
    name: 'wotd_bot_daily_post_pin_failures_total',
    help: 'Daily posts made whose pin (or the previous post\'s unpin) failed; the post stands, the reason is in its status.',
    registers,
  });
  const fanOutSize = new Gauge({ name: 'wotd_bot_fanout_size', help: 'Posts in the current (or last) fan-out.', registers });
  const fanOutDone = new Gauge({ name: 'wotd_bot_fanout_done', help: 'Posts of the current (or last) fan-out finished so far.', registers });
  const fanOutRunning = new Gauge({ name: 'wotd_bot_fanout_running', help: 'Whether a fan-out is running (1) or not (0).', registers });
  const ticks = new Counter({
    name: 'wotd_bot_scheduler_ticks_total',
    help: 'Daily scheduler passes, by outcome (ok, error).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const tickDuration = new Histogram({
    name: 'wotd_bot_scheduler_tick_duration_seconds',
    help: 'How long each scheduler pass took, its fan-out included.',
    buckets: TICK_BUCKETS,
    registers,
  });
  new Gauge({
    name: 'wotd_bot_scheduler_last_tick_age_seconds',
    help: 'Seconds since the scheduler last finished a pass or a post (since start, before the first).',
    registers,
    collect() {
      this.set(liveness.tickAgeMs() / 1000);
    },
  });

  // Known label sets start at 0, so rate() and increase() see their first event.
  for (const outcome of new Set(Object.values(POST_OUTCOMES))) posts.inc({ outcome }, 0);
  for (const outcome of ['ok', 'error']) ticks.inc({ outcome }, 0);

  return {
    tickDone: (result) => {
      ticks.inc({ outcome: result.ok ? 'ok' : 'error' });
      tickDuration.observe(result.ms / 1000);
      fanOutRunning.set(0);
      if (result.ok) liveness.sawLife();
    },
    fanOutStarted: (total) => {
      fanOutSize.set(total);
      fanOutDone.set(0);
      fanOutRunning.set(1);
    },
    postDone: (outcome) => {
      posts.inc({ outcome: POST_OUTCOMES[outcome] });
      fanOutDone.inc();
      liveness.sawLife();
    },
    damagedRecord: () => {
      damagedDeliveries.inc();
    },
    pinFailed: () => {
      pinFailures.inc();
    },
  };
}
