import { join } from 'node:path';
import type Keyv from 'keyv';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/config/logger.ts';
import { InProcessLock } from '../../../src/store/lock.ts';
import { openStore } from '../../../src/store/open-store.ts';
import type { WotdAdapter } from '../../../src/wotd/adapter.ts';
import { addDays, type Variant } from '../../../src/wotd/dates.ts';
import type { Entry } from '../../../src/wotd/entry.ts';
import { MirrorHolder } from '../../../src/wotd/mirror/mirror-holder.ts';
import { MirrorRefresher } from '../../../src/wotd/mirror/mirror-refresh.ts';
import { MIRROR_NAMESPACE, MirrorStore } from '../../../src/wotd/mirror/mirror-store.ts';
import { sampleEntries, startDeploymentTwin, withDeploymentCases, type DeploymentTwin } from '../../support/upstream/deployment-twin.ts';
import { ManualClock } from '../../support/upstream/manual-clock.ts';
import { drive, failure, sqliteAdapter, tempDir } from '../harness.ts';

/**
 * End to end against the twins of the real deployments, the default way: the mirror reads the site on the twin's
 * own origin (deployment A publishes /databases there; B does not), the adapter runs with `auto`, and both keep to
 * the twins' real rate limits (10 a minute per API endpoint, 30 per database page).
 */

const TODAY = '2024-06-15';
const { entries: ALL, recurring, capitalised } = withDeploymentCases(sampleEntries('2024-01-01', 172), TODAY);
const dates = (list: readonly Entry[]) => list.map((entry) => entry.date);

