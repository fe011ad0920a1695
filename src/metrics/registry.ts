import { collectDefaultMetrics, Registry } from 'prom-client';
import type { InteractionObserver } from '../replies/interaction-outcome.ts';
import type { SchedulerObserver } from '../schedule/scheduler.ts';
import { StoreWatch, type StoreCheck } from '../store/store-watch.ts';
import type { UpstreamEvent } from '../wotd/upstream-request.ts';
import { registerCacheMetrics } from './cache-metrics.ts';
import { registerDailyPostMetrics } from './daily-post-metrics.ts';
import { registerGatewayMetrics } from './gateway-metrics.ts';
import { checkHealth, type HealthReport } from './health.ts';
import { registerInteractionMetrics } from './interaction-metrics.ts';
import { registerMirrorMetrics } from './mirror-metrics.ts';
import type { AdapterView, DiscordView, MirrorView, StoreView } from './sources.ts';
import { registerStoreMetrics } from './store-metrics.ts';
import { registerUpstreamMetrics, type UpstreamMetrics } from './upstream-metrics.ts';

/**
 * The bot's metrics on a registry of their own (never prom-client's global one, so several bots in one process,
 * as in the tests, do not mix). The domain reports through plain observers (interactionDone, upstreamRequest,
 * scheduler); the gateway, the adapter's counters and the subscriptions are read when scraped. Each area's metrics
 * are defined in a file of their own (gateway-, interaction-, upstream-, cache-, daily-post- and store-metrics.ts),
 * registered here in the order they are exposed. README "Health and metrics" lists every metric; keep the two in step.
 */

export interface BotMetricsOptions {
  /** On Discord the gateway is checked; at the console it is not applicable. */
  mode: 'discord' | 'console';
  /** How long a count of subscriptions by state is reused (default 15 s); the store keeps the counts as it writes. */
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
  private mirror: MirrorView | null = null;
  /** Stores watched besides the subscriptions' and the cache's (the cluster's claims). */
  private otherStores: StoreCheck[] = [];
  /** When the scheduler last showed life: a tick that finished, or a post of a fan-out still running. */
  private lastTickAt: number | null = null;
  private subscriptionCounts: { at: number; counts: Promise<Record<string, number>> } | null = null;

  private readonly upstream: UpstreamMetrics;
  readonly interactionDone: InteractionObserver;
  readonly upstreamRequest: (event: UpstreamEvent) => void;
  readonly scheduler: SchedulerObserver;

  constructor(options: BotMetricsOptions) {
    this.mode = options.mode;
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
    this.subscriptionsCacheMs = options.subscriptionsCacheMs ?? 15_000;
    this.maxTickAgeMs = options.maxTickAgeMs ?? 3 * 60_000;
    this.storeTimeoutMs = options.storeTimeoutMs ?? 2_000;
    const registers = [this.registry];

    registerGatewayMetrics(registers, () => this.discord);
    this.interactionDone = registerInteractionMetrics(registers);
    this.upstream = registerUpstreamMetrics(registers, () => this.adapter);
    this.upstreamRequest = this.upstream.requestDone;
    registerCacheMetrics(registers, () => this.adapter);
    registerMirrorMetrics(registers, () => this.mirror, () => this.adapter);
    this.scheduler = registerDailyPostMetrics(registers, {
      sawLife: () => {
        this.lastTickAt = this.now();
      },
      tickAgeMs: () => this.tickAgeMs(),
    });
    registerStoreMetrics(registers, {
      storeChecks: () => this.storeChecks(),
      countSubscriptions: () => this.countSubscriptions(),
    });

    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });
  }

  /** Reads the shards and REST rate limits of the connected client from now on. */
  watchDiscord(view: DiscordView): void {
    this.discord = view;
    view.on429((info) => this.upstream.discordTooManyRequests(info.webhook === true));
    view.onRateLimitWait(this.upstream.discordWaited);
  }

  watchAdapter(adapter: AdapterView): void {
    this.adapter = adapter;
  }

  watchStore(store: StoreView): void {
    this.store = store;
    this.subscriptionCounts = null;
  }

  /** The database mirror: its state in the metrics and /healthz (its store is added with watchStoreChecks). */
  watchMirror(view: MirrorView): void {
    this.mirror = view;
  }

  watchStoreChecks(checks: StoreCheck[]): void {
    this.otherStores = [...this.otherStores, ...checks];
  }

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
      ...(this.mirror ? { mirror: this.mirror.status() } : {}),
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
    const counts: Promise<Record<string, number>> = store.countByState();
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
