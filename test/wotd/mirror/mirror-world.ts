import { join } from 'node:path';
import type Keyv from 'keyv';
import { createLogger, type Logger } from '../../../src/config/logger.ts';
import { InProcessLock, type StoreLock } from '../../../src/store/lock.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { WotdAdapter, WotdAdapterOptions } from '../../../src/wotd/adapter.ts';
import type { Variant } from '../../../src/wotd/dates.ts';
import type { Entry } from '../../../src/wotd/entry.ts';
import { MirrorHolder } from '../../../src/wotd/mirror/mirror-holder.ts';
import { MirrorRefresher, type MirrorRefresherOptions } from '../../../src/wotd/mirror/mirror-refresh.ts';
import type { MirrorSource } from '../../../src/wotd/mirror/mirror-source.ts';
import { MIRROR_NAMESPACE, MirrorStore } from '../../../src/wotd/mirror/mirror-store.ts';
import { startDeploymentTwin, type DeploymentTwin } from '../../support/upstream/deployment-twin.ts';
import { ManualClock } from '../../support/upstream/manual-clock.ts';
import { startSnapshotSite, type SiteFile, type SnapshotSite } from '../../support/upstream/snapshot-site.ts';
import { drive, sqliteAdapter, tempDir } from '../harness.ts';
import { writeSnapshot } from './snapshot-files.ts';

/**
 * The mirror's real parts on loopback: a twin of a real deployment for the API, a snapshot site, a SQLite store in
 * a temp dir, the adapter (with the mirror) and a refresher, all on one manual clock. `refresh()` runs one round
 * while moving the clock whenever the adapter waits for its limiter.
 */
export interface MirrorWorld {
  dir: string;
  clock: ManualClock;
  twin: DeploymentTwin;
  site: SnapshotSite;
  keyv: Keyv;
  store: MirrorStore;
  lock: StoreLock;
  holder: MirrorHolder;
  adapter: WotdAdapter;
  refresher: MirrorRefresher;
  logs: Array<{ level: string; msg: string }>;
  /** Writes `wotd_<month>.db` holding `entries` into the temp dir and lists it on the site (replacing one of that name). */
  publish(month: string, entries: Entry[]): Promise<SiteFile>;
  refresh(): Promise<Awaited<ReturnType<MirrorRefresher['runOnce']>>>;
  /** Another process on the same store: its own holder, adapter and refresher (closed with the world). */
  anotherProcess(): Promise<{ holder: MirrorHolder; adapter: WotdAdapter; refresher: MirrorRefresher }>;
  close(): Promise<void>;
}

export interface MirrorWorldOptions {
  today: string;
  /** What the API twin serves. */
  entries: Entry[];
  variant?: Variant;
  adapter?: Partial<WotdAdapterOptions>;
  refresher?: Partial<MirrorRefresherOptions>;
  /** Default: the snapshot site. */
  source?: (site: SnapshotSite) => MirrorSource;
}

export async function startMirrorWorld(options: MirrorWorldOptions): Promise<MirrorWorld> {
  const temp = await tempDir();
  const clock = new ManualClock(`${options.today}T12:00:00Z`);
  const twin = await startDeploymentTwin({ variant: options.variant ?? 'A', entries: options.entries, now: clock.now, rateLimitPerMinute: 0 });
  const site = await startSnapshotSite({ now: () => clock.ms });
  const keyv = await openStore(`sqlite://${join(temp.path, 'store.sqlite')}`, MIRROR_NAMESPACE, { throwOnErrors: true });
  const lock = new InProcessLock(`mirror-test:${temp.path}`);
  const logs: MirrorWorld['logs'] = [];
  const logger = recordingLogger(logs);
  const closers: Array<() => Promise<void>> = [];

  async function process(): Promise<{ holder: MirrorHolder; adapter: WotdAdapter; refresher: MirrorRefresher }> {
    const holder = new MirrorHolder();
    const adapter = await sqliteAdapter(temp.path, clock, { baseUrl: twin.url, mirror: holder, ...options.adapter });
    const store = new MirrorStore(keyv, lock);
    const refresher = new MirrorRefresher({
      source: options.source ? options.source(site) : { kind: 'site', origin: site.url },
      store,
      holder,
      lookup: adapter,
      logger,
      now: clock.now,
      timers: clock,
      random: () => 0.5,
      tempParent: temp.path,
      timeoutMs: 2_000,
      ...options.refresher,
    });
    closers.push(async () => {
      await refresher.close();
      await adapter.close();
    });
    return { holder, adapter, refresher };
  }

  const first = await process();
  const store = new MirrorStore(keyv, lock);
  return {
    dir: temp.path,
    clock,
    twin,
    site,
    keyv,
    store,
    lock,
    ...first,
    logs,
    async publish(month, entries) {
      const file = { name: `wotd_${month}.db`, path: join(temp.path, `site-wotd_${month}-${Date.now()}-${Math.random()}.db`) };
      await writeSnapshot(file.path, entries);
      site.files = [...site.files.filter((known) => known.name !== file.name), file];
      return file;
    },
    refresh() {
      return drive(clock, first.adapter, first.refresher.runOnce());
    },
    anotherProcess: process,
    async close() {
      for (const close of closers.reverse()) await close();
      await lock.close();
      await keyv.disconnect();
      await site.close();
      await twin.close();
      await temp.cleanup();
    },
  };
}

/** A pino logger whose lines land in `logs` (level name and message). */
function recordingLogger(logs: MirrorWorld['logs']): Logger {
  const destination = {
    write(line: string) {
      const parsed = JSON.parse(line) as { level: number; msg: string };
      logs.push({ level: parsed.level >= 50 ? 'error' : parsed.level >= 40 ? 'warn' : 'info', msg: parsed.msg });
      return true;
    },
  };
  return createLogger({ level: 'info', destination: destination as unknown as NodeJS.WritableStream });
}
