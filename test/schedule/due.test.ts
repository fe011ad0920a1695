import { describe, expect, it } from 'vitest';
import { addDays, type IsoDate } from '../../src/wotd/dates.ts';
import { currentSlot, dueSlot, nextPostTime, slotFor } from '../../src/schedule/due.ts';
import type { DeliveryRecord, Subscription } from '../../src/schedule/subscription.ts';
import { canonicalTimeZone, localDateOf, localDayExists, parseLocalTime, zonedInstant } from '../../src/schedule/zoned-time.ts';

function subscription(time: string, timeZone: string): Subscription {
  return {
    guildId: 'g1',
    channelId: 'c1',
    channelName: 'words',
    time,
    timeZone,
    roleId: null,
    createdBy: 'u1',
    createdAt: '2026-01-01T00:00:00.000Z',
    enabledAt: '2026-01-01T00:00:00.000Z',
    status: { state: 'active' },
  };
}

interface Post {
  at: string;
  localDay: IsoDate;
  serviceDay: IsoDate;
  localTime: string;
}

function localTimeOf(instant: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(instant);
}

/**
 * Ticks every `stepMinutes` from `from` to `to`, recording a delivery whenever one is due, as the scheduler does.
 * Whatever is due at the very first tick counts as delivered before the simulation began.
 */
function simulate(sub: Subscription, from: string, to: string, stepMinutes = 1): Post[] {
  const records = new Map<IsoDate, DeliveryRecord>();
  const posts: Post[] = [];
  const start = Date.parse(from);
  for (let t = start; t <= Date.parse(to); t += stepMinutes * 60_000) {
    const now = new Date(t);
    const slot = dueSlot(sub, (day) => records.get(day) ?? null, now);
    if (!slot) continue;
    records.set(slot.serviceDay, {
      channelId: sub.channelId,
      day: slot.serviceDay,
      state: 'sent',
      nonce: 'n',
      attempts: 1,
      updatedAt: now.toISOString(),
    });
    if (t === start) continue;
    posts.push({ at: now.toISOString(), localDay: slot.localDay, serviceDay: slot.serviceDay, localTime: localTimeOf(now, sub.timeZone) });
  }
  return posts;
}

function expectOnePostPerDay(posts: Post[]): void {
  const localDays = posts.map((post) => post.localDay);
  const serviceDays = posts.map((post) => post.serviceDay);
  expect(new Set(localDays).size).toBe(localDays.length);
  expect(new Set(serviceDays).size).toBe(serviceDays.length);
  for (let i = 1; i < posts.length; i += 1) {
    expect(localDays[i]).toBe(addDays(localDays[i - 1] ?? '', 1));
    expect(serviceDays[i]).toBe(addDays(serviceDays[i - 1] ?? '', 1));
  }
}

describe('local times and zones', () => {
  it('parses HH:MM and rejects anything else', () => {
    expect(parseLocalTime('09:00')).toEqual({ hour: 9, minute: 0 });
    expect(parseLocalTime('7:05')).toEqual({ hour: 7, minute: 5 });
    for (const bad of ['24:00', '12:60', '9', '09:0', 'noon', '-1:00', '09:00:00', '']) expect(parseLocalTime(bad)).toBeNull();
  });

  it('canonicalises IANA names and rejects unknown ones', () => {
    expect(canonicalTimeZone('europe/london')).toBe('Europe/London');
    expect(canonicalTimeZone('UTC')).toBe('UTC');
    expect(canonicalTimeZone('Mars/Olympus')).toBeNull();
    expect(canonicalTimeZone('+25:00')).toBeNull();
    expect(canonicalTimeZone('')).toBeNull();
  });
});

