import { describe, expect, it } from 'vitest';
import { deliverableSlots } from '../../src/schedule/due.ts';
import { dueAfterDelivery, nextDueAt, scheduleKey, settledDueAt } from '../../src/schedule/next-due.ts';
import { slotFor } from '../../src/schedule/due.ts';
import { makeSubscription } from './helpers.ts';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe('nextDueAt and the index instants, on the rules of due.ts', () => {
  it('is the next post instant strictly after the given one, every day', () => {
    const subscription = makeSubscription({ time: '09:00', timeZone: 'UTC' });
    expect(iso(nextDueAt(subscription, at('2026-06-15T08:59:00Z')))).toBe('2026-06-15T09:00:00.000Z');
    expect(iso(nextDueAt(subscription, at('2026-06-15T09:00:00Z')))).toBe('2026-06-16T09:00:00.000Z');
    expect(nextDueAt(makeSubscription({ status: { state: 'disabled', reason: { kind: 'timeout' }, at: '2026-06-01T00:00:00Z' } }), at('2026-06-15T00:00:00Z'))).toBeNull();
  });

  it('follows daylight saving: a time in the gap posts when it ends, a repeated time at its first occurrence', () => {
    const gap = makeSubscription({ time: '02:30', timeZone: 'America/New_York' });
    expect(iso(nextDueAt(gap, at('2026-03-07T12:00:00Z')))).toBe('2026-03-08T07:00:00.000Z');
    const twice = makeSubscription({ time: '01:30', timeZone: 'America/New_York' });
    expect(iso(nextDueAt(twice, at('2026-10-31T12:00:00Z')))).toBe('2026-11-01T05:30:00.000Z');
    expect(iso(nextDueAt(twice, at('2026-11-01T05:30:00Z')))).toBe('2026-11-02T06:30:00.000Z');
  });

  it('gives a day pushed past midnight by a gap and that next day its own instants (America/Nuuk), and a skipped day none (Pacific/Apia)', () => {
    const nuuk = makeSubscription({ time: '23:30', timeZone: 'America/Nuuk' });
    const pushed = slotFor(nuuk, '2023-03-25');
    // The 23:30 of the night the clocks jump from 22:00 to 23:00 local (Nuuk's 2023 change at 01:00 UTC).
    const first = nextDueAt(nuuk, pushed.postAt.getTime() - 60_000);
    const second = nextDueAt(nuuk, first ?? 0);
    expect(first).not.toBeNull();
    expect(second).toBeGreaterThan(first ?? 0);
    expect(deliverableSlots(nuuk, new Date(second ?? 0)).map((slot) => slot.serviceDay)).not.toContain(deliverableSlots(nuuk, new Date(first ?? 0))[0]?.serviceDay);
    const apia = makeSubscription({ time: '09:00', timeZone: 'Pacific/Apia' });
    // 2011-12-30 did not happen there: from the 29th's post the next is the 31st's.
    const from29 = slotFor(apia, '2011-12-29').postAt.getTime();
    expect(iso(nextDueAt(apia, from29))).toBe(slotFor(apia, '2011-12-31').postAt.toISOString());
  });

  it('every instant it gives is one at which due.ts delivers a new slot, in every zone, for a year of days', () => {
    for (const timeZone of ['Europe/London', 'America/New_York', 'Asia/Tehran', 'Australia/Lord_Howe', 'Pacific/Chatham', 'Antarctica/Troll']) {
      for (const time of ['00:30', '02:30', '23:30']) {
        const subscription = makeSubscription({ time, timeZone });
        let instant = at('2022-01-01T00:00:00Z');
        for (let day = 0; day < 400; day += 1) {
          const next = nextDueAt(subscription, instant);
          if (next === null) throw new Error('no next instant');
          expect(next).toBeGreaterThan(instant);
          const before = new Set(deliverableSlots(subscription, new Date(next - 1)).map((slot) => slot.localDay));
          expect(deliverableSlots(subscription, new Date(next)).some((slot) => !before.has(slot.localDay))).toBe(true);
          instant = next;
        }
      }
    }
  });

  it('settledDueAt counts a post time passed today as owed until the records say it went out, or when to retry', () => {
    const subscription = makeSubscription({ time: '09:00', timeZone: 'UTC' });
    const now = at('2026-06-15T12:00:00Z');
    expect(iso(settledDueAt(subscription, () => null, now))).toBe('2026-06-15T09:00:00.000Z');
    const sent = { channelId: 'c1', day: '2026-06-15', state: 'sent', nonce: 'n', attempts: 1, updatedAt: '2026-06-15T09:00:01Z' } as const;
    expect(iso(settledDueAt(subscription, () => sent, now))).toBe('2026-06-16T09:00:00.000Z');
    const retrying = { ...sent, state: 'retrying', nextAttemptAt: '2026-06-15T12:04:00.000Z' } as const;
    expect(iso(settledDueAt(subscription, () => retrying, now))).toBe('2026-06-15T12:04:00.000Z');
    expect(iso(dueAfterDelivery(subscription, slotFor(subscription, '2026-06-15'), '2026-06-15T09:02:00.000Z'))).toBe('2026-06-15T09:02:00.000Z');
  });

  it('keys subscriptions by what the rules read, and nothing that only says where to post', () => {
    const a = makeSubscription({ channelId: 'a', channelName: 'x', roleId: 'r', style: 'compact' });
    const b = makeSubscription({ channelId: 'b', channelName: 'y', enabledAt: '2026-06-02T00:00:00Z' });
    expect(scheduleKey(a)).toBe(scheduleKey(b));
    expect(scheduleKey(makeSubscription({ time: '10:00' }))).not.toBe(scheduleKey(a));
    expect(scheduleKey(makeSubscription({ status: { state: 'disabled', reason: { kind: 'timeout' }, at: 'y' } }))).not.toBe(scheduleKey(a));
  });
});
