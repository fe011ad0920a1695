import { afterEach, describe, expect, it } from 'vitest';
import { compactEntryEmbed, dailyPostEmbed } from '../../src/replies/daily-embeds.ts';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { deliveryNonce } from '../../src/schedule/poster.ts';
import { DailyScheduler, type SchedulerOptions } from '../../src/schedule/scheduler.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import type { Subscription } from '../../src/schedule/subscription.ts';
import { captureLogger, entryFor, FixedLookup, makeSubscription, RecordingPoster, tempStore } from './helpers.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const render = (entry: ReturnType<typeof entryFor>) => entryEmbed(entry, { siteUrl: 'https://wotd.site' });

async function setup(subscriptions: Subscription[], url?: string) {
  const storeUrl = url ?? tempStore().url;
  const store = await SubscriptionStore.open(storeUrl);
  cleanups.push(() => store.close());
  for (const subscription of subscriptions) await store.upsert(subscription.guildId, subscription.channelId, 100, () => subscription);
  return { store, storeUrl };
}

function scheduler(store: SubscriptionStore, overrides: Partial<SchedulerOptions> = {}) {
  const lookup = new FixedLookup();
  const poster = new RecordingPoster();
  const { logger, lines } = captureLogger();
  const instance = new DailyScheduler({ store, lookup, poster, render, logger, concurrency: 4, ...overrides });
  return { scheduler: instance, lookup: (overrides.lookup as FixedLookup | undefined) ?? lookup, poster: (overrides.poster as RecordingPoster | undefined) ?? poster, lines };
}

const at = (iso: string) => new Date(iso);

