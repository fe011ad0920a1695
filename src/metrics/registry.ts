import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { InteractionDone, InteractionObserver } from '../replies/interaction-outcome.ts';
import type { DeliveryOutcome } from '../schedule/delivery.ts';
import type { SchedulerObserver } from '../schedule/scheduler.ts';
import type { SubscriptionStatus } from '../schedule/subscription.ts';
import { StoreWatch, type StoreCheck } from '../store/store-watch.ts';
import type { UpstreamEvent } from '../wotd/upstream-request.ts';
import { checkHealth, type HealthReport } from './health.ts';
import type { AdapterView, DiscordView, StoreView } from './sources.ts';

/**
 * The bot's metrics on a registry of their own (never prom-client's global one, so several bots in one process,
 * as in the tests, do not mix). The domain reports through plain observers (interactionDone, upstreamRequest,
 * scheduler); the gateway, the adapter's counters and the subscriptions are read when scraped.
 * README "Health and metrics" lists every metric; keep the two in step.
 */

export interface BotMetricsOptions {
  /** On Discord the gateway is checked; at the console it is not applicable. */
  mode: 'discord' | 'console';
  /** How long a count of subscriptions by state is reused (default 15 s): counting reads every subscription. */
  subscriptionsCacheMs?: number;
  /** The scheduler is healthy when it last ticked (or finished a post) at most this long ago (default 3 minutes). */
  maxTickAgeMs?: number;
  /** How long /healthz waits for the store to answer (default 2 s). */
  storeTimeoutMs?: number;
  /** Node.js and process metrics (default on). */
  defaultMetrics?: boolean;
  /** Epoch milliseconds; for tests of the scheduler's age. */
  now?: () => number;
}

const SUBSCRIPTION_STATES: ReadonlyArray<SubscriptionStatus['state']> = ['active', 'failing', 'disabled'];
const POST_OUTCOMES: Record<DeliveryOutcome, 'sent' | 'failed' | 'refused' | 'retrying' | 'skipped'> = {
  sent: 'sent',
  forbidden: 'failed',
  gone: 'failed',
  refused: 'refused',
  transient: 'retrying',
  skipped: 'skipped',
};
const INTERACTION_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30];
const UPSTREAM_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const TICK_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300];

export class BotMetrics {
  readonly registry = new Registry();
  readonly mode: BotMetricsOptions['mode'];
  private readonly now: () => number;
  private readonly startedAt: number;
  private readonly subscriptionsCacheMs: number;
  readonly maxTickAgeMs: number;
  readonly storeTimeoutMs: number;
  private discord: DiscordView | null = null;
  private adapter: AdapterView | null = null;
  private store: StoreView | null = null;
  /** Stores watched besides the subscriptions' and the cache's (the cluster's claims). */
  private otherStores: StoreCheck[] = [];
  /** When the scheduler last showed life: a tick that finished, or a post of a fan-out still running. */
  private lastTickAt: number | null = null;
  private subscriptionCounts: { at: number; counts: Promise<Record<string, number>> } | null = null;

  private readonly interactions: Counter<'kind' | 'name' | 'outcome'>;
  private readonly firstResponse: Histogram<'kind' | 'name'>;
  private readonly interactionDuration: Histogram<'kind' | 'name' | 'outcome'>;
  private readonly upstreamRequests: Counter<'endpoint' | 'outcome'>;
  private readonly upstreamDuration: Histogram<'endpoint'>;
  private readonly tooManyRequests: Counter<'service'>;
  private readonly discordWaits: Counter;
  private readonly posts: Counter<'outcome'>;
  private readonly damagedDeliveries: Counter;
  private readonly fanOutSize: Gauge;
  private readonly fanOutDone: Gauge;
  private readonly fanOutRunning: Gauge;
  private readonly ticks: Counter<'outcome'>;
  private readonly tickDuration: Histogram;

