import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { DM_NOTICES_REFRESH_MS } from '../../src/schedule/subscription-store/dm-notice-list.ts';
import { parseSchedule } from '../../src/replies/schedule-options.ts';
import { createSubscriptionService, suggestTimeZones } from '../../src/schedule/subscription-service.ts';
import { postStyleOf, type Subscription } from '../../src/schedule/subscription.ts';
import type { StoreLocation } from '../../src/store/open-store.ts';
import { sqliteBackend, storeBackends } from '../support/store-backends.ts';
import { makeSubscription } from './helpers.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open(where: StoreLocation): Promise<SubscriptionStore> {
  const store = await SubscriptionStore.open(where);
  cleanups.push(() => store.close());
  return store;
}

// The same tests on every store the bot runs on.
for (const backend of storeBackends) {
  const fresh = () => backend.fresh();

  backend.describe(`SubscriptionStore on ${backend.name}`, () => {
    it('keeps subscriptions and delivery records across a reopen', async () => {
      const url = await fresh();
      const first = await open(url);
      await first.upsert('g1', 'c1', 5, () => makeSubscription());
      await first.putDelivery({ channelId: 'c1', day: '2026-06-15', state: 'sent', nonce: 'abc', attempts: 1, messageId: 'm1', updatedAt: '2026-06-15T09:00:00.000Z' });
      await first.close();

      const second = await open(url);
      expect(await second.listAll()).toEqual([makeSubscription()]);
      expect(await second.listGuild('g1')).toEqual([makeSubscription()]);
      expect(await second.getDelivery('c1', '2026-06-15')).toMatchObject({ state: 'sent', messageId: 'm1' });
      expect(await second.getDeliveries(['c1', 'c2'], '2026-06-15')).toMatchObject([{ state: 'sent' }, null]);
    });

    it("keeps a forum subscription's tag, a pinned one's setting and a pin's failure across a reopen", async () => {
      const url = await fresh();
      const first = await open(url);
      const forum = makeSubscription({ channelId: 'c2', forum: true, forumTag: { id: '123456789012345678', name: 'Words' } });
      await first.upsert('g1', 'c1', 5, () => makeSubscription({ pin: true }));
      await first.upsert('g1', 'c2', 5, () => forum);
      const pinFailures = [{ what: 'pin' as const, reason: { kind: 'missingPermission' as const, permission: 'PinMessages', channelName: 'words' } }];
      await first.putDelivery({ channelId: 'c1', day: '2026-06-15', state: 'sent', nonce: 'abc', attempts: 1, messageId: 'm1', pinFailures, updatedAt: '2026-06-15T09:00:00.000Z' });
      await first.close();
      const raw = await openStore<unknown>(url, 'deliveries');
      cleanups.push(() => raw.disconnect());
      // A pin failure that cannot be read (an unreleased version's sentence) is left out; the day stays a sent one.
      const unreadable = { channelId: 'c1', day: '2026-06-16', state: 'sent', nonce: 'abd', attempts: 1, messageId: 'm2', pinError: 'Missing Pin Messages', pinFailures: 'Missing Pin Messages', updatedAt: '2026-06-16T09:00:00.000Z' };
      await raw.set('c1:2026-06-16', unreadable);
      const second = await open(url);
      expect(await second.get('c1')).toEqual(makeSubscription({ pin: true }));
      expect(await second.get('c2')).toEqual(forum);
      expect(await second.getDelivery('c1', '2026-06-15')).toMatchObject({ pinFailures });
      const kept = await second.getDelivery('c1', '2026-06-16');
      expect(kept).toMatchObject({ state: 'sent', messageId: 'm2' });
      expect(kept && 'pinFailures' in kept ? kept.pinFailures : 'damaged').toBeUndefined();
    });

    it('lists from its own namespace and index, untouched by other data in the same file', async () => {
      const url = await fresh();
      const store = await open(url);
      const cache = await openStore<unknown>(url, 'wotd-cache');
      cleanups.push(() => cache.disconnect());
      await Promise.all(Array.from({ length: 50 }, (_, i) => cache.set(`sub:x${i}`, { junk: i })));
      await store.upsert('g1', 'c1', 5, () => makeSubscription());
      expect((await store.listAll()).map((s) => s.channelId)).toEqual(['c1']);
    });

    it('loses nothing under concurrent changes: many servers at once, and one server racing its limit', async () => {
      const store = await open(await fresh());
      const writes = [];
      for (let g = 0; g < 20; g += 1) {
        for (let c = 0; c < 4; c += 1) {
          writes.push(store.upsert(`g${g}`, `g${g}c${c}`, 5, () => makeSubscription({ guildId: `g${g}`, channelId: `g${g}c${c}` })));
        }
      }
      const racing = Array.from({ length: 12 }, (_, c) =>
        store.upsert('busy', `busy${c}`, 5, () => makeSubscription({ guildId: 'busy', channelId: `busy${c}` })),
      );
      await Promise.all(writes);
      const results = await Promise.all(racing);
      expect(results.filter((r) => r.kind === 'created')).toHaveLength(5);
      expect(results.filter((r) => r.kind === 'limit_reached')).toHaveLength(7);
      expect(await store.listAll()).toHaveLength(85);
      for (let g = 0; g < 20; g += 1) expect(await store.listGuild(`g${g}`)).toHaveLength(4);
      expect(await store.listGuild('busy')).toHaveLength(5);

      // Status changes racing a re-subscribe: every change is applied to the latest record.
      await Promise.all([
        store.update('g0c0', (s) => ({ ...s, channelName: 'renamed' })),
        store.update('g0c0', (s) => ({ ...s, roleId: 'r1' })),
        store.upsert('g0', 'g0c0', 5, (existing) => ({ ...(existing ?? makeSubscription()), time: '10:00' })),
      ]);
      expect(await store.get('g0c0')).toMatchObject({ channelName: 'renamed', roleId: 'r1', time: '10:00' });
    });

    it('puts many subscriptions at once, listed like upserted ones, beside them and twice without doubles', async () => {
      const store = await open(await fresh());
      await store.upsert('g1', 'g1c0', 5, () => makeSubscription({ guildId: 'g1', channelId: 'g1c0' }));
      const many = Array.from({ length: 300 }, (_, i) => makeSubscription({ guildId: `g${i % 3}`, channelId: `g${i % 3}c${Math.floor(i / 3)}`, time: '07:00' }));
      await store.putMany(many);
      await store.putMany(many.slice(0, 10));
      const all = await store.listAll();
      expect(all).toHaveLength(300);
      expect(new Set(all.map((s) => s.channelId)).size).toBe(300);
      expect(await store.get('g1c0')).toMatchObject({ time: '07:00' });
      for (const guild of ['g0', 'g1', 'g2']) expect(await store.listGuild(guild)).toHaveLength(100);
      expect(await store.remove('g2', 'g2c5')).toMatchObject({ channelId: 'g2c5' });
      expect(await store.listAll()).toHaveLength(299);
    });

    it('pages through every subscription, a few hundred at a time, as listAll lists them', async () => {
      const store = await open(await fresh());
      await store.putMany(Array.from({ length: 1_200 }, (_, i) => makeSubscription({ guildId: `g${i % 4}`, channelId: `c${i}` })));
      const pages: string[][] = [];
      for await (const page of store.pages()) pages.push(page.map((s) => s.channelId));
      expect(pages.length).toBeGreaterThan(1);
      for (const page of pages) expect(page.length).toBeLessThanOrEqual(500);
      expect(pages.flat().sort()).toEqual((await store.listAll()).map((s) => s.channelId).sort());
      expect(new Set(pages.flat()).size).toBe(1_200);
    });

    it('removes a subscription from every index, and disables a whole server at once', async () => {
      const store = await open(await fresh());
      await store.upsert('g1', 'c1', 5, () => makeSubscription());
      await store.upsert('g1', 'c2', 5, () => makeSubscription({ channelId: 'c2' }));
      expect((await store.remove('g1', 'c1'))?.channelId).toBe('c1');
      expect(await store.remove('g1', 'c1')).toBeNull();
      expect((await store.listAll()).map((s) => s.channelId)).toEqual(['c2']);
      const changed = await store.updateGuild('g1', (s) => ({ ...s, status: { state: 'disabled', reason: { kind: 'channelGone' }, at: 'now' } }));
      expect(changed).toHaveLength(1);
      expect((await store.get('c2'))?.status.state).toBe('disabled');
    });
  });

  backend.describe(`records written by earlier versions, on ${backend.name}`, () => {
    it('loads a subscription stored before styles, threads, publishing and DM subscriptions existed, with their defaults', async () => {
      const url = await fresh();
      const store = await open(url);
      // Exactly what the previous version wrote (makeSubscription's fields): no style or any later field.
      const old = makeSubscription();
      expect(Object.keys(old)).not.toContain('style');
      expect(await store.restoreSubscription('sub:c1', old)).toBe('restored');
      const loaded = await store.get('c1');
      expect(loaded).toEqual(old);
      expect(loaded && postStyleOf(loaded)).toBe('full');
      expect((await store.listGuild('g1')).map((item) => item.channelId)).toEqual(['c1']);
    });
  });

  backend.describe(`the "your DMs were switched off" notice, on ${backend.name}`, () => {
    const dmRequest = (userId: string) => ({ userId, time: '09:00', timeZone: 'UTC' });
    const switchOff = (at: Date) => (current: Subscription): Subscription => ({
      ...current,
      status: { state: 'disabled', reason: { kind: 'dmsClosed' }, at: at.toISOString() },
    });

    it('is owed once per switch-off, and a store reads the list of members owed one at most every 10 s, not per command', async () => {
      const url = await fresh();
      const clock = { now: new Date('2026-06-15T07:00:00Z') };
      // The bot's store, and another process's (the daily posts of another shard) on the same file.
      const bot = await SubscriptionStore.open(url, undefined, { now: () => clock.now });
      const other = await SubscriptionStore.open(url, undefined, { now: () => clock.now });
      cleanups.push(() => bot.close(), () => other.close());
      const commands = createSubscriptionService({ store: bot, limit: 5, now: () => clock.now });
      const posts = createSubscriptionService({ store: other, limit: 5, now: () => clock.now });
      await posts.subscribeDm(dmRequest('u1'));
      await posts.subscribeDm(dmRequest('u2'));
      expect(await commands.takeDmNotice('u1')).toBeNull();

      expect(commands.mayOweDmNoticeNow?.('u1')).toBe(false);

      await other.update('dm:u1', switchOff(clock.now));
      // The bot's copy of the list is still the one it read: no store read for this command.
      expect(commands.mayOweDmNoticeNow?.('u1')).toBe(false);
      expect(await commands.takeDmNotice('u1')).toBeNull();
      clock.now = new Date(clock.now.getTime() + DM_NOTICES_REFRESH_MS);
      // A copy this old is read again before anything is known.
      expect(bot.mayOweDmNoticeNow('u1')).toBeUndefined();
      expect(commands.mayOweDmNoticeNow?.('u1')).toBe(true);
      expect(await commands.takeDmNotice('u2')).toBeNull();
      expect(commands.mayOweDmNoticeNow?.('u1')).toBe(true);
      expect(await commands.takeDmNotice('u1')).toMatchObject({ channelId: 'dm:u1', status: { state: 'disabled' } });
      expect(await commands.takeDmNotice('u1')).toBeNull();
      // Told, the member is off the list for every process.
      clock.now = new Date(clock.now.getTime() + DM_NOTICES_REFRESH_MS);
      expect(await other.mayOweDmNotice('u1')).toBe(false);

      // A store's own switch-offs count at once, and a later switch-off is owed again.
      clock.now = new Date('2026-06-16T07:00:00Z');
      await bot.update('dm:u1', switchOff(clock.now));
      expect(await bot.mayOweDmNotice('u1')).toBe(true);
      expect(await commands.takeDmNotice('u1')).toMatchObject({ channelId: 'dm:u1' });
      expect(await commands.takeDmNotice('u1')).toBeNull();
    });

    it('builds the list once for a store written before it existed, and drops erased members from it', async () => {
      const url = await fresh();
      const first = await open(url);
      const service = createSubscriptionService({ store: first, limit: 5 });
      await service.subscribeDm(dmRequest('u1'));
      await service.subscribeDm(dmRequest('u2'));
      await first.update('dm:u1', switchOff(new Date()));
      await first.update('dm:u2', switchOff(new Date()));
      await first.close();
      const raw = await openStore<unknown>(url, 'subscriptions');
      cleanups.push(() => raw.disconnect());
      expect(await raw.get('dm-notices')).toEqual(['u1', 'u2']);
      await raw.delete('dm-notices');

      const second = await open(url);
      const again = createSubscriptionService({ store: second, limit: 5 });
      expect(await again.takeDmNotice('u1')).toMatchObject({ channelId: 'dm:u1' });
      expect(await raw.get('dm-notices')).toEqual(['u2']);
      await second.eraseGuild('user:u2');
      expect(await raw.get('dm-notices')).toEqual([]);
      expect(await again.takeDmNotice('u2')).toBeNull();
      // Named on the list without a subscription (left by a crash between the two writes): erasure forgets them too.
      await raw.set('dm-notices', ['u3']);
      await second.eraseGuild('user:u3');
      expect(await raw.get('dm-notices')).toEqual([]);
    });
  });

}

