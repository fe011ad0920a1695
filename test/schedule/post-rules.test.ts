import { afterEach, describe, expect, it } from 'vitest';
import { entryEmbed } from '../../src/replies/embeds.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { captureLogger, FixedLookup, makeSubscription, RecordingPoster, tempStore } from './helpers.ts';
import { dueSlot, nextPostTime } from '../../src/schedule/due.ts';
import { daysText, parseDays, weekdayOf } from '../../src/schedule/post-rules.ts';
import { subscriptionSchema, type DeliveryRecord, type Subscription } from '../../src/schedule/subscription.ts';
import type { IsoDate } from '../../src/wotd/dates.ts';

function subscription(extra: Partial<Subscription> = {}): Subscription {
  return {
    guildId: 'g1',
    channelId: 'c1',
    channelName: 'words',
    time: '09:00',
    timeZone: 'Europe/Paris',
    roleId: null,
    createdBy: 'u1',
    createdAt: '2026-01-01T00:00:00.000Z',
    enabledAt: '2026-01-01T00:00:00.000Z',
    status: { state: 'active' },
    ...extra,
  };
}

/** Ticks every 10 minutes as the scheduler would, returning the local days that got a post. */
function postedDays(sub: Subscription | ((now: Date) => Subscription), from: string, to: string): IsoDate[] {
  const records = new Map<IsoDate, DeliveryRecord>();
  const days: IsoDate[] = [];
  for (let t = Date.parse(from); t <= Date.parse(to); t += 10 * 60_000) {
    const now = new Date(t);
    const current = typeof sub === 'function' ? sub(now) : sub;
    const slot = dueSlot(current, (day) => records.get(day) ?? null, now);
    if (!slot) continue;
    records.set(slot.serviceDay, { channelId: 'c1', day: slot.serviceDay, state: 'sent', nonce: 'n', attempts: 1, updatedAt: now.toISOString() });
    days.push(slot.localDay);
  }
  return days;
}

describe('the days choice', () => {
  it('reads every, weekdays, weekends and lists of day names, and nothing else', () => {
    expect(parseDays('every')).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(parseDays('Weekdays')).toEqual([1, 2, 3, 4, 5]);
    expect(parseDays('weekends')).toEqual([6, 7]);
    expect(parseDays('mon,wed,fri')).toEqual([1, 3, 5]);
    expect(parseDays('friday, Mon tues')).toEqual([1, 2, 5]);
    for (const bad of ['', 'mo', 'funday', 'mon;wed', 'mon,mon,x', '1,2', 'monday2']) expect(parseDays(bad)).toBeNull();
    expect(daysText([1, 3, 5])).toBe('mon,wed,fri');
    expect(daysText([1, 2, 3, 4, 5])).toBe('weekdays');
    expect(daysText(undefined)).toBe('every');
    expect(weekdayOf('2026-11-30')).toBe(1);
    expect(weekdayOf('2026-11-29')).toBe(7);
  });

  it('posts on weekdays only, and a weekend is not caught up on Monday', () => {
    // 2026-11-27 is a Friday.
    const days = postedDays(subscription({ days: [1, 2, 3, 4, 5] }), '2026-11-27T00:00:00Z', '2026-12-02T12:00:00Z');
    expect(days).toEqual(['2026-11-27', '2026-11-30', '2026-12-01', '2026-12-02']);
  });

  it('says the next post is on the next chosen day, across a DST change', () => {
    // Saturday 2026-03-28 in Paris; Sunday the clocks go forward. Next chosen day: Wednesday.
    const sub = subscription({ days: [3] });
    const next = nextPostTime(sub, () => null, new Date('2026-03-28T12:00:00Z'));
    expect(next?.toISOString()).toBe('2026-04-01T07:00:00.000Z');
  });

  it('reads a stored subscription without the new fields as every day, unpaused', () => {
    const old = subscriptionSchema.parse(JSON.parse(JSON.stringify(subscription())));
    expect(old.days).toBeUndefined();
    expect(postedDays(old, '2026-11-27T00:00:00Z', '2026-11-30T23:50:00Z')).toEqual(['2026-11-27', '2026-11-28', '2026-11-29', '2026-11-30']);
    expect(() => subscriptionSchema.parse({ ...subscription(), days: [0] })).toThrow();
  });
});