describe('post instants across UTC−12 … UTC+14', () => {
  // Etc/GMT+12 is UTC−12 (POSIX signs are inverted).
  const cases: Array<[string, string]> = [
    ['Etc/GMT+12', '2026-06-15T21:00:00.000Z'],
    ['Pacific/Pago_Pago', '2026-06-15T20:00:00.000Z'],
    ['America/Sao_Paulo', '2026-06-15T12:00:00.000Z'],
    ['UTC', '2026-06-15T09:00:00.000Z'],
    ['Asia/Kolkata', '2026-06-15T03:30:00.000Z'],
    ['Asia/Kathmandu', '2026-06-15T03:15:00.000Z'],
    ['Asia/Tokyo', '2026-06-15T00:00:00.000Z'],
    ['Pacific/Auckland', '2026-06-14T21:00:00.000Z'],
    ['Pacific/Kiritimati', '2026-06-14T19:00:00.000Z'],
  ];
  it.each(cases)('09:00 in %s on 2026-06-15 is %s', (zone, instant) => {
    expect(zonedInstant('2026-06-15', { hour: 9, minute: 0 }, zone).toISOString()).toBe(instant);
  });

  it.each(cases.map(([zone]) => zone))('posts once a day at 09:00 local in %s', (zone) => {
    const posts = simulate(subscription('09:00', zone), '2026-06-13T00:00:00Z', '2026-06-18T00:00:00Z', 15);
    expect(posts.length).toBeGreaterThanOrEqual(4);
    expectOnePostPerDay(posts);
    for (const post of posts) expect(post.localTime).toBe('09:00');
  });
});

describe('the service UTC day against the local day', () => {
  it('UTC−12: the 09:00 post carries the same UTC date, and the UTC midnight during the local day adds no post', () => {
    const sub = subscription('09:00', 'Etc/GMT+12');
    const posts = simulate(sub, '2026-06-15T12:00:00Z', '2026-06-17T12:00:00Z');
    expect(posts).toEqual([
      { at: '2026-06-15T21:00:00.000Z', localDay: '2026-06-15', serviceDay: '2026-06-15', localTime: '09:00' },
      { at: '2026-06-16T21:00:00.000Z', localDay: '2026-06-16', serviceDay: '2026-06-16', localTime: '09:00' },
    ]);
  });

  it('UTC+14: the 09:00 post happens on the previous UTC date and carries that date\'s entry', () => {
    const sub = subscription('09:00', 'Pacific/Kiritimati');
    const posts = simulate(sub, '2026-06-15T00:00:00Z', '2026-06-17T00:00:00Z');
    expect(posts).toEqual([
      { at: '2026-06-15T19:00:00.000Z', localDay: '2026-06-16', serviceDay: '2026-06-15', localTime: '09:00' },
      { at: '2026-06-16T19:00:00.000Z', localDay: '2026-06-17', serviceDay: '2026-06-16', localTime: '09:00' },
    ]);
  });

  it('a late catch-up after UTC midnight still carries the entry of the post time, not the new UTC day', () => {
    const sub = subscription('09:00', 'Pacific/Kiritimati');
    // 09:00 on 06-16 local was 06-15T19:00Z; at 06-16T02:00Z it is 16:00 the same local day.
    const slot = dueSlot(sub, () => null, new Date('2026-06-16T02:00:00Z'));
    expect(slot).toMatchObject({ localDay: '2026-06-16', serviceDay: '2026-06-15' });
  });

  it('a post missed yesterday (local) is not caught up today', () => {
    const sub = subscription('09:00', 'UTC');
    expect(dueSlot(sub, () => null, new Date('2026-06-16T08:59:00Z'))).toBeNull();
  });
});

