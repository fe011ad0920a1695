import { afterEach, describe, expect, it, vi } from 'vitest';
import { runMigrateStore } from '../../src/cli/migrate-store.ts';
import { parseDeliveryKey, pruneCutoff, pruneDeliveries } from '../../src/schedule/delivery-retention.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import type { DeliveryRecord } from '../../src/schedule/subscription.ts';
import { openStore, type StoreLocation } from '../../src/store/open-store.ts';
import { addDays, type IsoDate } from '../../src/wotd/dates.ts';
import { describeRedis, useRedisPrefix } from '../support/redis.ts';
import { makeSubscription, tempStore } from './helpers.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function record(channelId: string, day: IsoDate): DeliveryRecord {
  return { channelId, day, state: 'sent', nonce: 'n', attempts: 1, messageId: `m-${channelId}-${day}`, updatedAt: `${day}T09:00:00.000Z` };
}

/** A clock the test moves by hand; the store dates removals with it. */
function dayClock(start: IsoDate) {
  let today = start;
  return {
    now: () => new Date(`${today}T12:00:00Z`),
    get today() {
      return today;
    },
    set(day: IsoDate) {
      today = day;
    },
  };
}

async function open(where: string | StoreLocation, now: () => Date): Promise<SubscriptionStore> {
  const store = await SubscriptionStore.open(where, undefined, { now });
  cleanups.push(() => store.close());
  return store;
}

async function deliveryKeys(store: SubscriptionStore): Promise<string[]> {
  const keys: string[] = [];
  for await (const page of store.deliveryKeys()) keys.push(...page);
  return keys.sort();
}

/** Records for each channel on each day from `from` to `to`. */
async function writeDays(store: SubscriptionStore, channels: string[], from: IsoDate, to: IsoDate): Promise<void> {
  for (let day = from; day <= to; day = addDays(day, 1)) for (const channel of channels) await store.putDelivery(record(channel, day));
}

const RETENTION = 5;

/** The same story on SQLite and on Redis: daily passes, a removal, a scan after a long stop. */
async function pruningStory(store: SubscriptionStore, clock: ReturnType<typeof dayClock>): Promise<void> {
  await store.upsert('g1', 'kept', 5, () => makeSubscription({ channelId: 'kept' }));
  await store.upsert('g2', 'leaving', 5, () => makeSubscription({ guildId: 'g2', channelId: 'leaving' }));
  await writeDays(store, ['kept', 'leaving'], '2026-01-01', '2026-01-10');

  // The first pass knows nothing yet: it scans, and deletes what is past the retention.
  clock.set('2026-01-10');
  expect(pruneCutoff('2026-01-10', RETENTION)).toBe('2026-01-04');
  expect(await pruneDeliveries(store, clock.today, RETENTION)).toEqual({ through: '2026-01-04', deleted: 8, scanned: true });
  expect(await store.deliveryPruneMark()).toBe('2026-01-04');
  expect((await deliveryKeys(store)).filter((key) => key.startsWith('kept:'))).toHaveLength(6);
  // The same day again finds nothing to do.
  expect(await pruneDeliveries(store, clock.today, RETENTION)).toBeNull();

  // `leaving` unsubscribes on the 10th: its server's list goes, and it is remembered under that day.
  expect((await store.remove('g2', 'leaving'))?.channelId).toBe('leaving');
  expect(await store.listGuild('g2')).toEqual([]);
  expect(await store.retiredOn(['2026-01-10'])).toEqual([['leaving']]);

  // Day by day, both channels' records go as they pass the retention, unsubscribed or not.
  for (let day = '2026-01-11'; day <= '2026-01-14'; day = addDays(day, 1)) {
    clock.set(day);
    await store.putDelivery(record('kept', day));
    expect(await pruneDeliveries(store, day, RETENTION)).toEqual({ through: pruneCutoff(day, RETENTION), deleted: 2, scanned: false });
  }
  expect((await deliveryKeys(store)).filter((key) => key.startsWith('leaving:'))).toEqual([
    'leaving:2026-01-09',
    'leaving:2026-01-10',
  ]);
  clock.set('2026-01-16');
  await store.putDelivery(record('kept', '2026-01-15'));
  await store.putDelivery(record('kept', '2026-01-16'));
  expect(await pruneDeliveries(store, clock.today, RETENTION)).toEqual({ through: '2026-01-10', deleted: 4, scanned: false });
  expect((await deliveryKeys(store)).filter((key) => key.startsWith('leaving:'))).toEqual([]);
  // Its records are all gone; the list that remembered it goes at the next pass (a day's slack for clock skew).
  expect(await store.retiredDays()).toEqual(['2026-01-10']);
  expect(await deliveryKeys(store)).toEqual(['kept:2026-01-11', 'kept:2026-01-12', 'kept:2026-01-13', 'kept:2026-01-14', 'kept:2026-01-15', 'kept:2026-01-16']);

  // After a stop of a month the next pass scans once rather than going day by day.
  clock.set('2026-02-20');
  await store.putDelivery(record('kept', '2026-02-18'));
  expect(await pruneDeliveries(store, clock.today, RETENTION)).toEqual({ through: '2026-02-14', deleted: 6, scanned: true });
  expect(await deliveryKeys(store)).toEqual(['kept:2026-02-18']);
  expect(await store.retiredDays()).toEqual([]);
}