describe('subscription service', () => {
  const fresh = () => sqliteBackend.fresh();

  it('re-subscribing updates the settings, keeps who created it and re-enables it', async () => {
    const store = await open(await fresh());
    let now = new Date('2026-06-15T07:00:00Z');
    const service = createSubscriptionService({ store, limit: 2, now: () => now });
    const request = { guildId: 'g1', channelId: 'c1', channelName: 'words', time: '09:00', timeZone: 'UTC', roleId: null, userId: 'u1' };
    expect((await service.subscribe(request)).kind).toBe('created');
    await store.update('c1', (s) => ({ ...s, status: { state: 'disabled', reason: { kind: 'missingAccess' }, failedDays: 3, at: now.toISOString() } }));
    now = new Date('2026-06-15T08:00:00Z');
    const again = await service.subscribe({ ...request, time: '18:30', timeZone: 'Europe/London', roleId: 'r1', userId: 'u2' });
    expect(again).toMatchObject({ kind: 'updated', subscription: { time: '18:30', timeZone: 'Europe/London', roleId: 'r1', createdBy: 'u1', status: { state: 'active' } } });
    const [overview] = await service.list('g1');
    expect(overview?.nextPostAt?.toISOString()).toBe('2026-06-15T17:30:00.000Z');
  });

  it('refuses a subscription past the per-server limit but still updates existing ones', async () => {
    const store = await open(await fresh());
    const service = createSubscriptionService({ store, limit: 1 });
    const request = { guildId: 'g1', channelId: 'c1', channelName: 'words', time: '09:00', timeZone: 'UTC', roleId: null, userId: 'u1' };
    await service.subscribe(request);
    expect(await service.subscribe({ ...request, channelId: 'c2' })).toEqual({ kind: 'limit_reached', limit: 1, count: 1 });
    expect((await service.subscribe({ ...request, time: '10:00' })).kind).toBe('updated');
  });

  it('does not count a subscription whose channel is gone toward the limit, and still lists it', async () => {
    const store = await open(await fresh());
    const service = createSubscriptionService({ store, limit: 1, now: () => new Date('2026-06-15T07:00:00Z') });
    const request = { guildId: 'g1', channelId: 'c1', channelName: 'words', time: '09:00', timeZone: 'UTC', roleId: null, userId: 'u1' };
    await service.subscribe(request);
    await store.update('c1', (s) => ({ ...s, status: { state: 'disabled', reason: { kind: 'missingAccess' }, failedDays: 3, at: 'x' } }));
    expect((await service.subscribe({ ...request, channelId: 'c2' })).kind).toBe('limit_reached');
    await store.update('c1', (s) => ({ ...s, status: { state: 'disabled', reason: { kind: 'channelDeleted' }, at: 'x', channelGone: true } }));
    expect((await service.subscribe({ ...request, channelId: 'c2' })).kind).toBe('created');
    expect((await service.list('g1')).map((item) => [item.subscription.channelId, item.nextPostAt === null])).toEqual([
      ['c1', true],
      ['c2', false],
    ]);
  });

  it('validates times and zones, and suggests zones', () => {
    expect(parseSchedule(null, null)).toEqual({ ok: true, time: '09:00', timeZone: 'UTC', zoneNote: '' });
    expect(parseSchedule('7:05', 'america/new_york')).toEqual({ ok: true, time: '07:05', timeZone: 'America/New_York', zoneNote: '' });
    expect(parseSchedule('25:00', 'UTC')).toMatchObject({ ok: false, message: expect.stringContaining('"25:00" is not a time of day') });
    expect(parseSchedule('09:00', 'Moon/Base')).toMatchObject({ ok: false, message: expect.stringContaining('"Moon/Base" is not a time zone') });
    expect(suggestTimeZones('lond', 25)).toContain('Europe/London');
    expect(suggestTimeZones('new york', 25)).toContain('America/New_York');
    expect(suggestTimeZones('', 25)[0]).toBe('UTC');
    expect(suggestTimeZones('e', 25)).toHaveLength(25);
  });
});