  constructor(options: BotMetricsOptions) {
    this.mode = options.mode;
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    this.subscriptionsCacheMs = options.subscriptionsCacheMs ?? 15_000;
    this.maxTickAgeMs = options.maxTickAgeMs ?? 3 * 60_000;
    this.storeTimeoutMs = options.storeTimeoutMs ?? 2_000;
    const registers = [this.registry];
    const metrics = this;

    // Gateway, read from the client when scraped.
    new Gauge({
      name: 'wotd_bot_gateway_connected',
      help: 'Whether the gateway shard is connected and receiving events (1) or not (0).',
      labelNames: ['shard'] as const,
      registers,
      collect() {
        this.reset();
        for (const shard of metrics.discord?.shards() ?? []) this.set({ shard: String(shard.id) }, shard.connected ? 1 : 0);
      },
    });
    new Gauge({
      name: 'wotd_bot_gateway_shard_state',
      help: 'The gateway shard\'s state as discord.js names it: 1 for the current state.',
      labelNames: ['shard', 'state'] as const,
      registers,
      collect() {
        this.reset();
        for (const shard of metrics.discord?.shards() ?? []) this.set({ shard: String(shard.id), state: shard.state }, 1);
      },
    });
    new Gauge({
      name: 'wotd_bot_gateway_latency_seconds',
      help: 'Round trip of the shard\'s last gateway heartbeat (absent before the first).',
      labelNames: ['shard'] as const,
      registers,
      collect() {
        this.reset();
        for (const shard of metrics.discord?.shards() ?? []) {
          if (shard.latencyMs !== null) this.set({ shard: String(shard.id) }, shard.latencyMs / 1000);
        }
      },
    });

    this.interactions = new Counter({
      name: 'wotd_bot_interactions_total',
      help: 'Commands, buttons and autocompletes handled, by kind, name and outcome (ok, user_error, upstream_error, internal_error).',
      labelNames: ['kind', 'name', 'outcome'] as const,
      registers,
    });
    this.firstResponse = new Histogram({
      name: 'wotd_bot_interaction_first_response_seconds',
      help: 'From receiving an interaction to Discord accepting its first acknowledgement (reply, deferral, update).',
      labelNames: ['kind', 'name'] as const,
      buckets: INTERACTION_BUCKETS,
      registers,
    });
    this.interactionDuration = new Histogram({
      name: 'wotd_bot_interaction_duration_seconds',
      help: 'From receiving an interaction to its handling being complete (the final answer accepted by Discord).',
      labelNames: ['kind', 'name', 'outcome'] as const,
      buckets: INTERACTION_BUCKETS,
      registers,
    });

    this.upstreamRequests = new Counter({
      name: 'wotd_bot_upstream_requests_total',
      help: 'Requests to the Word-of-the-Day service (retries included), by endpoint and outcome.',
      labelNames: ['endpoint', 'outcome'] as const,
      registers,
    });
    this.upstreamDuration = new Histogram({
      name: 'wotd_bot_upstream_request_duration_seconds',
      help: 'How long each request to the Word-of-the-Day service took, by endpoint.',
      labelNames: ['endpoint'] as const,
      buckets: UPSTREAM_BUCKETS,
      registers,
    });
    this.tooManyRequests = new Counter({
      name: 'wotd_bot_429_responses_total',
      help: '429 Too Many Requests answers received, by service (wotd: the Word-of-the-Day service; discord: Discord REST).',
      labelNames: ['service'] as const,
      registers,
    });
    this.discordWaits = new Counter({
      name: 'wotd_bot_discord_rate_limit_waits_total',
      help: 'Discord REST requests discord.js held back to stay inside a rate limit it knew of.',
      registers,
    });
    new Gauge({
      name: 'wotd_bot_upstream_queued',
      help: 'Requests to the Word-of-the-Day service waiting for the rate limiter.',
      registers,
      collect() {
        this.reset();
        const stats = metrics.adapter?.stats();
        if (stats) this.set(stats.queued);
      },
    });
    new Gauge({
      name: 'wotd_bot_upstream_in_flight',
      help: 'Requests to the Word-of-the-Day service under way.',
      registers,
      collect() {
        this.reset();
        const stats = metrics.adapter?.stats();
        if (stats) this.set(stats.inFlight);
      },
    });

    // The adapter counts its cache itself; these copy its counters when scraped.
    new Counter({
      name: 'wotd_bot_cache_lookups_total',
      help: 'Lookups answered from the cache (hit) or not (miss: sent to the service, or joined a request under way).',
      labelNames: ['result'] as const,
      registers,
      collect() {
        this.reset();
        const stats = metrics.adapter?.stats();
        if (!stats) return;
        this.inc({ result: 'hit' }, stats.cacheHits);
        this.inc({ result: 'miss' }, stats.cacheMisses);
      },
    });
    new Gauge({
      name: 'wotd_bot_cache_hit_ratio',
      help: 'Cache hits over hits and misses since start (absent before the first lookup).',
      registers,
      collect() {
        this.reset();
        const stats = metrics.adapter?.stats();
        const looked = stats ? stats.cacheHits + stats.cacheMisses : 0;
        if (stats && looked > 0) this.set(stats.cacheHits / looked);
      },
    });
    new Counter({
      name: 'wotd_bot_cache_stale_served_total',
      help: 'Lookups answered from an expired cache entry because the service failed.',
      registers,
      collect() {
        this.reset();
        const stats = metrics.adapter?.stats();
        if (stats) this.inc(stats.staleServed);
      },
    });

    this.posts = new Counter({
      name: 'wotd_bot_daily_posts_total',
      help: 'Daily posts finished, by outcome: sent, failed (no permission or channel gone), refused (Discord rejected the message: 400), retrying (a transient failure), skipped.',
      labelNames: ['outcome'] as const,
      registers,
    });
    this.damagedDeliveries = new Counter({
      name: 'wotd_bot_delivery_records_damaged_total',
      help: 'Delivery records found unreadable when their post was due; each day is confirmed against the channel before posting.',
      registers,
    });
    this.fanOutSize = new Gauge({ name: 'wotd_bot_fanout_size', help: 'Posts in the current (or last) fan-out.', registers });
    this.fanOutDone = new Gauge({ name: 'wotd_bot_fanout_done', help: 'Posts of the current (or last) fan-out finished so far.', registers });
    this.fanOutRunning = new Gauge({ name: 'wotd_bot_fanout_running', help: 'Whether a fan-out is running (1) or not (0).', registers });
    this.ticks = new Counter({
      name: 'wotd_bot_scheduler_ticks_total',
      help: 'Daily scheduler passes, by outcome (ok, error).',
      labelNames: ['outcome'] as const,
      registers,
    });
    this.tickDuration = new Histogram({
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
        this.set(metrics.tickAgeMs() / 1000);
      },
    });
    new Counter({
      name: 'wotd_bot_store_errors_total',
      help: 'Store operations that failed, by store (subscriptions, deliveries, wotd-cache, locks) and operation (read, write, scan, lock, probe).',
      labelNames: ['store', 'operation'] as const,
      registers,
      collect() {
        this.reset();
        for (const check of metrics.storeChecks()) {
          for (const [operation, count] of check.errorCounts()) this.inc({ store: check.name, operation }, count);
        }
      },
    });
    new Gauge({
      name: 'wotd_bot_subscriptions',
      help: 'Daily-post subscriptions by state (active, failing, disabled); counted at most every few seconds.',
      labelNames: ['state'] as const,
      registers,
      async collect() {
        this.reset();
        const pending = metrics.countSubscriptions();
        const counts = pending ? await pending.catch(() => null) : null;
        if (counts) for (const state of SUBSCRIPTION_STATES) this.set({ state }, counts[state] ?? 0);
      },
    });

