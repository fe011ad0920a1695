import type { Subscription } from '../schedule/subscription.ts';
import type { StoreCheck } from '../store/store-watch.ts';
import type { AdapterStats } from '../wotd/adapter.ts';
import type { MirrorStatus } from '../wotd/mirror/mirror-refresh.ts';

/** What the metrics read at scrape time. Each is attached once it exists; none of them is prom-client's business. */

export interface GatewayShardView {
  id: number;
  /** discord.js's name for the shard's state, in lower case: ready, connecting, resuming, … */
  state: string;
  /** Ready: connected, identified or resumed, and receiving events. */
  connected: boolean;
  /** Round trip of the last heartbeat, or null before the first one. */
  latencyMs: number | null;
}

/** The Discord client, as the metrics see it (built in src/discord/metrics-view.ts). */
export interface DiscordView {
  shards(): GatewayShardView[];
  /** `listener` hears of every 429 answer Discord sends the bot's REST clients (`webhook`: a daily post's webhook execution). */
  on429(listener: (info: { global: boolean; webhook?: boolean }) => void): void;
  /** `listener` hears of every request discord.js holds back to stay inside a rate limit it knows of. */
  onRateLimitWait(listener: (info: { global: boolean }) => void): void;
}

export interface AdapterView {
  stats(): AdapterStats;
  /** The cache's store. */
  storeChecks?(): StoreCheck[];
}

export interface StoreView {
  /** Rejects when the store cannot be read. */
  ping(): Promise<void>;
  /** Subscriptions by state, as the store counts them while it writes (no subscription is read). */
  countByState(): Promise<Record<Subscription['status']['state'], number>>;
  /** Each store it is made of; without it, ping() is checked under the name "subscriptions". */
  storeChecks?(): StoreCheck[];
}

/** The database mirror (src/wotd/mirror/open-mirror.ts); null status when WOTD_MIRROR is off. */
export interface MirrorView {
  status(): MirrorStatus | null;
}