describe('DailyScheduler', () => {
  it('posts at the local time with the day\'s embed, the role mention and the day\'s nonce, once', async () => {
    const { store } = await setup([
      makeSubscription({ channelId: 'c1', roleId: 'r9' }),
      makeSubscription({ channelId: 'c2', time: '18:30', timeZone: 'Europe/London' }),
    ]);
    const { scheduler: s, poster, lookup } = scheduler(store);

    expect((await s.tick(at('2026-06-15T08:59:00Z'))).total).toBe(0);
    const report = await s.tick(at('2026-06-15T09:00:00Z'));
    expect(report).toMatchObject({ total: 1, sent: 1 });
    expect(poster.messages).toEqual([
      {
        id: '1',
        channelId: 'c1',
        channelName: 'words',
        content: '<@&r9>',
        day: '2026-06-15',
        embeds: [render(entryFor('2026-06-15'))],
        mentionRoleId: 'r9',
        nonce: deliveryNonce('c1', '2026-06-15'),
      },
    ]);
    expect(lookup.calls).toEqual([{ date: '2026-06-15', options: { priority: 'scheduled' } }]);
    expect((await s.tick(at('2026-06-15T09:01:00Z'))).total).toBe(0);

    await s.tick(at('2026-06-15T17:30:00Z'));
    expect(poster.messages.map((m) => m.channelId)).toEqual(['c1', 'c2']);
    expect(poster.messages[1]?.content).toBeUndefined();
    expect((await store.getDelivery('c2', '2026-06-15'))?.state).toBe('sent');
    // The entry is fetched once per service day, however many channels share it.
    expect(lookup.calls).toHaveLength(1);
  });

  it('posts each subscription in its style, rendering each style once per day; an old record without one is full', async () => {
    const { store } = await setup([
      makeSubscription({ channelId: 'c1', style: 'compact' }),
      makeSubscription({ channelId: 'c2', style: 'compact' }),
      makeSubscription({ channelId: 'c3' }),
    ]);
    const rendered: string[] = [];
    const { scheduler: s, poster } = scheduler(store, {
      render: (entry, style) => {
        rendered.push(style);
        return dailyPostEmbed(entry, style, { siteUrl: 'https://wotd.site' });
      },
    });
    expect(await s.tick(at('2026-06-15T09:00:00Z'))).toMatchObject({ sent: 3 });
    expect(rendered.sort()).toEqual(['compact', 'full']);
    const byChannel = new Map(poster.messages.map((m) => [m.channelId, m.embeds[0]]));
    expect(byChannel.get('c1')).toEqual(compactEntryEmbed(entryFor('2026-06-15'), { siteUrl: 'https://wotd.site' }));
    expect(byChannel.get('c2')).toEqual(byChannel.get('c1'));
    expect(byChannel.get('c3')).toEqual(render(entryFor('2026-06-15')));
  });

  it('fetches the day\'s entry once for all due subscriptions and retries with backoff until it is published', async () => {
    const subs = Array.from({ length: 30 }, (_, i) => makeSubscription({ channelId: `c${i}` }));
    const { store } = await setup(subs);
    const lookup = new FixedLookup();
    lookup.unpublished.add('2026-06-15');
    const { scheduler: s, poster } = scheduler(store, { lookup });

    expect(await s.tick(at('2026-06-15T09:00:00Z'))).toMatchObject({ total: 0, waitingForEntry: 30 });
    expect(lookup.calls).toHaveLength(1);
    await s.tick(at('2026-06-15T09:00:30Z'));
    expect(lookup.calls).toHaveLength(1);
    await s.tick(at('2026-06-15T09:01:00Z'));
    expect(lookup.calls).toHaveLength(2);
    await s.tick(at('2026-06-15T09:02:00Z'));
    expect(lookup.calls).toHaveLength(2);
    lookup.unpublished.clear();
    expect(await s.tick(at('2026-06-15T09:03:00Z'))).toMatchObject({ sent: 30, waitingForEntry: 0 });
    expect(lookup.calls).toHaveLength(3);
    expect(lookup.calls.every((call) => call.options?.priority === 'scheduled')).toBe(true);
    expect(poster.messages).toHaveLength(30);
  });

  it('Nuuk\'s spring night: the post pushed past midnight by the 23:00 gap goes out, then the Sunday\'s own, one per tick', async () => {
    const { store } = await setup([
      makeSubscription({ channelId: 'c1', time: '23:30', timeZone: 'America/Nuuk' }),
      makeSubscription({ channelId: 'c2', time: '23:30', timeZone: 'America/Nuuk' }),
    ]);
    const { scheduler: s, poster } = scheduler(store);
    // 23:00 local on 2025-03-29 (−02) is 01:00 UTC, when the clocks jump to 00:00 on the 30th (−01).
    expect((await s.tick(at('2025-03-30T00:59:00Z'))).total).toBe(0);
    expect(await s.tick(at('2025-03-30T01:00:00Z'))).toMatchObject({ total: 2, sent: 2 });
    expect((await s.tick(at('2025-03-30T01:01:00Z'))).total).toBe(0);
    expect(await s.tick(at('2025-03-31T00:30:00Z'))).toMatchObject({ total: 2, sent: 2 });
    expect(poster.messages.map((m) => `${m.channelId} ${m.nonce}`).sort()).toEqual([
      `c1 ${deliveryNonce('c1', '2025-03-30')}`,
      `c1 ${deliveryNonce('c1', '2025-03-31')}`,
      `c2 ${deliveryNonce('c2', '2025-03-30')}`,
      `c2 ${deliveryNonce('c2', '2025-03-31')}`,
    ].sort());
  });

  it('after downtime over both Nuuk posts, the tick that finds them owed sends the earlier, the next tick the later', async () => {
    const { store } = await setup([makeSubscription({ channelId: 'c1', time: '23:30', timeZone: 'America/Nuuk' })]);
    const { scheduler: s, poster } = scheduler(store);
    expect(await s.tick(at('2025-03-31T00:45:00Z'))).toMatchObject({ total: 1, sent: 1 });
    expect(await s.tick(at('2025-03-31T00:46:00Z'))).toMatchObject({ total: 1, sent: 1 });
    expect((await s.tick(at('2025-03-31T00:47:00Z'))).total).toBe(0);
    expect(poster.messages.map((m) => m.nonce)).toEqual([deliveryNonce('c1', '2025-03-30'), deliveryNonce('c1', '2025-03-31')]);
  });

  it('catches up after a restart the same day, exactly once, from the same store file', async () => {
    const { store, storeUrl } = await setup([makeSubscription({ time: '09:00', timeZone: 'America/New_York' })]);
    const poster = new RecordingPoster();
    // The bot was down at 09:00 New York (13:00Z) and comes back at 15:20Z.
    const first = scheduler(store, { poster });
    expect((await first.scheduler.tick(at('2026-06-15T12:59:00Z'))).total).toBe(0);
    await store.close();

    const reopened = await SubscriptionStore.open(storeUrl);
    cleanups.push(() => reopened.close());
    const second = scheduler(reopened, { poster });
    expect(await second.scheduler.tick(at('2026-06-15T15:20:00Z'))).toMatchObject({ sent: 1 });
    expect(await second.scheduler.tick(at('2026-06-15T15:21:00Z'))).toMatchObject({ total: 0 });
    await reopened.close();

    const third = await SubscriptionStore.open(storeUrl);
    cleanups.push(() => third.close());
    expect(await scheduler(third, { poster }).scheduler.tick(at('2026-06-15T20:00:00Z'))).toMatchObject({ total: 0 });
    expect(poster.messages).toHaveLength(1);
    expect(poster.messages[0]?.embeds[0]?.footer?.text).toContain('2026-06-15');
  });

  it('posts exactly once when the process dies between the send and the record', async () => {
    const { store, storeUrl } = await setup([makeSubscription()]);
    const poster = new RecordingPoster();
    const crashing = scheduler(store, {
      poster,
      hooks: {
        afterSend() {
          throw new Error('simulated crash after send');
        },
      },
    });
    await crashing.scheduler.tick(at('2026-06-15T09:00:00Z'));
    expect((await store.getDelivery('c1', '2026-06-15'))?.state).toBe('sending');
    await store.close();

    const reopened = await SubscriptionStore.open(storeUrl);
    cleanups.push(() => reopened.close());
    const restarted = scheduler(reopened, { poster });
    // Hours later Discord has forgotten the nonce; the restart looks in the channel first and finds the post.
    poster.nonceWindowPassed = true;
    expect(await restarted.scheduler.tick(at('2026-06-15T14:05:00Z'))).toMatchObject({ sent: 1 });
    expect(poster.lookups).toEqual(['c1']);
    expect(poster.attempts).toHaveLength(1);
    expect(poster.messages).toHaveLength(1);
    expect(await reopened.getDelivery('c1', '2026-06-15')).toMatchObject({ state: 'sent', messageId: '1', attempts: 2 });
  });

  it('a refused post marks the subscription failing, retries next day, and disables it after 3 days in a row', async () => {
    const { store } = await setup([makeSubscription()]);
    const poster = new RecordingPoster();
    poster.faults.set('c1', 'forbidden');
    const { scheduler: s } = scheduler(store, { poster });

    await s.tick(at('2026-06-15T09:00:00Z'));
    expect((await store.get('c1'))?.status).toEqual({ state: 'failing', reason: { kind: 'missingPermissions' }, failedDays: 1, lastFailedDay: '2026-06-15' });
    await s.tick(at('2026-06-15T10:00:00Z'));
    expect(poster.attempts).toHaveLength(1);

    await s.tick(at('2026-06-16T09:00:00Z'));
    expect((await store.get('c1'))?.status).toMatchObject({ state: 'failing', failedDays: 2 });
    await s.tick(at('2026-06-17T09:00:00Z'));
    expect((await store.get('c1'))?.status).toMatchObject({ state: 'disabled', reason: { kind: 'missingPermissions' }, failedDays: 3 });
    await s.tick(at('2026-06-18T09:00:00Z'));
    expect(poster.attempts).toHaveLength(3);
    // Nothing is deleted: the subscription is still there to show and re-enable.
    expect(await store.listGuild('g1')).toHaveLength(1);
  });

  it('one success in between resets the failing count', async () => {
    const { store } = await setup([makeSubscription()]);
    const poster = new RecordingPoster();
    poster.faults.set('c1', 'forbidden');
    const { scheduler: s } = scheduler(store, { poster });
    await s.tick(at('2026-06-15T09:00:00Z'));
    await s.tick(at('2026-06-16T09:00:00Z'));
    poster.faults.clear();
    await s.tick(at('2026-06-17T09:00:00Z'));
    expect((await store.get('c1'))?.status).toEqual({ state: 'active' });
  });

  it('an unknown channel disables the subscription at once', async () => {
    const { store } = await setup([makeSubscription()]);
    const poster = new RecordingPoster();
    poster.faults.set('c1', 'gone');
    const { scheduler: s } = scheduler(store, { poster });
    await s.tick(at('2026-06-15T09:00:00Z'));
    expect((await store.get('c1'))?.status).toMatchObject({ state: 'disabled', reason: { kind: 'channelGone' }, channelGone: true });
  });

  it('transient failures are retried the same day with backoff, with the same nonce', async () => {
    const { store } = await setup([makeSubscription()]);
    const poster = new RecordingPoster();
    poster.faults.set('c1', 'transient');
    const { scheduler: s } = scheduler(store, { poster });
    expect(await s.tick(at('2026-06-15T09:00:00Z'))).toMatchObject({ retrying: 1 });
    expect((await store.get('c1'))?.status.state).toBe('active');
    await s.tick(at('2026-06-15T09:00:30Z'));
    expect(poster.attempts).toHaveLength(1);
    await s.tick(at('2026-06-15T09:01:00Z'));
    expect(poster.attempts).toHaveLength(2);
    poster.faults.clear();
    await s.tick(at('2026-06-15T09:02:00Z'));
    expect(poster.attempts).toHaveLength(2);
    expect(await s.tick(at('2026-06-15T09:03:00Z'))).toMatchObject({ sent: 1 });
    expect(new Set(poster.attempts.map((a) => a.nonce)).size).toBe(1);
    expect(await store.getDelivery('c1', '2026-06-15')).toMatchObject({ state: 'sent', attempts: 3 });
  });

  it('bounds concurrency and logs progress (sent, failed, remaining) on a large fan-out', async () => {
    const subs = Array.from({ length: 120 }, (_, i) => makeSubscription({ guildId: `g${i % 7}`, channelId: `c${i}` }));
    const { store } = await setup(subs);
    const poster = new RecordingPoster();
    poster.faults.set('c5', 'forbidden');
    const { scheduler: s, lines } = scheduler(store, { poster, concurrency: 6, progressEvery: 50 });
    expect(await s.tick(at('2026-06-15T09:00:00Z'))).toMatchObject({ total: 120, sent: 119, failed: 1 });
    expect(poster.maxInFlight).toBeLessThanOrEqual(6);
    expect(poster.maxInFlight).toBeGreaterThan(1);
    const progress = lines.filter((line) => line.msg === 'daily fan-out progress');
    expect(progress.map((line) => line.remaining)).toEqual([70, 20]);
    expect(progress[0]).toMatchObject({ sent: expect.any(Number), failed: expect.any(Number) });
    expect(lines.find((line) => line.msg === 'daily fan-out finished')).toMatchObject({ total: 120, sent: 119, failed: 1, remaining: 0 });
  });

  it('leaves alone a channel unsubscribed or disabled after the list was read', async () => {
    const { store } = await setup([makeSubscription(), makeSubscription({ channelId: 'c2' })]);
    const poster = new RecordingPoster();
    const { scheduler: s } = scheduler(store, { poster });
    await store.remove('g1', 'c2');
    await store.update('c1', (sub) => ({ ...sub, status: { state: 'disabled', reason: { kind: 'channelDeleted' }, at: 'x' } }));
    expect(await s.tick(at('2026-06-15T09:00:00Z'))).toMatchObject({ total: 0 });
    expect(poster.attempts).toHaveLength(0);
  });
});