describe('daylight saving changes', () => {
  it('New York spring forward: 02:30 does not exist on 2026-03-08 and posts at 03:00 EDT, the end of the gap, once', () => {
    expect(zonedInstant('2026-03-08', { hour: 2, minute: 30 }, 'America/New_York').toISOString()).toBe('2026-03-08T07:00:00.000Z');
    const posts = simulate(subscription('02:30', 'America/New_York'), '2026-03-06T00:00:00Z', '2026-03-11T00:00:00Z');
    expectOnePostPerDay(posts);
    expect(posts.map((post) => `${post.localDay} ${post.localTime}`)).toEqual([
      '2026-03-06 02:30',
      '2026-03-07 02:30',
      '2026-03-08 03:00',
      '2026-03-09 02:30',
      '2026-03-10 02:30',
    ]);
  });

  it('New York fall back: 01:30 happens twice on 2026-11-01 and posts only at the first', () => {
    expect(zonedInstant('2026-11-01', { hour: 1, minute: 30 }, 'America/New_York').toISOString()).toBe('2026-11-01T05:30:00.000Z');
    const posts = simulate(subscription('01:30', 'America/New_York'), '2026-10-30T00:00:00Z', '2026-11-04T00:00:00Z');
    expectOnePostPerDay(posts);
    expect(posts.map((post) => post.at)).toContain('2026-11-01T05:30:00.000Z');
    expect(posts.map((post) => post.at)).not.toContain('2026-11-01T06:30:00.000Z');
    expect(posts).toHaveLength(5);
  });

  it('New York 19:30, which crosses UTC midnight when the clocks change, neither skips nor doubles', () => {
    for (const [from, to, count] of [
      ['2026-03-05T00:00:00Z', '2026-03-12T00:00:00Z', 8],
      ['2026-10-29T00:00:00Z', '2026-11-05T00:00:00Z', 6],
    ] as const) {
      const posts = simulate(subscription('19:30', 'America/New_York'), from, to);
      expectOnePostPerDay(posts);
      expect(posts).toHaveLength(count);
      for (const post of posts) expect(post.localTime).toBe('19:30');
    }
  });

  it('London: 01:30 in the spring gap and the autumn overlap, and 00:30 across both changes', () => {
    expect(zonedInstant('2026-03-29', { hour: 1, minute: 30 }, 'Europe/London').toISOString()).toBe('2026-03-29T01:00:00.000Z');
    expect(zonedInstant('2026-10-25', { hour: 1, minute: 30 }, 'Europe/London').toISOString()).toBe('2026-10-25T00:30:00.000Z');
    for (const time of ['01:30', '00:30', '09:00']) {
      for (const [from, to] of [
        ['2026-03-26T00:00:00Z', '2026-04-02T00:00:00Z'],
        ['2026-10-22T00:00:00Z', '2026-10-29T00:00:00Z'],
      ] as const) {
        const posts = simulate(subscription(time, 'Europe/London'), from, to);
        expectOnePostPerDay(posts);
        expect(posts.length).toBeGreaterThanOrEqual(6);
      }
    }
  });

  it('Sydney: DST ends on 2026-04-05 (02:30 twice) and starts on 2026-10-04 (02:30 missing)', () => {
    expect(zonedInstant('2026-04-05', { hour: 2, minute: 30 }, 'Australia/Sydney').toISOString()).toBe('2026-04-04T15:30:00.000Z');
    expect(zonedInstant('2026-10-04', { hour: 2, minute: 30 }, 'Australia/Sydney').toISOString()).toBe('2026-10-03T16:00:00.000Z');
    for (const time of ['02:30', '09:00', '10:30']) {
      for (const [from, to] of [
        ['2026-04-02T00:00:00Z', '2026-04-09T00:00:00Z'],
        ['2026-10-01T00:00:00Z', '2026-10-08T00:00:00Z'],
      ] as const) {
        const posts = simulate(subscription(time, 'Australia/Sydney'), from, to);
        expectOnePostPerDay(posts);
        expect(posts.length).toBeGreaterThanOrEqual(6);
      }
    }
  });
});