describe('pruning delivery records on a SQLite store', () => {
  it('deletes records past the retention day by day, unsubscribed channels included, and scans only when it must', async () => {
    const temp = tempStore();
    cleanups.push(temp.cleanup);
    const clock = dayClock('2026-01-01');
    await pruningStory(await open(temp.url, clock.now), clock);
  });

  it('a first scan lists channels that have records but no subscription, so daily passes find them', async () => {
    const temp = tempStore();
    cleanups.push(temp.cleanup);
    const clock = dayClock('2026-03-10');
    const store = await open(temp.url, clock.now);
    // Records of a channel unsubscribed by a version that kept no `retired:` lists, and one damaged key.
    await writeDays(store, ['orphan'], '2026-03-01', '2026-03-08');
    const raw = await openStore<unknown>(temp.url, 'deliveries');
    cleanups.push(() => raw.disconnect());
    await raw.set('not-a-record', { junk: true });

    expect(await pruneDeliveries(store, '2026-03-10', RETENTION)).toMatchObject({ deleted: 4, scanned: true });
    expect(await store.retiredOn(['2026-03-08'])).toEqual([['orphan']]);
    expect(await pruneDeliveries(store, '2026-03-14', RETENTION)).toMatchObject({ deleted: 4, scanned: false });
    expect(await deliveryKeys(store)).toEqual(['not-a-record']);
    expect(await store.retiredDays()).toEqual(['2026-03-08']);
    expect(await pruneDeliveries(store, '2026-03-15', RETENTION)).toMatchObject({ deleted: 0, scanned: false });
    expect(await store.retiredDays()).toEqual([]);
  });

  it('migrate-store makes the target scan once, so copied records of unsubscribed channels are pruned too', async () => {
    const source = tempStore();
    const target = tempStore();
    cleanups.push(source.cleanup, target.cleanup);
    const clock = dayClock('2026-03-10');
    const from = await open(source.url, clock.now);
    await writeDays(from, ['orphan'], '2026-03-06', '2026-03-09');
    await from.close();
    const to = await open(target.url, clock.now);
    expect(await pruneDeliveries(to, '2026-03-10', RETENTION)).toMatchObject({ scanned: true });
    await to.close();

    let written = '';
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written += String(chunk);
      return true;
    });
    try {
      expect(await runMigrateStore(['--from', source.url, '--to', target.url])).toBe(0);
    } finally {
      spy.mockRestore();
    }
    expect(written).toBe('migrated subscriptions=0 deliveries=4 saved_words=0 quiz_posts=0 quiz_answers=0 streaks=0\n');
    const migrated = await open(target.url, clock.now);
    expect(await migrated.deliveryPruneMark()).toBeNull();
    expect(await pruneDeliveries(migrated, '2026-03-11', RETENTION)).toMatchObject({ scanned: true, deleted: 0 });
    expect(await pruneDeliveries(migrated, '2026-03-16', RETENTION)).toMatchObject({ scanned: false, deleted: 4 });
    expect(await deliveryKeys(migrated)).toEqual([]);
  });

  it('refuses a retention too short for the records the scheduler still reads', async () => {
    const temp = tempStore();
    cleanups.push(temp.cleanup);
    const store = await open(temp.url, () => new Date());
    await expect(pruneDeliveries(store, '2026-03-10', 2)).rejects.toThrow('at least 3');
  });

  it('reads channel and day back from a record key, channel names with colons included', () => {
    expect(parseDeliveryKey('123:2026-03-10')).toEqual({ channelId: '123', day: '2026-03-10' });
    expect(parseDeliveryKey('#a:b:2026-03-10')).toEqual({ channelId: '#a:b', day: '2026-03-10' });
    expect(parseDeliveryKey('123:2026-02-30')).toBeNull();
    expect(parseDeliveryKey(':2026-03-10')).toBeNull();
    expect(parseDeliveryKey('plain')).toBeNull();
  });
});

describeRedis('pruning delivery records on a Redis store', () => {
  const redis = useRedisPrefix();

  it('deletes records past the retention day by day, unsubscribed channels included, and scans only when it must', async () => {
    const clock = dayClock('2026-01-01');
    await pruningStory(await open(redis.location, clock.now), clock);
  });
});