    // Known label sets start at 0, so rate() and increase() see their first event.
    for (const service of ['wotd', 'discord']) this.tooManyRequests.inc({ service }, 0);
    for (const outcome of new Set(Object.values(POST_OUTCOMES))) this.posts.inc({ outcome }, 0);
    for (const outcome of ['ok', 'error']) this.ticks.inc({ outcome }, 0);

    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** Reads the shards and REST rate limits of the connected client from now on. */
  watchDiscord(view: DiscordView): void {
    this.discord = view;
    view.on429(() => this.tooManyRequests.inc({ service: 'discord' }));
    view.onRateLimitWait(() => this.discordWaits.inc());
  }

  watchAdapter(adapter: AdapterView): void {
    this.adapter = adapter;
  }

  watchStore(store: StoreView): void {
    this.store = store;
    this.subscriptionCounts = null;
  }

  watchStoreChecks(checks: StoreCheck[]): void {
    this.otherStores = [...this.otherStores, ...checks];
  }

  readonly interactionDone: InteractionObserver = (event: InteractionDone) => {
    const { kind, name, outcome } = event;
    this.interactions.inc({ kind, name, outcome });
    const firstAt = event.firstResponseAt ?? event.doneAt;
    this.firstResponse.observe({ kind, name }, Math.max(0, firstAt - event.receivedAt) / 1000);
    this.interactionDuration.observe({ kind, name, outcome }, Math.max(0, event.doneAt - event.receivedAt) / 1000);
  };