interface TwinWorld {
  clock: ManualClock;
  twin: DeploymentTwin;
  holder: MirrorHolder;
  adapter: WotdAdapter;
  refresher: MirrorRefresher;
  warnings: string[];
  refresh(): ReturnType<MirrorRefresher['runOnce']>;
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function against(variant: Variant): Promise<TwinWorld> {
  const dir = await tempDir();
  const clock = new ManualClock(`${TODAY}T12:00:00Z`);
  const twin = await startDeploymentTwin({ variant, entries: ALL, now: clock.now });
  const keyv: Keyv = await openStore(`sqlite://${join(dir.path, 'store.sqlite')}`, MIRROR_NAMESPACE, { throwOnErrors: true });
  const lock = new InProcessLock(`mirror-twins:${dir.path}`);
  const holder = new MirrorHolder();
  const adapter = await sqliteAdapter(dir.path, clock, { baseUrl: twin.url, mirror: holder });
  const warnings: string[] = [];
  const logger = createLogger({
    level: 'warn',
    destination: { write: (line: string) => warnings.push((JSON.parse(line) as { msg: string }).msg) } as unknown as NodeJS.WritableStream,
  });
  const refresher = new MirrorRefresher({ source: { kind: 'site', origin: twin.siteUrl }, store: new MirrorStore(keyv, lock), holder, lookup: adapter, logger, now: clock.now, timers: clock, tempParent: dir.path });
  close = async () => {
    await refresher.close();
    await adapter.close();
    await lock.close();
    await keyv.disconnect();
    await twin.close();
    await dir.cleanup();
  };
  return { clock, twin, holder, adapter, refresher, warnings, refresh: () => drive(clock, adapter, refresher.runOnce()) };
}

const refused = (twin: DeploymentTwin) => twin.requests.filter((request) => request.status === 429);

describe('deployment A', () => {
  it('mirrors its newest monthly snapshot, fills the days since, and answers history and find completely', async () => {
    const w = await against('A');
    const report = await w.refresh();
    expect(report?.outcome).toBe('updated');
    expect(report?.detail).toMatch(/^installed wotd_2024-05\.db: \d+ entries through 2024-05-31; filled \d+ entries through 2024-06-14$/);
    expect(w.twin.requests.filter((request) => request.path.startsWith('/databases')).map((request) => request.path)).toEqual([
      '/databases',
      '/databases/download/wotd_2024-05.db',
    ]);
    const asked = w.twin.requests.length;
    const page = await w.adapter.getPrevious(TODAY, 8);
    // The day without a word (10 days ago) is skipped, as the service does.
    expect(dates(page.value.entries)).not.toContain(addDays(TODAY, -10));
    expect(page.value.entries).toHaveLength(8);
    expect((await failure(w.adapter.getEntry(addDays(TODAY, -10)))).code).toBe('not_found');
    const found = await drive(w.clock, w.adapter, w.adapter.findWord(recurring));
    expect(dates(found.value.entries)).toEqual([addDays(TODAY, -3), addDays(TODAY, -40)]);
    expect(found.value.complete).toBe(true);
    const capital = await drive(w.clock, w.adapter, w.adapter.findWord(capitalised.toLowerCase()));
    expect(capital.value).toMatchObject({ complete: true, entries: [expect.objectContaining({ word: capitalised })] });
    // None of it asked the service, save today's entry for the searches.
    expect(w.twin.requests.slice(asked).map((request) => request.path)).toEqual([]);
    expect(refused(w.twin)).toEqual([]);
  });

  it('next day: revalidates (304), and a month rewritten on its 1st is downloaded again', async () => {
    const w = await against('A');
    await w.refresh();
    w.clock.advanceTo(Date.parse('2024-06-16T01:00:00Z'));
    expect((await w.refresh())?.detail).toMatch(/^wotd_2024-05\.db is unchanged \(304\)/);
    await w.twin.databases?.rewrite('2024-05');
    w.clock.advanceTo(Date.parse('2024-06-17T01:00:00Z'));
    expect((await w.refresh())?.detail).toMatch(/^installed wotd_2024-05\.db: /);
    expect(w.twin.requests.filter((request) => request.path.startsWith('/databases/download')).map((request) => request.status)).toEqual([200, 304, 200]);
  });

  it('a month missing (the service did not run on its 1st): the month before, and more days filled', async () => {
    const w = await against('A');
    await w.twin.databases?.setMissing('2024-05');
    const report = await w.refresh();
    expect(report?.detail).toMatch(/^installed wotd_2024-04\.db: \d+ entries through 2024-04-30; filled \d+ entries through 2024-06-14$/);
    expect(w.holder.current()?.coveredThrough).toBe('2024-06-14');
    expect(refused(w.twin)).toEqual([]);
  });

  it('a stray file making the listing 500, a hostile snapshot, a 500 MB one: each refused, the mirror kept', async () => {
    const w = await against('A');
    await w.refresh();
    const rows = w.holder.current()?.rows;
    const databases = w.twin.databases;
    if (!databases) throw new Error('deployment A has databases');

    await databases.put('stray.db', 'x');
    w.clock.advanceTo(Date.parse('2024-06-16T01:00:00Z'));
    expect((await w.refresh())?.detail).toMatch(/^the snapshot listing failed \(.*answered 500\); keeping the mirror in use/);
    await databases.remove('stray.db');

    await databases.put('wotd_2024-06.db', '<html>not a database</html>');
    w.clock.advanceTo(w.refresher.status().nextRefreshAt ?? 0);
    expect((await w.refresh())?.detail).toMatch(/^refused wotd_2024-06\.db: it is not a SQLite database/);

    await databases.putSparse('wotd_2024-06.db', 500 * 1024 * 1024, 'SQLite format 3\u0000');
    w.clock.advanceTo(w.refresher.status().nextRefreshAt ?? 0);
    expect((await w.refresh())?.detail).toMatch(/^refused wotd_2024-06\.db: .* is 524288000 bytes, over the 52428800-byte limit; not downloaded/);

    expect(w.holder.current()?.rows).toBeGreaterThanOrEqual(rows ?? 0);
    expect(w.warnings).toHaveLength(3);
    expect(refused(w.twin)).toEqual([]);
  });
});

describe('deployment B (no snapshots)', () => {
  it('finds no /databases and behaves as without a mirror', async () => {
    const w = await against('B');
    const report = await w.refresh();
    expect(report?.outcome).toBe('unavailable');
    expect(w.holder.current()).toBeNull();
    expect(w.twin.requests.map((request) => `${request.path} ${request.status}`)).toEqual(['/databases 404']);
    const found = await drive(w.clock, w.adapter, w.adapter.findWord(capitalised.toLowerCase()));
    expect(found.value.entries.map((entry) => entry.word)).toEqual([capitalised]);
    expect((await drive(w.clock, w.adapter, w.adapter.getEntry(addDays(TODAY, -2)))).fromCache).toBe(false);
    expect(w.warnings).toEqual([]);
  });
});
