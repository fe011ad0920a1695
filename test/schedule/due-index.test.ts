import { afterEach, expect, it } from 'vitest';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { ensureDueIndex } from '../../src/schedule/due-index-build.ts';
import { checkDueIndex } from '../../src/schedule/due-index-check.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { keysUnder } from '../support/redis.ts';
import { storeBackends } from '../support/store-backends.ts';
import { captureLogger, FixedLookup, makeSubscription, RecordingPoster } from './helpers.ts';

/**
 * The due-time index (issue 33), on each store: a tick reads what is due and nothing else; a delivery moves its
 * channel on in the write that records it; a damaged index (an entry missing, a late instant, an entry with no
 * subscription) is found by the check and repaired, with no post lost or doubled; a store written before the
 * index is indexed at first start, resumably.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const at = (iso: string) => new Date(iso);

for (const backend of storeBackends) {
  backend.describe(`the due-time index, on ${backend.name}`, () => {
    async function world(channels: string[], time = '09:00') {
      const store = await SubscriptionStore.open(await backend.fresh());
      cleanups.push(() => store.close());
      for (const channelId of channels) await store.upsert('g1', channelId, 100, () => makeSubscription({ channelId, time }));
      const poster = new RecordingPoster();
      const { logger, lines } = captureLogger();
      const scheduler = new DailyScheduler({ store, lookup: new FixedLookup(), poster, render: (entry) => entryEmbed(entry, { siteUrl: 'https://wotd.site' }), logger, concurrency: 4 });
      const postsIn = (channelId: string) => poster.messages.filter((message) => message.channelId === channelId).length;
      return { store, poster, scheduler, lines, postsIn };
    }

    it('a tick reads only what is due, and a delivery moves its channel to its next post in the same write', async () => {
      const { store, scheduler } = await world(['c1', 'c2']);
      await store.upsert('g1', 'c3', 100, () => makeSubscription({ channelId: 'c3', time: '18:00' }));
      expect(await scheduler.tick(at('2026-06-15T09:00:00Z'))).toMatchObject({ total: 2, sent: 2 });
      const entries = await store.dueIndex().get(['c1', 'c2', 'c3']);
      expect(entries.get('c1')).toEqual({ channelId: 'c1', dueAt: Date.parse('2026-06-16T09:00:00Z'), state: 'active' });
      expect(entries.get('c3')?.dueAt).toBe(Date.parse('2026-06-15T18:00:00Z'));

      // Between post times nothing is due: no subscription and no delivery record is read.
      const reads: string[] = [];
      const getDeliveries = store.getDeliveries.bind(store);
      store.getDeliveries = (ids, day) => {
        reads.push(...ids);
        return getDeliveries(ids, day);
      };
      let dueRead = 0;
      const due = store.due.bind(store);
      store.due = async function* (now, pageSize) {
        for await (const page of due(now, pageSize)) {
          dueRead += page.length;
          yield page;
        }
      };
      expect(await scheduler.tick(at('2026-06-15T12:00:00Z'))).toMatchObject({ total: 0 });
      expect({ dueRead, reads }).toEqual({ dueRead: 0, reads: [] });
      expect(await scheduler.tick(at('2026-06-15T18:00:00Z'))).toMatchObject({ total: 1, sent: 1 });
      expect({ dueRead, reads }).toEqual({ dueRead: 1, reads: ['c3'] });
      expect(await store.countByState()).toEqual({ active: 3, failing: 0, disabled: 0 });
    });

    it('a move whose entry was changed meanwhile leaves the change; the record is written all the same', async () => {
      const { store } = await world(['c1']);
      const index = store.dueIndex();
      await index.put([{ channelId: 'c1', dueAt: 5, state: 'active' }]);
      await store.putDelivery({ channelId: 'c1', day: '2026-06-15', state: 'sent', nonce: 'n', attempts: 1, updatedAt: '2026-06-15T09:00:00Z' }, { channelId: 'c1', from: 4, to: 99 });
      expect((await index.get(['c1'])).get('c1')?.dueAt).toBe(5);
      expect(await store.getDelivery('c1', '2026-06-15')).toMatchObject({ state: 'sent' });
      await store.putDelivery({ channelId: 'c1', day: '2026-06-16', state: 'sent', nonce: 'n', attempts: 1, updatedAt: '2026-06-16T09:00:00Z' }, { channelId: 'c1', from: 5, to: 99 });
      expect((await index.get(['c1'])).get('c1')?.dueAt).toBe(99);
    });

    it('a pass hands out what is due a page at a time, in order, each entry once, while what it read moves on', async () => {
      const location = await backend.fresh();
      const store = await SubscriptionStore.open(location);
      cleanups.push(() => store.close());
      const index = store.dueIndex();
      await index.put([
        ...Array.from({ length: 7 }, (_, i) => ({ channelId: `c${i}`, dueAt: 100 + (i % 3), state: 'active' as const })),
        { channelId: 'later', dueAt: 500, state: 'active' },
      ]);
      const pass = async (stopAfter = Infinity) => {
        const seen: string[] = [];
        const pages: number[] = [];
        for await (const page of index.due(200, 2)) {
          pages.push(page.length);
          seen.push(...page.map((entry) => entry.channelId));
          // As a tick does: what it has read moves past the pass's instant.
          await index.move(page.map((entry) => ({ channelId: entry.channelId, from: entry.dueAt, to: 1_000 })));
          if (pages.length >= stopAfter) break;
        }
        return { seen, pages };
      };
      expect(await pass(2)).toEqual({ seen: ['c0', 'c3', 'c6', 'c1'], pages: [2, 2] });
      expect(await pass()).toEqual({ seen: ['c4', 'c2', 'c5'], pages: [2, 1] });
      expect(await pass()).toEqual({ seen: [], pages: [] });
      // Redis keeps each pass's snapshot under the store's prefix only while the pass runs, finished or left.
      if (backend.name === 'Redis') expect(await keysUnder(`${location.keyPrefix ?? ''}due-index:pass:`)).toEqual([]);
    });

    it('keeps the counts per state as subscriptions change, without reading them', async () => {
      const { store } = await world(['c1', 'c2', 'c3']);
      await store.update('c2', (current) => ({ ...current, status: { state: 'failing', reason: { kind: 'timeout' }, failedDays: 1, lastFailedDay: '2026-06-15' } }));
      await store.update('c3', (current) => ({ ...current, status: { state: 'disabled', reason: { kind: 'timeout' }, at: '2026-06-15T00:00:00Z' } }));
      expect(await store.countByState()).toEqual({ active: 1, failing: 1, disabled: 1 });
      await store.remove('g1', 'c1');
      await store.eraseGuild('g1');
      expect(await store.countByState()).toEqual({ active: 0, failing: 0, disabled: 0 });
    });

    it('the check finds an entry missing, a late instant and an entry with no subscription; repaired, no post is lost or doubled', async () => {
      const { store, scheduler, postsIn } = await world(['c1', 'c2', 'c3']);
      expect(await scheduler.tick(at('2026-06-15T08:00:00Z'))).toMatchObject({ total: 0 });
      const index = store.dueIndex();
      await index.remove(['c1']);
      await index.put([{ channelId: 'c2', dueAt: Date.parse('2027-01-01T00:00:00Z'), state: 'active' }]);
      await index.put([{ channelId: 'c9', dueAt: Date.parse('2026-06-15T08:30:00Z'), state: 'active' }]);

      const found = await checkDueIndex(store, at('2026-06-15T08:45:00Z'));
      expect(found).toMatchObject({ subscriptions: 3, entries: 3, missing: ['c1'], late: ['c2'], orphaned: ['c9'], wrongState: [], repaired: false });
      // Unrepaired, only c3 gets its post on time (the entry with no subscription is dropped by the tick).
      expect(await scheduler.tick(at('2026-06-15T09:00:00Z'))).toMatchObject({ total: 1, sent: 1 });
      expect((await index.get(['c9'])).has('c9')).toBe(false);

      const repaired = await checkDueIndex(store, at('2026-06-15T09:05:00Z'), { repair: true });
      expect(repaired).toMatchObject({ missing: ['c1'], late: ['c2'], orphaned: [], repaired: true });
      // The posts owed are caught up the same day, once; c3 is not posted again.
      expect(await scheduler.tick(at('2026-06-15T09:06:00Z'))).toMatchObject({ total: 2, sent: 2 });
      expect(await scheduler.tick(at('2026-06-15T09:07:00Z'))).toMatchObject({ total: 0 });
      expect(await checkDueIndex(store, at('2026-06-15T09:08:00Z'))).toMatchObject({ missing: [], late: [], wrongState: [], orphaned: [] });
      expect(await scheduler.tick(at('2026-06-16T09:00:00Z'))).toMatchObject({ total: 3, sent: 3 });
      expect(['c1', 'c2', 'c3'].map(postsIn)).toEqual([2, 2, 2]);

      // A count under the wrong state is found and repaired too.
      await index.put([{ channelId: 'c1', dueAt: Date.parse('2026-06-17T09:00:00Z'), state: 'disabled' }]);
      expect(await checkDueIndex(store, at('2026-06-16T10:00:00Z'), { repair: true })).toMatchObject({ wrongState: ['c1'] });
      expect(await store.countByState()).toEqual({ active: 3, failing: 0, disabled: 0 });
    });

    it('a store written before the index is indexed at first start, resumably, with nothing posted twice or missed', async () => {
      const channels = Array.from({ length: 1_200 }, (_, i) => `c${String(i).padStart(4, '0')}`);
      const { store, scheduler, lines, postsIn } = await world([]);
      await store.putMany(channels.map((channelId) => makeSubscription({ channelId, guildId: `g${channelId.slice(0, 3)}` })));
      // c0000 was posted today by the old code; the rest are owed. Then the index is taken away, as before it existed.
      await store.putDelivery({ channelId: 'c0000', day: '2026-06-15', state: 'sent', nonce: 'n', attempts: 1, messageId: 'old', updatedAt: '2026-06-15T09:00:00Z' });
      const index = store.dueIndex();
      await index.remove(channels);
      await index.setBuiltFor(null);

      // The first build stops part-way (the process dies): the next start carries on from what was written.
      const putMissing = index.putMissing.bind(index);
      let calls = 0;
      index.putMissing = async (entries) => {
        calls += 1;
        if (calls === 2) throw new Error('killed');
        await putMissing(entries);
      };
      const { logger } = captureLogger();
      await expect(ensureDueIndex(store, logger)).rejects.toThrow('killed');
      expect(await index.builtFor()).toBeNull();
      const report = await ensureDueIndex(store, logger);
      expect(report).toMatchObject({ subscriptions: 1_200, created: 700 });
      expect(await ensureDueIndex(store, logger)).toBeNull();
      expect(await store.countByState()).toEqual({ active: 1_200, failing: 0, disabled: 0 });

      expect(await scheduler.tick(at('2026-06-15T10:00:00Z'))).toMatchObject({ total: 1_199, sent: 1_199 });
      expect(postsIn('c0000')).toBe(0);
      expect(await scheduler.tick(at('2026-06-15T10:01:00Z'))).toMatchObject({ total: 0 });
      expect(lines.some((line) => line.msg === 'building the due-time index of the daily posts')).toBe(false);

      // New time-zone rules in the runtime: every instant is made due at once and placed again; nothing is re-sent.
      await index.setBuiltFor('rules=1 tz=1999a');
      expect(await ensureDueIndex(store, logger)).toMatchObject({ subscriptions: 1_200, created: 0, madeDue: 1_200 });
      expect(await scheduler.tick(at('2026-06-15T10:02:00Z'))).toMatchObject({ total: 0 });
      expect(await index.builtFor()).not.toBe('rules=1 tz=1999a');
    });
  });
}
