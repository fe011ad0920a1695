import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WotdAdapter } from '../../../src/wotd/adapter.ts';
import { addDays } from '../../../src/wotd/dates.ts';
import type { Entry } from '../../../src/wotd/entry.ts';
import { MirrorHolder } from '../../../src/wotd/mirror/mirror-holder.ts';
import { MirrorModel } from '../../../src/wotd/mirror/mirror-model.ts';
import { sampleEntries, startDeploymentTwin, withDeploymentCases, type DeploymentTwin } from '../../support/upstream/deployment-twin.ts';
import { ManualClock } from '../../support/upstream/manual-clock.ts';
import { drive, failure, sqliteAdapter, tempDir } from '../harness.ts';

/**
 * The adapter with a mirror in place, against deployment A's twin: which lookups the mirror answers, which it
 * completes from the cache, and which still go to the service. Each `requests` count is the twin's own log.
 */

const TODAY = '2024-06-15';
const { entries: ALL, recurring } = withDeploymentCases(sampleEntries('2024-01-01', 172), TODAY);
const past = (last: string) => ALL.filter((entry) => entry.date <= last);
const dates = (list: readonly Entry[]) => list.map((entry) => entry.date);

let dir: { path: string; cleanup: () => Promise<void> };
let clock: ManualClock;
let twin: DeploymentTwin;
let holder: MirrorHolder;
let adapter: WotdAdapter;

beforeEach(async () => {
  dir = await tempDir();
  clock = new ManualClock(`${TODAY}T12:00:00Z`);
  twin = await startDeploymentTwin({ variant: 'A', entries: ALL, now: clock.now, rateLimitPerMinute: 0 });
  holder = new MirrorHolder();
  adapter = await sqliteAdapter(dir.path, clock, { baseUrl: twin.url, variant: 'A', mirror: holder });
});

afterEach(async () => {
  await adapter.close();
  await twin.close();
  await dir.cleanup();
});

/** A mirror covering every day up to `through`. */
function mirrorThrough(through: string, holes: string[] = []): void {
  const checked = past(through).filter((entry) => !holes.includes(entry.date));
  holder.swap(MirrorModel.build(checked, through, holes), `test-${through}`);
}

describe('entries and history', () => {
  it('answers covered past days; today and the days after the mirror go to the service', async () => {
    mirrorThrough('2024-06-12');
    expect((await adapter.getEntry('2024-06-12')).fromCache).toBe(true);
    // 10 days ago the service had no word: the mirror knows it.
    expect((await failure(adapter.getEntry(addDays(TODAY, -10)))).code).toBe('not_found');
    expect(twin.requests).toEqual([]);
    expect((await drive(clock, adapter, adapter.getEntry())).value.date).toBe(TODAY);
    expect((await drive(clock, adapter, adapter.getEntry('2024-06-13'))).fromCache).toBe(false);
    expect(twin.requests.map((request) => request.path)).toEqual(['/query', '/query_previous']);
  });

  it('a page reaching past the mirror takes those days from the cache once it knows each of them', async () => {
    mirrorThrough('2024-06-12');
    // The cache does not know 06-13 and 06-14 yet: the service is asked (and its page is cached).
    expect((await drive(clock, adapter, adapter.getPrevious(TODAY, 3))).fromCache).toBe(false);
    const asked = twin.requests.length;
    const page = await adapter.getPrevious(TODAY, 8);
    expect(page.fromCache).toBe(true);
    expect(dates(page.value.entries)).toEqual(['2024-06-14', '2024-06-13', '2024-06-12', '2024-06-11', '2024-06-10', '2024-06-09', '2024-06-08', '2024-06-07']);
    expect(page.value.hasMore).toBe(true);
    expect(twin.requests.length).toBe(asked);
    expect(adapter.stats().mirrorHits).toBe(1);
  });

  it('a hole (a row the bot could not check) sends its day, and pages over it, to the service', async () => {
    mirrorThrough('2024-06-14', ['2024-06-01']);
    expect((await adapter.getPrevious('2024-06-10', 3)).fromCache).toBe(true);
    expect((await drive(clock, adapter, adapter.getEntry('2024-06-01'))).fromCache).toBe(false);
    expect((await drive(clock, adapter, adapter.getPrevious('2024-06-03', 3))).fromCache).toBe(false);
  });
});

describe('find, against deployment A (which reports one date)', () => {
  it('is complete from the mirror: every date, newest first, any case', async () => {
    mirrorThrough('2024-06-14');
    const found = await drive(clock, adapter, adapter.findWord(recurring.toUpperCase()));
    expect(dates(found.value.entries)).toEqual([addDays(TODAY, -3), addDays(TODAY, -40)]);
    expect(found.value.complete).toBe(true);
    // Only today's entry was asked for (the days before it are the mirror's); no /find_wotd.
    expect(twin.requests.map((request) => request.path)).toEqual(['/query']);
    const again = await adapter.findWord(recurring);
    expect(again.fromCache).toBe(true);
    expect(twin.requests).toHaveLength(1);
    expect((await failure(adapter.findWord('neverchosen'))).code).toBe('not_found');
    expect(twin.requests).toHaveLength(1);
  });

  it('fetches the few days after the mirror once, then answers complete', async () => {
    mirrorThrough('2024-06-10');
    const found = await drive(clock, adapter, adapter.findWord(recurring));
    expect(dates(found.value.entries)).toEqual([addDays(TODAY, -3), addDays(TODAY, -40)]);
    expect(found.value.complete).toBe(true);
    expect(twin.requests.map((request) => `${request.path} ${request.query.date ?? ''}`)).toEqual(['/query 2024-06-15', `/query_previous ${TODAY}`]);
  });

  it('a mirror far behind: the service is asked, and the mirror’s dates are added to its answer', async () => {
    mirrorThrough('2024-05-20');
    const found = await drive(clock, adapter, adapter.findWord(recurring));
    expect(twin.requests.map((request) => request.path)).toEqual(['/find_wotd']);
    expect(found.value.complete).toBe(false);
    expect(dates(found.value.entries)).toEqual([addDays(TODAY, -40)]);
  });

  it('suggests the mirror’s words too', async () => {
    mirrorThrough('2024-06-14');
    expect(await adapter.suggestWords('melan', 5)).toEqual([recurring]);
    expect(twin.requests).toEqual([]);
  });
});
