/**
 * The database mirror as the run modes use it (WOTD_MIRROR): `openDatabaseMirror` opens its store and lock, hands the
 * adapter its reader (`reader`, the `mirror` adapter option), and `start(adapter)` begins refreshing through that
 * adapter. Null when WOTD_MIRROR is off.
 *
 * The parts: mirror-source.ts (the setting), site-client.ts (listing, download), snapshot-file.ts (the untrusted
 * file), mirror-model.ts (the read model), mirror-holder.ts, mirror-store.ts (the store, the swap), mirror-refresh.ts,
 * mirror-answers.ts (what the lookups take from it).
 */
import type Keyv from 'keyv';
import type { Logger } from '../../config/logger.ts';
import type { MirrorSetting } from '../../config/settings.ts';
import { InProcessLock, type StoreLock } from '../../store/lock.ts';
import { isRedisStore, openStore, type StoreLocation } from '../../store/open-store.ts';
import type { StoreCheck } from '../../store/store-watch.ts';
import { MirrorHolder, type MirrorReader } from './mirror-holder.ts';
import { MirrorRefresher, type MirrorLookup, type MirrorRefresherOptions, type MirrorStatus } from './mirror-refresh.ts';
import { describeSource, mirrorSourceFor, type MirrorSource } from './mirror-source.ts';
import { MIRROR_NAMESPACE, MirrorStore } from './mirror-store.ts';

export interface DatabaseMirror {
  readonly source: MirrorSource;
  /** For the adapter's `mirror` option. */
  readonly reader: MirrorReader;
  /** Starts loading the stored copy and refreshing, through `lookup` (the adapter). */
  start(lookup: MirrorLookup): void;
  status(): MirrorStatus;
  /** The mirror's store, for /healthz and wotd_bot_store_errors_total. */
  storeChecks(): StoreCheck[];
  close(): Promise<void>;
}

export interface OpenMirrorSettings {
  setting: MirrorSetting;
  /** The site `on` means: WOTD_SITE_URL for the public service, else the service's own URL (see run-mode.ts). */
  siteUrl: string;
  /** The bot's store (storeLocation(config)). */
  store: StoreLocation;
  logger: Logger;
  /** Tests: clock, timers, fetch, sizes. */
  overrides?: Partial<Omit<MirrorRefresherOptions, 'source' | 'store' | 'holder' | 'lookup' | 'logger'>>;
}

export async function openDatabaseMirror(settings: OpenMirrorSettings): Promise<DatabaseMirror | null> {
  const source = mirrorSourceFor(settings.setting, settings.siteUrl);
  if (!source) return null;
  const keyv: Keyv = await openStore(settings.store, MIRROR_NAMESPACE, { throwOnErrors: true });
  let lock: StoreLock;
  try {
    // Cluster members share the store, so the refresh and the swap are claimed under a lock they share too.
    // On PostgreSQL in cluster mode (lockRedisUrl) the store is shared through PostgreSQL and locked through Redis.
    const lockRedis = isRedisStore(settings.store) ? settings.store.url : settings.store.lockRedisUrl;
    lock = lockRedis
      ? await (await import('../../store/redis-lock.ts')).RedisLock.open(lockRedis, `${settings.store.keyPrefix ?? ''}mirror:`, settings.logger)
      : new InProcessLock(`mirror:${settings.store.url}`);
  } catch (error) {
    await keyv.disconnect();
    throw error;
  }
  const store = new MirrorStore(keyv, lock);
  const holder = new MirrorHolder();
  let refresher: MirrorRefresher | null = null;
  const logger = settings.logger.child({ component: 'mirror' });
  return {
    source,
    reader: holder,
    start(lookup) {
      if (refresher) return;
      refresher = new MirrorRefresher({ source, store, holder, lookup, logger, ...settings.overrides });
      logger.info({ source: describeSource(source) }, `mirror: answering past days from a copy of ${describeSource(source)} once it is loaded`);
      refresher.start();
    },
    status() {
      return (
        refresher?.status() ?? {
          source: describeSource(source),
          inUse: false,
          rows: 0,
          newest: null,
          coveredThrough: null,
          snapshot: null,
          skippedRows: 0,
          lastRefresh: null,
          nextRefreshAt: null,
          refreshes: { updated: 0, unchanged: 0, unavailable: 0, refused: 0, failed: 0 },
        }
      );
    },
    storeChecks: () => [store.check],
    async close() {
      await refresher?.close();
      await lock.close();
      await keyv.disconnect();
    },
  };
}

/** What the console banner and the logs say of the mirror: null when off. */
export function mirrorSummary(setting: MirrorSetting, siteUrl: string): string | null {
  const source = mirrorSourceFor(setting, siteUrl);
  return source ? describeSource(source) : null;
}
