import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type KeyvSqlite from '@keyv/sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/config/logger.ts';
import { StoreError } from '../../../src/store/store-watch.ts';
import type { Entry } from '../../../src/wotd/entry.ts';
import { MirrorHolder } from '../../../src/wotd/mirror/mirror-holder.ts';
import { MirrorRefresher } from '../../../src/wotd/mirror/mirror-refresh.ts';
import { sampleEntries } from '../../support/upstream/deployment-twin.ts';
import { drive, failure, tempDir } from '../harness.ts';
import { startMirrorWorld, type MirrorWorld } from './mirror-world.ts';
import { writeSnapshot, writeSqlite } from './snapshot-files.ts';

/**
 * The refresher end to end on loopback: the site's listing and downloads (test/support/upstream/snapshot-site.ts),
 * deployment A's twin for the days after a snapshot, the SQLite store, and the adapter answering from the mirror.
 */

const TODAY = '2024-06-15';
/** What the service has: 2024-01-01 … 2024-06-20 (the last five in the future). */
const ALL = sampleEntries('2024-01-01', 172);
const through = (last: string) => ALL.filter((entry) => entry.date <= last);
const dates = (list: Entry[]) => list.map((entry) => entry.date);

let world: MirrorWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function start(options: Partial<Parameters<typeof startMirrorWorld>[0]> = {}): Promise<MirrorWorld> {
  world = await startMirrorWorld({ today: TODAY, entries: ALL, ...options });
  await world.publish('2024-04', through('2024-04-30'));
  await world.publish('2024-05', through('2024-05-31'));
  return world;
}

const apiRequests = (w: MirrorWorld) => w.twin.requests.length;

describe('a good snapshot', () => {
  it('is installed, filled up to yesterday, and answers past days without asking the service', async () => {
    const w = await start();
    const report = await w.refresh();
    expect(report?.outcome).toBe('updated');
    expect(report?.detail).toMatch(/^installed wotd_2024-05\.db: 152 entries through 2024-05-31; filled 14 entries through 2024-06-14$/);
    const model = w.holder.current();
    expect(model?.rows).toBe(166);
    expect(model?.coveredThrough).toBe('2024-06-14');
    // The newest file was downloaded, not the others; the days after it took two history pages.
    expect(w.site.requests.map((request) => request.path)).toEqual(['/databases', '/databases/download/wotd_2024-05.db']);
    expect(w.twin.requests.filter((request) => request.path === '/query_previous').map((request) => request.query.date)).toEqual(['2024-06-15', '2024-06-07']);

    const asked = apiRequests(w);
    const entry = await w.adapter.getEntry('2024-02-29');
    expect(entry).toMatchObject({ value: ALL.find((candidate) => candidate.date === '2024-02-29'), fromCache: true });
    const page = await w.adapter.getPrevious(TODAY, 8);
    expect(dates(page.value.entries)).toEqual(['2024-06-14', '2024-06-13', '2024-06-12', '2024-06-11', '2024-06-10', '2024-06-09', '2024-06-08', '2024-06-07']);
    expect(page.value.hasMore).toBe(true);
    const oldest = await w.adapter.getPrevious('2024-01-03', 8);
    expect(oldest.value).toEqual({ entries: [ALL[1], ALL[0]], hasMore: false });
    expect((await failure(w.adapter.getEntry('2023-12-31'))).code).toBe('not_found');
    expect(apiRequests(w)).toBe(asked);
    expect(w.adapter.stats().mirrorHits).toBe(4);
    // The download was counted with the service's requests (listing, download, probe, two pages).
    expect(w.adapter.stats().upstreamRequests).toBe(5);
  });

  it('is kept in the store: a restart loads it without asking the site, until the next refresh is due', async () => {
    const w = await start();
    await w.refresh();
    const before = w.site.requests.length;
    const restarted = await w.anotherProcess();
    expect(await drive(w.clock, restarted.adapter, restarted.refresher.runOnce())).toBeNull();
    expect(restarted.holder.current()?.rows).toBe(166);
    expect(restarted.refresher.status()).toMatchObject({ inUse: true, rows: 166, newest: '2024-06-14', snapshot: 'wotd_2024-05.db', lastRefresh: { outcome: 'updated' } });
    expect(w.site.requests.length).toBe(before);
  });
});

