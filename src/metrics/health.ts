import { isStoreError, type StoreCheck } from '../store/store-watch.ts';
import type { MirrorStatus } from '../wotd/mirror/mirror-refresh.ts';
import type { GatewayShardView } from './sources.ts';

/**
 * What GET /healthz answers: 200 with status "ok" when every check passes, 503 with status "unhealthy" and the
 * failing checks named otherwise.
 * - gateway: every shard of this process is connected (ready). At the console there is no gateway: "not_applicable",
 *   which passes.
 * - store: every store the process opened (subscriptions, deliveries, the cache, and on Redis the store locks)
 *   answers one read within the timeout, and one write too while its last write failed. `stores` names each one's
 *   state; `store` is "ok" or "unreachable: " and the failing ones. Nothing is remembered between checks, so a store
 *   that works again is reported healthy at the next check.
 * - mirror (when the run mode watches one): the database mirror's state, reported and never failing the check (without
 *   it the bot answers from the service as before): "off", "not_in_use" (nothing loaded yet, or nothing published) or "in_use", its newest
 *   date, row count, and the last refresh's outcome and time.
 * - scheduler: the daily scheduler finished a pass (or a post of a long fan-out) within maxTickAgeMs; before its first
 *   pass the time since start counts instead, so a bot that has just started is not reported as stale.
 */
export interface HealthReport {
  status: 'ok' | 'unhealthy';
  failing: Array<'gateway' | 'store' | 'scheduler'>;
  gateway: { status: 'ok' | 'down' | 'not_applicable'; shards: Array<{ id: number; state: string; latencyMs: number | null }> };
  /** "ok", "unreachable: <store>: <why>; …", or "not_applicable" where no store is watched. */
  store: string;
  /** Each store by name: "ok" or "unreachable: <why>". */
  stores: Record<string, string>;
  scheduler: 'ok' | 'stale';
  /** Seconds since the scheduler last finished a pass or a post; null before the first. */
  lastTickAgeSeconds: number | null;
  mirror?: MirrorHealth;
}

export interface MirrorHealth {
  status: 'off' | 'not_in_use' | 'in_use';
  source?: string;
  newest?: string | null;
  coveredThrough?: string | null;
  rows?: number;
  snapshot?: string | null;
  lastRefresh?: { outcome: string; at: string; detail: string } | null;
}

export interface HealthInputs {
  mode: 'discord' | 'console';
  /** The client's shards; null before the client is connected. */
  shards: GatewayShardView[] | null;
  stores: StoreCheck[];
  storeTimeoutMs: number;
  lastTickAgeMs: number | null;
  sinceStartMs: number;
  maxTickAgeMs: number;
  /** Present when the run mode watches a mirror: its status, or null when WOTD_MIRROR is off. */
  mirror?: MirrorStatus | null;
}

export async function checkHealth(inputs: HealthInputs): Promise<HealthReport> {
  const failing: HealthReport['failing'] = [];

  let gateway: HealthReport['gateway'];
  if (inputs.mode === 'console') {
    gateway = { status: 'not_applicable', shards: [] };
  } else {
    const shards = inputs.shards ?? [];
    const up = shards.length > 0 && shards.every((shard) => shard.connected);
    gateway = { status: up ? 'ok' : 'down', shards: shards.map(({ id, state, latencyMs }) => ({ id, state, latencyMs })) };
    if (!up) failing.push('gateway');
  }

  const probed = await Promise.all(inputs.stores.map(async (check) => [check.name, await probeStore(check, inputs.storeTimeoutMs)] as const));
  const stores = Object.fromEntries(probed);
  const unreachable = probed.filter(([, state]) => state !== 'ok');
  const store =
    probed.length === 0
      ? 'not_applicable'
      : unreachable.length === 0
        ? 'ok'
        : `unreachable: ${unreachable.map(([name, state]) => `${name}: ${state.replace(/^unreachable: /, '')}`).join('; ')}`;
  if (unreachable.length > 0) failing.push('store');

  const age = inputs.lastTickAgeMs ?? inputs.sinceStartMs;
  const scheduler = age <= inputs.maxTickAgeMs ? 'ok' : 'stale';
  if (scheduler !== 'ok') failing.push('scheduler');

  return {
    status: failing.length === 0 ? 'ok' : 'unhealthy',
    failing,
    gateway,
    store,
    stores,
    scheduler,
    lastTickAgeSeconds: inputs.lastTickAgeMs === null ? null : Math.round(inputs.lastTickAgeMs / 100) / 10,
    ...(inputs.mirror !== undefined ? { mirror: mirrorHealth(inputs.mirror) } : {}),
  };
}

function mirrorHealth(status: MirrorStatus | null): MirrorHealth {
  if (!status) return { status: 'off' };
  const last = status.lastRefresh;
  return {
    status: status.inUse ? 'in_use' : 'not_in_use',
    source: status.source,
    newest: status.newest,
    coveredThrough: status.coveredThrough,
    rows: status.rows,
    snapshot: status.snapshot,
    lastRefresh: last ? { outcome: last.outcome, at: new Date(last.at).toISOString(), detail: last.detail } : null,
  };
}

async function probeStore(store: StoreCheck, timeoutMs: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`unreachable: no answer within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    return await Promise.race([
      store.check().then(
        () => 'ok',
        (failure: unknown) => {
          // A StoreError names the store, which the report names already: its cause says why.
          const error = isStoreError(failure) ? failure.cause : failure;
          return `unreachable: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`;
        },
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