  readonly upstreamRequest = (event: UpstreamEvent): void => {
    this.upstreamRequests.inc({ endpoint: event.path, outcome: event.result });
    this.upstreamDuration.observe({ endpoint: event.path }, event.elapsedMs / 1000);
    if (event.result === 'rate_limited') this.tooManyRequests.inc({ service: 'wotd' });
  };

  readonly scheduler: SchedulerObserver = {
    tickDone: (result) => {
      this.ticks.inc({ outcome: result.ok ? 'ok' : 'error' });
      this.tickDuration.observe(result.ms / 1000);
      this.fanOutRunning.set(0);
      if (result.ok) this.lastTickAt = this.now();
    },
    fanOutStarted: (total) => {
      this.fanOutSize.set(total);
      this.fanOutDone.set(0);
      this.fanOutRunning.set(1);
    },
    postDone: (outcome) => {
      this.posts.inc({ outcome: POST_OUTCOMES[outcome] });
      this.fanOutDone.inc();
      this.lastTickAt = this.now();
    },
    damagedRecord: () => {
      this.damagedDeliveries.inc();
    },
  };

  /** The Prometheus text exposition of every metric. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  health(): Promise<HealthReport> {
    return checkHealth({
      mode: this.mode,
      shards: this.discord?.shards() ?? null,
      stores: this.storeChecks(),
      storeTimeoutMs: this.storeTimeoutMs,
      lastTickAgeMs: this.lastTickAt === null ? null : this.now() - this.lastTickAt,
      sinceStartMs: this.now() - this.startedAt,
      maxTickAgeMs: this.maxTickAgeMs,
    });
  }

  /** Every store watched: the subscription store's parts, the cache's, then any other (the cluster's claims). */
  private storeChecks(): StoreCheck[] {
    const store = this.store;
    const fromStore = store ? (store.storeChecks?.() ?? [new StoreWatch('subscriptions', { read: () => store.ping() })]) : [];
    return [...fromStore, ...(this.adapter?.storeChecks?.() ?? []), ...this.otherStores];
  }

  private tickAgeMs(): number {
    return this.now() - (this.lastTickAt ?? this.startedAt);
  }

  private countSubscriptions(): Promise<Record<string, number>> | null {
    const store = this.store;
    if (!store) return null;
    const now = this.now();
    const cached = this.subscriptionCounts;
    if (cached && now - cached.at < this.subscriptionsCacheMs) return cached.counts;
    const counts = store.listAll().then((subscriptions) => {
      const byState: Record<string, number> = {};
      for (const subscription of subscriptions) byState[subscription.status.state] = (byState[subscription.status.state] ?? 0) + 1;
      return byState;
    });
    this.subscriptionCounts = { at: now, counts };
    // A failed count is not reused: the next scrape asks again.
    counts.catch(() => {
      if (this.subscriptionCounts?.counts === counts) this.subscriptionCounts = null;
    });
    return counts;
  }
}

export function createBotMetrics(options: BotMetricsOptions): BotMetrics {
  return new BotMetrics(options);
}