describe('changes at midnight and 23:00, 30-minute DST, rule changes and a skipped day', () => {
  // Nuuk (and Scoresbysund since 2024) is UTC−2 in winter and springs forward at 01:00 UTC: 23:00 local on the
  // Saturday jumps to 00:00 on the Sunday, so the Saturday has no 23:00–23:59.
  it('Nuuk spring 2025: 23:30 on the Saturday does not exist and posts at the Sunday midnight, and the Sunday still gets its own', () => {
    expect(zonedInstant('2025-03-29', { hour: 23, minute: 30 }, 'America/Nuuk').toISOString()).toBe('2025-03-30T01:00:00.000Z');
    const posts = simulate(subscription('23:30', 'America/Nuuk'), '2025-03-27T02:00:00Z', '2025-04-02T00:00:00Z');
    expectOnePostPerDay(posts);
    expect(posts.map((post) => `${post.localDay} ${post.at} ${post.localTime}`)).toEqual([
      '2025-03-27 2025-03-28T01:30:00.000Z 23:30',
      '2025-03-28 2025-03-29T01:30:00.000Z 23:30',
      '2025-03-29 2025-03-30T01:00:00.000Z 00:00',
      '2025-03-30 2025-03-31T00:30:00.000Z 23:30',
      '2025-03-31 2025-04-01T00:30:00.000Z 23:30',
    ]);
  });

  it('Nuuk spring 2025 at 23:00, the first minute of the gap, and the zone under its old name', () => {
    for (const zone of ['America/Nuuk', 'America/Godthab']) {
      const posts = simulate(subscription('23:00', zone), '2025-03-28T00:00:00Z', '2025-04-01T00:00:00Z');
      expectOnePostPerDay(posts);
      expect(posts.map((post) => post.localDay)).toEqual(['2025-03-27', '2025-03-28', '2025-03-29', '2025-03-30', '2025-03-31']);
      expect(posts[2]?.at).toBe('2025-03-30T01:00:00.000Z');
    }
  });

  it('Scoresbysund: the 23:00 spring change of 2025 and the midnight one of 2023 (00:00–00:59 missing)', () => {
    const late = simulate(subscription('23:15', 'America/Scoresbysund'), '2025-03-28T00:00:00Z', '2025-04-01T00:00:00Z');
    expectOnePostPerDay(late);
    expect(late.map((post) => post.localDay)).toEqual(['2025-03-27', '2025-03-28', '2025-03-29', '2025-03-30']);
    expect(late[2]?.at).toBe('2025-03-30T01:00:00.000Z');
    expect(zonedInstant('2023-03-26', { hour: 0, minute: 30 }, 'America/Scoresbysund').toISOString()).toBe('2023-03-26T01:00:00.000Z');
    for (const time of ['00:00', '00:30', '23:30']) {
      const posts = simulate(subscription(time, 'America/Scoresbysund'), '2023-03-23T00:00:00Z', '2023-03-29T00:00:00Z');
      expectOnePostPerDay(posts);
      expect(posts.length).toBeGreaterThanOrEqual(5);
    }
  });

  it('Tehran after it ended DST in 2022: the 04:00 post carries the UTC date of its instant, one word a day through 2023', () => {
    // 04:00 at +03:30 is 00:30 UTC the same day; the old ±180-day search still used last summer's +04:30 until spring.
    for (const day of ['2023-01-15', '2023-03-01', '2023-06-01']) {
      expect(slotFor(subscription('04:00', 'Asia/Tehran'), day)).toMatchObject({ serviceDay: day, postAt: new Date(`${day}T00:30:00Z`) });
    }
    const posts = simulate(subscription('04:00', 'Asia/Tehran'), '2023-03-10T00:00:00Z', '2023-04-02T00:00:00Z', 5);
    expectOnePostPerDay(posts);
    for (const post of posts) expect(post.serviceDay).toBe(post.at.slice(0, 10));
  });

  it('Lord Howe: 30-minute changes, 02:15 missing in October and 01:45 twice in April', () => {
    expect(zonedInstant('2025-10-05', { hour: 2, minute: 15 }, 'Australia/Lord_Howe').toISOString()).toBe('2025-10-04T15:30:00.000Z');
    expect(zonedInstant('2025-04-06', { hour: 1, minute: 45 }, 'Australia/Lord_Howe').toISOString()).toBe('2025-04-05T14:45:00.000Z');
    for (const time of ['02:15', '01:45', '00:00']) {
      for (const [from, to] of [
        ['2025-04-03T00:00:00Z', '2025-04-09T00:00:00Z'],
        ['2025-10-02T00:00:00Z', '2025-10-08T00:00:00Z'],
      ] as const) {
        const posts = simulate(subscription(time, 'Australia/Lord_Howe'), from, to);
        expectOnePostPerDay(posts);
        expect(posts.length).toBeGreaterThanOrEqual(5);
      }
    }
  });

  it('Apia skipped 2011-12-30 crossing the date line: no post for it, one on each day around it', () => {
    expect(localDayExists('2011-12-30', 'Pacific/Apia')).toBe(false);
    expect(localDayExists('2011-12-29', 'Pacific/Apia')).toBe(true);
    expect(localDayExists('2011-12-31', 'Pacific/Apia')).toBe(true);
    for (const time of ['00:00', '09:00', '23:55']) {
      const posts = simulate(subscription(time, 'Pacific/Apia'), '2011-12-27T00:00:00Z', '2012-01-02T12:00:00Z', 5);
      const localDays = posts.map((post) => post.localDay);
      expect(localDays).not.toContain('2011-12-30');
      expect(localDays).toEqual(expect.arrayContaining(['2011-12-29', '2011-12-31', '2012-01-01']));
      expect(new Set(localDays).size).toBe(localDays.length);
      const serviceDays = posts.map((post) => post.serviceDay);
      expect([...serviceDays].sort()).toEqual(serviceDays);
      expect(new Set(serviceDays).size).toBe(serviceDays.length);
      for (const post of posts) expect(post.serviceDay <= post.at.slice(0, 10)).toBe(true);
    }
  });

  it('a catch-up after downtime across the Nuuk change: the pushed post goes out the next local day, then that day\'s own', () => {
    const sub = subscription('23:30', 'America/Nuuk');
    const records = new Map<IsoDate, DeliveryRecord>();
    const record = (day: IsoDate) => records.get(day) ?? null;
    const deliver = (iso: string) => {
      const slot = dueSlot(sub, record, new Date(iso));
      if (slot) records.set(slot.serviceDay, { channelId: 'c1', day: slot.serviceDay, state: 'sent', nonce: 'n', attempts: 1, updatedAt: iso });
      return slot && `${slot.localDay} ${slot.serviceDay}`;
    };
    // Down from 22:00 on the Saturday until 08:00 on the Sunday (local).
    expect(deliver('2025-03-30T00:00:00Z')).toBeNull();
    expect(deliver('2025-03-30T09:00:00Z')).toBe('2025-03-29 2025-03-30');
    expect(deliver('2025-03-30T09:01:00Z')).toBeNull();
    expect(nextPostTime(sub, record, new Date('2025-03-30T09:01:00Z'))?.toISOString()).toBe('2025-03-31T00:30:00.000Z');
    expect(deliver('2025-03-31T00:29:00Z')).toBeNull();
    expect(deliver('2025-03-31T00:30:00Z')).toBe('2025-03-30 2025-03-31');
    // Down across both (from the Saturday evening to 23:45 on the Sunday): both are owed, the earlier first.
    records.clear();
    expect(deliver('2025-03-31T00:45:00Z')).toBe('2025-03-29 2025-03-30');
    expect(deliver('2025-03-31T00:46:00Z')).toBe('2025-03-30 2025-03-31');
    expect(deliver('2025-03-31T00:47:00Z')).toBeNull();
    // A day later it is too late for both: a missed day is not caught up the next local day.
    records.clear();
    expect(deliver('2025-03-31T09:00:00Z')).toBeNull();
  });
});

