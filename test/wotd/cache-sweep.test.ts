import { join } from 'node:path';
import type Keyv from 'keyv';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import { scanNamespaceKeys } from '../../src/store/scan.ts';
import { SWEEP_EVERY_MS } from '../../src/wotd/cache-sweep.ts';
import { DEFAULT_TTLS, WotdCache } from '../../src/wotd/cache.ts';
import { entryFor } from '../schedule/helpers.ts';
import { tempDir } from './harness.ts';

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;

let dir: Awaited<ReturnType<typeof tempDir>>;
let store: Keyv;
let nowMs: number;

beforeEach(async () => {
  dir = await tempDir();
  store = await openStore(`sqlite://${join(dir.path, 'cache.sqlite')}`, 'wotd-cache');
  nowMs = Date.parse('2026-04-01T12:00:00Z');
});

afterEach(async () => {
  await store.disconnect();
  await dir.cleanup();
});

async function keys(): Promise<string[]> {
  const all: string[] = [];
  for await (const page of scanNamespaceKeys(store as Keyv<unknown>)) all.push(...page);
  return all.sort();
}

it('sweeps out what has passed its keep time, on its own clock, and keeps entries and the word index', async () => {
  const cache = await WotdCache.open(store, { now: () => nowMs });
  await cache.putEntries([entryFor('2026-03-30'), entryFor('2026-03-31')], '2026-04-01');
  await cache.putEntries([entryFor('2026-04-01')], '2026-04-01');
  for (let i = 0; i < 50; i += 1) await cache.putFindMiss(`nonsense-${i}`);
  await cache.putMissing('2020-01-01', '2026-04-01');
  await cache.putFind('word-2026-03-30', { entries: [entryFor('2026-03-30')], complete: true }, '2026-04-01');
  // A miss written by an earlier version: no keep time, expired long ago.
  await store.set('fm:ancient', { v: true, exp: nowMs - DEFAULT_TTLS.staleKeepMs - DAY, s: 2 });
  expect((await keys()).filter((key) => key.startsWith('fm:'))).toHaveLength(51);

  // Nothing is swept before a sweep is due; SQLite keeps expired rows until then.
  nowMs += SWEEP_EVERY_MS - 1;
  await cache.putFindMiss('fresh-before-sweep');
  await cache.settled();
  expect((await keys()).filter((key) => key.startsWith('fm:'))).toHaveLength(52);

  // The next write after the period starts a sweep: the misses (an hour) and the old 404 (six hours) go.
  nowMs += 2;
  await cache.putFindMiss('fresh');
  await cache.settled();
  expect(await keys()).toEqual([
    'e:2026-03-30',
    'e:2026-03-31',
    'e:2026-04-01',
    'earliest',
    'f:word-2026-03-30',
    'fm:fresh',
    'fm:fresh-before-sweep',
    'swept',
    'w:word-2026-03-30',
    'w:word-2026-03-31',
    'w:word-2026-04-01',
    'words',
  ]);
  expect(cache.footprint().memoryRecords).toBeLessThanOrEqual(20_000);

  // A month on, today's entry as it was cached that day, and the search result, are gone too; past entries stay.
  nowMs += 31 * DAY;
  expect(await cache.sweep()).toBe(4);
  expect((await keys()).filter((key) => /^(e|f|fm):/.test(key))).toEqual(['e:2026-03-30', 'e:2026-03-31']);
  expect(await cache.getEntry('2026-03-30')).toMatchObject({ fresh: true });
  expect(cache.suggest('word-2026-03', 5)).toEqual(['word-2026-03-30', 'word-2026-03-31']);
});

it('shares the sweep period with every process on the store through the stored time of the last sweep', async () => {
  const first = await WotdCache.open(store, { now: () => nowMs });
  await first.putFindMiss('a');
  nowMs += SWEEP_EVERY_MS + 1;
  await first.putFindMiss('b');
  await first.settled();
  expect(await keys()).toEqual(['fm:b', 'swept']);

  // A second cache (a CLI run) opened soon after does not sweep again.
  nowMs += HOUR;
  const second = await WotdCache.open(store, { now: () => nowMs });
  await second.putFindMiss('c');
  nowMs += HOUR;
  await second.putFindMiss('d');
  await second.settled();
  expect(await keys()).toEqual(['fm:b', 'fm:c', 'fm:d', 'swept']);
  nowMs += SWEEP_EVERY_MS;
  await second.putFindMiss('e');
  await second.settled();
  expect(await keys()).toEqual(['fm:e', 'swept']);
});