describe('pause, resume and skip', () => {
  it('posts nothing while paused until a date, and posts again on that date', () => {
    const sub = subscription({ pause: { at: '2026-11-27T10:00:00Z', until: '2026-11-30' } });
    expect(postedDays(sub, '2026-11-27T10:00:00Z', '2026-12-01T23:50:00Z')).toEqual(['2026-11-30', '2026-12-01']);
    expect(nextPostTime(sub, () => null, new Date('2026-11-28T12:00:00Z'))?.toISOString()).toBe('2026-11-30T08:00:00.000Z');
  });

  it('has no next post while paused until resumed', () => {
    const sub = subscription({ pause: { at: '2026-11-27T10:00:00Z' } });
    expect(nextPostTime(sub, () => null, new Date('2026-11-28T12:00:00Z'))).toBeNull();
    expect(postedDays(sub, '2026-11-27T10:00:00Z', '2026-12-01T23:50:00Z')).toEqual([]);
  });

  it('does not catch up the paused days on resume, even a post time passed the same day', () => {
    // Paused Friday evening, resumed Monday 12:00 Paris: Monday's 09:00 post fell inside the pause.
    const resumeAt = Date.parse('2026-11-30T11:00:00Z');
    const paused = subscription({ pause: { at: '2026-11-27T18:00:00Z' } });
    const resumed = subscription({ pause: { at: '2026-11-27T18:00:00Z', endedAt: '2026-11-30T11:00:00Z' } });
    const days = postedDays((now) => (now.getTime() < resumeAt ? paused : resumed), '2026-11-27T18:00:00Z', '2026-12-01T23:50:00Z');
    expect(days).toEqual(['2026-12-01']);
  });

  it('skips one post, and only that one', () => {
    const sub = subscription({ skipDay: '2026-11-28' });
    expect(postedDays(sub, '2026-11-27T23:00:00Z', '2026-11-29T23:50:00Z')).toEqual(['2026-11-29']);
    const sentToday = (day: IsoDate): DeliveryRecord | null =>
      day === '2026-11-27' ? { channelId: 'c1', day, state: 'sent', nonce: 'n', attempts: 1, updatedAt: '2026-11-27T08:00:00.000Z' } : null;
    expect(nextPostTime(sub, sentToday, new Date('2026-11-27T12:00:00Z'))?.toISOString()).toBe('2026-11-29T08:00:00.000Z');
  });
});

describe('the scheduler follows the rules', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('posts weekday channels on weekdays only, nothing to a paused or skipping channel, and catches none of it up', async () => {
    const temp = tempStore();
    cleanups.push(temp.cleanup);
    const store = await SubscriptionStore.open(temp.url);
    cleanups.push(() => store.close());
    const subscriptions = [
      makeSubscription({ channelId: 'every' }),
      makeSubscription({ channelId: 'weekdays', days: [1, 2, 3, 4, 5] }),
      makeSubscription({ channelId: 'paused', pause: { at: '2026-06-01T00:00:00Z', until: '2026-06-22' } }),
      makeSubscription({ channelId: 'skipping', skipDay: '2026-06-20' }),
    ];
    for (const sub of subscriptions) await store.upsert(sub.guildId, sub.channelId, 100, () => sub);
    const poster = new RecordingPoster();
    const scheduler = new DailyScheduler({
      store,
      lookup: new FixedLookup(),
      poster,
      render: (entry) => entryEmbed(entry, { siteUrl: 'https://wotd.site' }),
      logger: captureLogger().logger,
      concurrency: 2,
    });
    // Saturday 20th, Sunday 21st, Monday 22nd June 2026, each at 09:00 and again at 23:00 (a catch-up tick).
    for (const day of ['2026-06-20', '2026-06-21', '2026-06-22']) {
      await scheduler.tick(new Date(`${day}T09:00:00Z`));
      await scheduler.tick(new Date(`${day}T23:00:00Z`));
    }
    const posted = poster.messages.map((message) => `${message.channelId} ${message.embeds[0]?.title ?? ''}`);
    expect(posted.sort()).toEqual(
      [
        'every word-2026-06-20',
        'every word-2026-06-21',
        'every word-2026-06-22',
        'paused word-2026-06-22',
        'skipping word-2026-06-21',
        'skipping word-2026-06-22',
        'weekdays word-2026-06-22',
      ].sort(),
    );
  });
});