describe('next post time', () => {
  const sub = subscription('09:00', 'Europe/London');
  const sent = (day: IsoDate): DeliveryRecord => ({ channelId: 'c1', day, state: 'sent', nonce: 'n', attempts: 1, updatedAt: '2026-06-15T08:00:00.000Z' });

  it('is today at the post time while it is ahead, tomorrow once delivered, now while owed', () => {
    expect(nextPostTime(sub, () => null, new Date('2026-06-15T07:00:00Z'))?.toISOString()).toBe('2026-06-15T08:00:00.000Z');
    const records = new Map([['2026-06-15', sent('2026-06-15')]]);
    expect(nextPostTime(sub, (day) => records.get(day) ?? null, new Date('2026-06-15T10:00:00Z'))?.toISOString()).toBe(
      '2026-06-16T08:00:00.000Z',
    );
    expect(nextPostTime(sub, () => null, new Date('2026-06-15T10:00:00Z'))?.toISOString()).toBe('2026-06-15T10:00:00.000Z');
  });

  it('is none for a disabled subscription', () => {
    const disabled: Subscription = { ...sub, status: { state: 'disabled', reason: { kind: 'channelGone' }, at: '2026-06-01T00:00:00Z' } };
    expect(nextPostTime(disabled, () => null, new Date('2026-06-15T07:00:00Z'))).toBeNull();
    expect(dueSlot(disabled, () => null, new Date('2026-06-15T10:00:00Z'))).toBeNull();
  });

  it('uses the local day of the zone', () => {
    expect(localDateOf(new Date('2026-06-15T23:30:00Z'), 'Asia/Tokyo')).toBe('2026-06-16');
    expect(currentSlot(sub, new Date('2026-06-15T23:30:00Z')).localDay).toBe('2026-06-16');
    expect(slotFor(sub, '2026-12-15').postAt.toISOString()).toBe('2026-12-15T09:00:00.000Z');
  });
});