describe('the next days', () => {
  it('revalidates the snapshot (304) and fills the new day with one page', async () => {
    const w = await start();
    await w.refresh();
    w.clock.advanceTo(Date.parse('2024-06-16T01:00:00Z'));
    const report = await w.refresh();
    expect(report?.detail).toBe('wotd_2024-05.db is unchanged (304); filled 1 entries through 2024-06-15');
    expect(report?.outcome).toBe('updated');
    const download = w.site.requests.at(-1);
    expect(download).toMatchObject({ path: '/databases/download/wotd_2024-05.db', status: 304 });
    expect(download?.headers['if-none-match']).toMatch(/^"/);
    expect(w.holder.current()?.coveredThrough).toBe('2024-06-15');
  });

  it('swaps in a newer month and its corrections, keeping nothing of the old copy in the store', async () => {
    const w = await start();
    await w.refresh();
    const old = await w.store.current();
    w.clock.advanceTo(Date.parse('2024-07-01T12:00:00Z'));
    const corrected = through('2024-06-30').map((entry) => (entry.date === '2024-06-03' ? { ...entry, definition: 'Corrected.' } : entry));
    await w.publish('2024-06', corrected);
    w.site.files = [...w.site.files].reverse();
    const report = await w.refresh();
    // The service's list ends on 06-20: the days after it are filled (none), so the copy covers through yesterday.
    expect(report?.detail).toBe('installed wotd_2024-06.db: 172 entries through 2024-06-20; filled 0 entries through 2024-06-30');
    expect((await w.adapter.getEntry('2024-06-03')).value.definition).toBe('Corrected.');
    const current = await w.store.current();
    expect(current?.generation).not.toBe(old?.generation);
    // The year's chunk changed: the old one is gone.
    const oldChunks = old?.chunks.map((chunk) => chunk.key) ?? [];
    for (const key of oldChunks.filter((key) => !current?.chunks.some((chunk) => chunk.key === key))) expect(await w.keyv.get(key)).toBeUndefined();
    expect(oldChunks.length).toBeGreaterThan(0);
  });
});

describe('filling the days after the snapshot', () => {
  it('a snapshot months old: a few pages a round, the next round soon after, until yesterday', async () => {
    world = await startMirrorWorld({ today: TODAY, entries: ALL });
    const w = world;
    await w.publish('2024-03', through('2024-03-31'));
    const first = await w.refresh();
    expect(first?.detail).toBe('installed wotd_2024-03.db: 91 entries through 2024-03-31; filled 56 entries through 2024-05-26, more next time');
    expect(first?.outcome).toBe('updated');
    expect(w.twin.requests.filter((request) => request.path === '/query_previous')).toHaveLength(8);
    expect((w.refresher.status().nextRefreshAt ?? 0) - w.clock.ms).toBe(15 * 60_000);
    w.clock.advanceTo(w.refresher.status().nextRefreshAt ?? 0);
    const second = await w.refresh();
    expect(second?.detail).toBe('wotd_2024-03.db is unchanged (304); filled 19 entries through 2024-06-14');
    expect(w.holder.current()?.rows).toBe(166);
  });

  it('a service with no word since the snapshot: one page says so', async () => {
    world = await startMirrorWorld({ today: TODAY, entries: through('2024-05-31') });
    const w = world;
    await w.publish('2024-05', through('2024-05-31'));
    expect((await w.refresh())?.detail).toBe('installed wotd_2024-05.db: 152 entries through 2024-05-31; filled 0 entries through 2024-06-14');
    // (Today has no word either, so the variant probe asked a dateless page too.)
    expect(w.twin.requests.filter((request) => request.path === '/query_previous' && request.query.date)).toHaveLength(1);
    // The days since are known to have no word: answered from the mirror.
    expect((await failure(w.adapter.getEntry('2024-06-10'))).code).toBe('not_found');
  });
});

describe('a local snapshot file (WOTD_MIRROR=<path>)', () => {
  it('is copied and checked like a download, read again only when it changes, refused past the size cap', async () => {
    const local = await tempDir();
    const file = join(local.path, 'wotd_2024-05.db');
    world = await startMirrorWorld({ today: TODAY, entries: ALL, source: () => ({ kind: 'file', path: file }), refresher: { maxBytes: 1024 * 1024 } });
    const w = world;
    await writeSnapshot(file, through('2024-05-31'));
    expect((await w.refresh())?.detail).toMatch(new RegExp(`^installed wotd_2024-05\\.db: 152 entries through 2024-05-31; filled 14 entries`));
    w.clock.advanceTo(Date.parse('2024-06-16T01:00:00Z'));
    expect((await w.refresh())?.detail).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is unchanged; filled 1 entries`));
    await writeFile(file, Buffer.alloc(2 * 1024 * 1024));
    w.clock.advanceTo(Date.parse('2024-06-17T01:00:00Z'));
    const report = await w.refresh();
    expect(report?.outcome).toBe('refused');
    expect(report?.detail).toMatch(/is 2097152 bytes, over the 1048576-byte limit; keeping the mirror in use/);
    expect(w.site.requests).toEqual([]);
    await local.cleanup();
  });
});

describe('failures keep the mirror in use', () => {
  async function installed(): Promise<MirrorWorld> {
    const w = await start();
    await w.refresh();
    w.clock.advanceTo(Date.parse('2024-06-16T01:00:00Z'));
    return w;
  }

  it('a listing answering 500: failed, retried after a back-off', async () => {
    const w = await installed();
    const generation = w.holder.loadedGeneration;
    w.site.listingFails = true;
    const report = await w.refresh();
    expect(report?.outcome).toBe('failed');
    expect(report?.detail).toMatch(/^the snapshot listing failed \(.*answered 500\); keeping the mirror in use; filled 1 entries through 2024-06-15$/);
    expect(w.holder.current()?.coveredThrough).toBe('2024-06-15');
    expect(w.holder.loadedGeneration).not.toBe(generation);
    const next = w.refresher.status().nextRefreshAt ?? 0;
    expect(next - w.clock.ms).toBe(5 * 60_000);
    expect(w.logs.filter((line) => line.level === 'warn').map((line) => line.msg)).toEqual([`mirror: ${report?.detail ?? ''}`]);
  });

  it('a 429 from the site: nothing more is asked of it for at least a minute', async () => {
    const w = await installed();
    w.site.listingFails = false;
    for (let i = 0; i < 30; i++) await fetch(`${w.site.url}/databases`);
    const report = await w.refresh();
    expect(report?.detail).toMatch(/^the snapshot listing failed \(.*answered 429 \(too many requests\)\); keeping the mirror in use/);
    expect((w.refresher.status().nextRefreshAt ?? 0) - w.clock.ms).toBeGreaterThanOrEqual(60_000);
  });

  it('a listed file that is gone (404)', async () => {
    const w = await installed();
    await w.publish('2024-06', through('2024-06-30'));
    w.site.files = w.site.files.map((file) => (file.name === 'wotd_2024-06.db' ? { ...file, path: `${file.path}.gone` } : file));
    const report = await w.refresh();
    expect(report?.outcome).toBe('failed');
    expect(report?.detail).toMatch(/^downloading wotd_2024-06\.db failed \(.*answered 404 \(Database file not found\)\); keeping the mirror in use/);
    expect(w.holder.current()?.rows).toBe(167);
  });

  const bad: Array<[string, (path: string) => Promise<void>, RegExp]> = [
    ['truncated', (path) => truncate(path, 8192), /^refused wotd_2024-06\.db: it is cut short: /],
    ['not SQLite', (path) => writeFile(path, '<!doctype html><p>maintenance</p>'), /^refused wotd_2024-06\.db: it is not a SQLite database/],
    ['of the wrong schema', (path) => writeSqlite(path, 'DROP TABLE words; CREATE TABLE words (date TEXT, word TEXT);'), /^refused wotd_2024-06\.db: its words table is not/],
  ];
  it.each(bad)('a %s file: refused in one log line, and not fetched again while unchanged', async (_name, damage, why) => {
    const w = await installed();
    const file = await w.publish('2024-06', sampleEntries('2024-01-01', 182));
    await damage(file.path);
    const report = await w.refresh();
    expect(report?.outcome).toBe('refused');
    expect(report?.detail).toMatch(why);
    expect(report?.detail).toMatch(/keeping the mirror in use; filled 1 entries through 2024-06-15$/);
    expect(w.logs.filter((line) => line.level === 'warn')).toEqual([{ level: 'warn', msg: `mirror: ${report?.detail ?? ''}` }]);
    expect(w.holder.current()?.rows).toBe(167);
    expect((await w.store.current())?.snapshot?.name).toBe('wotd_2024-05.db');
    w.clock.advanceTo(w.refresher.status().nextRefreshAt ?? 0);
    const again = await w.refresh();
    expect(again?.detail).toMatch(/^wotd_2024-06\.db is still the file refused before \(304\)/);
    expect(w.site.requests.at(-1)?.status).toBe(304);
  });

  it('the service failing the fill: the snapshot is installed, the days after it wait', async () => {
    world = await startMirrorWorld({ today: TODAY, entries: ALL, adapter: { retries: 0 } });
    const w = world;
    await w.publish('2024-05', through('2024-05-31'));
    w.twin.failAlways('server500');
    const report = await w.refresh();
    expect(report?.outcome).toBe('failed');
    expect(report?.detail).toMatch(/^installed wotd_2024-05\.db: 152 entries through 2024-05-31; filling the days after 2024-05-31 failed \(.*500/);
    expect(w.holder.current()?.coveredThrough).toBe('2024-05-31');
    w.twin.failAlways(null);
    // Until filled, a day after the snapshot goes to the service.
    expect((await drive(w.clock, w.adapter, w.adapter.getEntry('2024-06-10'))).fromCache).toBe(false);
  });

  it('a site without snapshots (deployment B): unavailable, and every lookup goes to the service as before', async () => {
    world = await startMirrorWorld({ today: TODAY, entries: ALL, variant: 'B' });
    const w = world;
    w.site.noListing = true;
    const report = await w.refresh();
    expect(report).toMatchObject({ outcome: 'unavailable' });
    expect(report?.detail).toMatch(/answered 404: the site publishes no database snapshots; the service is asked as before$/);
    expect(w.holder.current()).toBeNull();
    expect(w.twin.requests).toEqual([]);
    expect((await drive(w.clock, w.adapter, w.adapter.getEntry('2024-03-01'))).fromCache).toBe(false);
    expect(w.refresher.status()).toMatchObject({ inUse: false, lastRefresh: { outcome: 'unavailable' } });
    expect(w.logs.map((line) => line.level)).toEqual(['info']);
  });
});

describe('the store', () => {
  it('a write that fails is an error to the caller; the mirror in use and the stored one stay as they were', async () => {
    // The service's entry of 06-15 is large: storing it needs pages the file may not grow.
    const w = await start({ entries: ALL.map((entry) => (entry.date === TODAY ? { ...entry, definition: 'd'.repeat(150_000) } : entry)) });
    await w.refresh();
    const before = await w.store.current();
    const generation = w.holder.loadedGeneration;
    // The SQLite file may not grow any more: the next chunk's write fails with SQLITE_FULL.
    const sqlite = w.keyv.store as KeyvSqlite;
    const pages = ((await sqlite.query('PRAGMA page_count')) as Array<{ page_count: number }>)[0]?.page_count ?? 0;
    await sqlite.query(`PRAGMA max_page_count = ${pages}`);
    const entries = [...(w.holder.current()?.entries() ?? []), { date: '2024-06-15', word: 'x'.repeat(4000), pos: '', ipa: '', definition: 'y'.repeat(60_000) }];
    const install = w.store.install(entries, { source: before?.source ?? '', coveredThrough: '2024-06-15', holes: [], snapshot: null, skippedRows: 0 }, before, w.clock.ms);
    await expect(install).rejects.toBeInstanceOf(StoreError);
    await expect(install).rejects.toThrow(/the mirror store failed \(write\): .*SQLITE_FULL/);
    expect(w.store.watch.errorCounts().get('write')).toBe(1);
    expect((await w.store.current())?.generation).toBe(before?.generation);

    // Through the refresher: the day's fill cannot be stored, so the refresh does not succeed and nothing changes.
    w.clock.advanceTo(Date.parse('2024-06-16T01:00:00Z'));
    const report = await w.refresh();
    expect(report?.outcome).toBe('failed');
    expect(report?.detail).toMatch(/^the refresh failed: the mirror store failed \(write\): .*SQLITE_FULL.*; keeping the mirror in use$/);
    expect(w.logs.filter((line) => line.level === 'warn').map((line) => line.msg)).toEqual([`mirror: ${report?.detail ?? ''}`]);
    expect(w.holder.loadedGeneration).toBe(generation);
    expect((await w.store.current())?.generation).toBe(before?.generation);
  });
});

describe('another process refreshing', () => {
  it('is watched every 30 s, so its copy is taken up soon after it is installed', async () => {
    const w = await start();
    const follower = await w.anotherProcess();
    const source = `site:${new URL(w.site.url).origin}`;
    await w.store.updateState((state) => ({ state: { ...state, source, nextAt: 0, claim: { owner: 'elsewhere', until: w.clock.ms + 10 * 60_000 } }, result: null }));
    follower.refresher.start();
    w.clock.advance(0);
    await until(() => w.clock.timerCount > 0 && follower.refresher.status().lastRefresh === null);
    // The refresh "elsewhere" ends, and this world's first process installs a copy meanwhile.
    await w.store.updateState((state) => ({ state: { ...state, claim: null }, result: null }));
    expect(await w.refresher.runOnce()).toMatchObject({ outcome: 'updated' });
    expect(follower.holder.current()).toBeNull();
    w.clock.advance(30_000);
    await until(() => follower.holder.current() !== null);
    expect(follower.holder.loadedGeneration).toBe(w.holder.loadedGeneration);
  });
});

describe('a store that fails every round', () => {
  it('is asked again after 30 s, then 60 s, …: one error line each time, not one a second', async () => {
    const w = await start();
    const sqlite = w.keyv.store as KeyvSqlite;
    await sqlite.query('PRAGMA query_only = ON');
    const errors = () => w.logs.filter((line) => line.level === 'error').map((line) => line.msg);
    // Reads work, the claim's write does not.
    w.refresher.start();
    w.clock.advance(0);
    await until(() => errors().length === 1);
    expect(errors()[0]).toMatch(/^mirror: the store failed \(the mirror store failed \(write\): .*; the mirror in use is kept, trying again in 30 s$/);
    w.clock.advance(29_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(errors()).toHaveLength(1);
    w.clock.advance(1_000);
    await until(() => errors().length === 2);
    expect(errors()[1]).toMatch(/trying again in 60 s$/);
    await sqlite.query('PRAGMA query_only = OFF');
  });
});

/** Waits (real time, at most 5 s) for `done`. */
async function until(done: () => boolean): Promise<void> {
  for (let waited = 0; !done(); waited += 10) {
    if (waited > 5_000) throw new Error('gave up waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the stored copy', () => {
  it('damaged (a chunk gone): not used, downloaded afresh, and every chunk written again', async () => {
    // Two years: the 2023 chunk is the same in every copy, so only a rewrite brings it back.
    const entries = sampleEntries('2023-12-01', 197);
    world = await startMirrorWorld({ today: TODAY, entries });
    const w = world;
    await w.publish('2024-05', entries.filter((entry) => entry.date <= '2024-05-31'));
    await w.refresh();
    const chunk = (await w.store.current())?.chunks[0]?.key ?? '';
    await w.keyv.delete(chunk);
    const next = await w.anotherProcess();
    const report = await drive(w.clock, next.adapter, next.refresher.runOnce());
    expect(w.logs.filter((line) => line.level === 'error').map((line) => line.msg)).toEqual([
      expect.stringMatching(/^mirror: the stored copy is damaged \(the stored mirror .* lacks its chunk c:/),
    ]);
    // No conditional request: the copy it would revalidate is not there whole.
    expect(w.site.requests.at(-1)).toMatchObject({ path: '/databases/download/wotd_2024-05.db', status: 200, headers: { 'if-none-match': undefined } });
    expect(report?.outcome).toBe('updated');
    expect(await w.keyv.get(chunk)).toBeDefined();
    const third = await w.anotherProcess();
    expect(await drive(w.clock, third.adapter, third.refresher.runOnce())).toBeNull();
    expect(third.holder.current()?.rows).toBe(197);
  });

  it('of another source (WOTD_MIRROR changed): replaced by a copy of the new one', async () => {
    const w = await start();
    await w.refresh();
    const local = await tempDir();
    const file = join(local.path, 'words.db');
    await writeSnapshot(file, through('2024-04-30'));
    const switched = new MirrorRefresher({
      source: { kind: 'file', path: file },
      store: w.store,
      holder: new MirrorHolder(),
      lookup: w.adapter,
      logger: createLogger({ level: 'silent' }),
      now: w.clock.now,
      timers: w.clock,
      tempParent: w.dir,
    });
    const report = await drive(w.clock, w.adapter, switched.runOnce());
    expect(report?.detail).toMatch(/^installed words\.db: 121 entries through 2024-04-30; filled \d+ entries through 2024-06-14$/);
    expect((await w.store.current())?.source).toBe(`file:${file}`);
    await switched.close();
    await local.cleanup();
  });

  it('whose refresh died against another source: the new source is refreshed at once, not after that claim runs out', async () => {
    const w = await start();
    // A start against an unreachable service claimed a refresh of its origin, failed, and ended holding the claim.
    await w.store.updateState((state) => ({
      state: { ...state, source: 'site:http://127.0.0.1:9', claim: { owner: 'a bot that ended', until: w.clock.ms + 10 * 60_000 }, failures: 1, nextAt: w.clock.ms + 5 * 60_000 },
      result: null,
    }));
    const report = await w.refresh();
    expect(report?.outcome).toBe('updated');
    expect(w.refresher.status()).toMatchObject({ inUse: true, lastRefresh: { outcome: 'updated' } });
  });
});

describe('a day with a row the bot could not check', () => {
  it('is left to the service, and searches say they may be incomplete', async () => {
    world = await startMirrorWorld({ today: TODAY, entries: ALL });
    const w = world;
    const file = await w.publish('2024-05', through('2024-05-31'));
    await writeSqlite(file.path, "UPDATE words SET ipa = NULL WHERE date = '2024-05-20'");
    const report = await w.refresh();
    expect(report?.detail).toMatch(/^installed wotd_2024-05\.db: 151 entries through 2024-05-31, 1 rows skipped \(1 invalid; first: row \d+: ipa: /);
    expect(w.holder.current()?.covers('2024-05-20')).toBe(false);
    const asked = apiRequests(w);
    expect((await drive(w.clock, w.adapter, w.adapter.getEntry('2024-05-20'))).value.date).toBe('2024-05-20');
    expect(apiRequests(w)).toBe(asked + 1);
    const word = ALL.find((entry) => entry.date === '2024-05-01')?.word ?? '';
    expect((await w.adapter.findWord(word)).value.complete).toBe(false);
  });
});
