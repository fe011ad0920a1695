import { join } from 'node:path';
import type Keyv from 'keyv';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { RedisUpstreamBudget } from '../../../src/cluster/redis-upstream-budget.ts';
import { createLogger } from '../../../src/config/logger.ts';
import { openRedisConnection } from '../../../src/store/redis-connection.ts';
import { openStore } from '../../../src/store/open-store.ts';
import { RedisLock } from '../../../src/store/redis-lock.ts';
import { createWotdAdapter, type WotdAdapter } from '../../../src/wotd/adapter.ts';
import { MirrorHolder } from '../../../src/wotd/mirror/mirror-holder.ts';
import { MirrorRefresher } from '../../../src/wotd/mirror/mirror-refresh.ts';
import { MIRROR_NAMESPACE, MirrorStore } from '../../../src/wotd/mirror/mirror-store.ts';
import { describeRedis, redisClient, useRedisPrefix } from '../../support/redis.ts';
import { sampleEntries, startDeploymentTwin, type DeploymentTwin } from '../../support/upstream/deployment-twin.ts';
import { ManualClock } from '../../support/upstream/manual-clock.ts';
import { startSnapshotSite, type SnapshotSite } from '../../support/upstream/snapshot-site.ts';
import { tempDir } from '../harness.ts';
import { writeSnapshot } from './snapshot-files.ts';

/**
 * Cluster mode on the machine's Redis: several processes (each with its own Redis connections, store lock, budget
 * client, adapter and refresher) share one store. One of them downloads; the others load the copy it installed;
 * the download is counted in the shared upstream budget.
 */

const TODAY = '2024-06-15';
const ALL = sampleEntries('2024-01-01', 172);

describeRedis('the mirror in cluster mode', () => {
  const redis = useRedisPrefix();
  let dir: { path: string; cleanup: () => Promise<void> };
  let clock: ManualClock;
  let twin: DeploymentTwin;
  let site: SnapshotSite;
  const closers: Array<() => Promise<void>> = [];

  beforeEach(async () => {
    dir = await tempDir();
    clock = new ManualClock(`${TODAY}T12:00:00Z`);
    twin = await startDeploymentTwin({ variant: 'A', entries: ALL, now: clock.now, rateLimitPerMinute: 0 });
    const path = join(dir.path, 'wotd_2024-05.db');
    await writeSnapshot(path, ALL.filter((entry) => entry.date <= '2024-05-31'));
    site = await startSnapshotSite({ files: [{ name: 'wotd_2024-05.db', path }] });
  });

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await site.close();
    await twin.close();
    await dir.cleanup();
  });

  /** One cluster member: everything of its own but the Redis server. */
  async function member(): Promise<{ holder: MirrorHolder; adapter: WotdAdapter; refresher: MirrorRefresher; store: MirrorStore }> {
    const logger = createLogger({ level: 'silent' });
    const connection = await openRedisConnection(redis.location.url, { purpose: 'cluster', logger, whileDown: 'down', whenBack: 'back' });
    const budget = new RedisUpstreamBudget({ redis: connection, prefix: redis.prefix, limit: 10, logger });
    const keyv: Keyv = await openStore(redis.location, MIRROR_NAMESPACE);
    const lock = await RedisLock.open(redis.location.url, `${redis.prefix}mirror:`);
    const holder = new MirrorHolder();
    const adapter = await createWotdAdapter({
      baseUrl: twin.url,
      store: await openStore('memory://', 'wotd-cache'),
      ownsStore: true,
      mirror: holder,
      budget,
      now: clock.now,
      timers: clock,
    });
    const store = new MirrorStore(keyv, lock);
    const refresher = new MirrorRefresher({ source: { kind: 'site', origin: site.url }, store, holder, lookup: adapter, logger, now: clock.now, timers: clock, tempParent: dir.path });
    closers.push(async () => {
      await refresher.close();
      await adapter.close();
      await lock.close();
      await keyv.disconnect();
      budget.close();
      connection.disconnect();
    });
    return { holder, adapter, refresher, store };
  }

  it('one process downloads, the others load the shared copy, and the download is counted in the shared budget', async () => {
    const members = await Promise.all([member(), member(), member()]);
    const reports = await Promise.all(members.map(({ refresher }) => refresher.runOnce()));
    expect(reports.filter((report) => report !== null)).toEqual([expect.objectContaining({ outcome: 'updated' })]);
    expect(site.requests.map((request) => request.path)).toEqual(['/databases', '/databases/download/wotd_2024-05.db']);
    // The others load the installed copy at their next look, asking nobody.
    const asked = twin.requests.length;
    expect(await Promise.all(members.map(({ refresher }) => refresher.runOnce()))).toEqual([null, null, null]);
    const generations = new Set(members.map(({ holder }) => holder.loadedGeneration));
    expect(generations.size).toBe(1);
    expect([...generations][0]).not.toBeNull();
    for (const { holder } of members) expect(holder.current()?.coveredThrough).toBe('2024-06-14');
    expect(twin.requests.length).toBe(asked);
    expect(site.requests).toHaveLength(2);
    // Every request of the cluster took a slot of the shared budget: the listing, the download, and the service's.
    const budgetKey = `semaphore:${redis.prefix}upstream:service`;
    expect(await (await redisClient()).zCard(budgetKey)).toBe(site.requests.length + twin.requests.length);
  });

  it('a refresh claimed by a process that died is taken over once its claim runs out', async () => {
    const [first, second] = await Promise.all([member(), member()]);
    await first.store.updateState((state) => ({ state: { ...state, source: `site:${new URL(site.url).origin}`, claim: { owner: 'dead', until: clock.ms + 10 * 60_000 } }, result: null }));
    expect(await second.refresher.runOnce()).toBeNull();
    expect(site.requests).toEqual([]);
    clock.advance(10 * 60_000 + 1);
    expect(await second.refresher.runOnce()).toMatchObject({ outcome: 'updated' });
    expect(site.requests).toHaveLength(2);
  });
});
