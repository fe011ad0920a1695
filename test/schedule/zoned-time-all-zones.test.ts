import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deliverableSlots, slotFor } from '../../src/schedule/due.ts';
import { formatLocalTime, localDayExists, utcOffsetMs, type LocalTime } from '../../src/schedule/zoned-time.ts';
import { settings } from '../generated/generated.ts';

/**
 * The post-time property over every zone Intl lists, every local day 2020–2037, against an oracle of our own:
 * each local day that exists has exactly one post, at the first instant whose wall clock reads the post time or
 * later; it is delivered at that instant and not a minute before; consecutive local days carry increasing service
 * days, never a future one and never more than a day behind.
 *
 * The oracle shares no code with src/schedule/zoned-time.ts. It reads offsets from a different Intl output (the
 * zone's "GMT+05:30" name rather than its wall clock), finds each zone's changes by sampling every 4 days and then
 * scanning hour by hour and minute by minute, and answers "when does the wall clock first read W" by trying each
 * offset in force around W and each gap that jumps over W.
 *
 * Cost: 418 zones × 6,575 days is 2.7 million days. The implementation's answer for a day depends only on the
 * zone's offsets, so: every zone's offsets are compared with the oracle's at every sample and on both sides of every
 * change; every zone is checked in full on the two local days of each of its changes (each against the day before),
 * at the times that touch the change and at random times; and each distinct offset history (zones that never differ
 * from 2019-12 to 2038-01 share one) is checked on every single day. fast-check adds random (zone, day, time) triples.
 * FC_SEED=<n> replays another seed (see test/generated/generated.ts).
 */

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const FROM = Date.UTC(2019, 11, 1);
const TO = Date.UTC(2038, 1, 1);
const FIRST_DAY = Date.UTC(2020, 0, 1) / DAY_MS;
const LAST_DAY = Date.UTC(2037, 11, 31) / DAY_MS;
const SAMPLE_MS = 4 * DAY_MS;

interface Change {
  at: number;
  before: number;
  after: number;
}

interface ZoneOracle {
  zone: string;
  samples: Array<[number, number]>;
  changes: Change[];
  offsetAt(instant: number): number;
}

function offsetReader(zone: string): (instant: number) => number {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  return (instant) => {
    const name = format.format(new Date(instant)).split(' ').pop() ?? '';
    if (name === 'GMT') return 0;
    const match = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
    if (!match) throw new Error(`unexpected offset name ${name} for ${zone}`);
    const size = (Number(match[2]) * 60 + Number(match[3])) * MINUTE_MS;
    return match[1] === '-' ? -size : size;
  };
}

function oracleOf(zone: string): ZoneOracle {
  const read = offsetReader(zone);
  const samples: Array<[number, number]> = [];
  const changes: Change[] = [];
  let previous = read(FROM);
  samples.push([FROM, previous]);
  for (let at = FROM + SAMPLE_MS; at <= TO; at += SAMPLE_MS) {
    const offset = read(at);
    samples.push([at, offset]);
    let from = at - SAMPLE_MS;
    while (offset !== previous) {
      // Forward to the first day, hour, ten minutes and minute with another offset, each scan inside the last step.
      let day = from + DAY_MS;
      while (read(day) === previous) day += DAY_MS;
      let hour = day - DAY_MS + HOUR_MS;
      while (read(hour) === previous) hour += HOUR_MS;
      let tens = hour - HOUR_MS + 10 * MINUTE_MS;
      while (read(tens) === previous) tens += 10 * MINUTE_MS;
      let minute = tens - 10 * MINUTE_MS + MINUTE_MS;
      while (read(minute) === previous) minute += MINUTE_MS;
      const after = read(minute);
      changes.push({ at: minute, before: previous, after });
      previous = after;
      from = minute;
    }
  }
  return {
    zone,
    samples,
    changes,
    offsetAt(instant) {
      const index = changesUpTo(changes, instant);
      return index === 0 ? (samples[0]?.[1] ?? 0) : (changes[index - 1]?.after ?? 0);
    },
  };
}

/** How many of `changes` (sorted) happen at or before `instant`. */
function changesUpTo(changes: Change[], instant: number): number {
  let lo = 0;
  let hi = changes.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((changes[mid]?.at ?? Infinity) <= instant) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first instant whose wall clock reads `wall` (as if UTC) or later: an exact reading, or the end of a gap over it. */
function oracleFirstInstant(oracle: ZoneOracle, wall: number): number {
  const candidates: number[] = [];
  const near = oracle.changes.slice(changesUpTo(oracle.changes, wall - 17 * HOUR_MS), changesUpTo(oracle.changes, wall + 17 * HOUR_MS));
  const offsets = new Set([oracle.offsetAt(wall - 16 * HOUR_MS), oracle.offsetAt(wall + 16 * HOUR_MS), ...near.flatMap((change) => [change.before, change.after])]);
  for (const offset of offsets) if (oracle.offsetAt(wall - offset) === offset) candidates.push(wall - offset);
  for (const change of near) if (change.at + change.before <= wall && wall < change.at + change.after) candidates.push(change.at);
  if (candidates.length === 0) throw new Error(`oracle: no instant for ${new Date(wall).toISOString()} in ${oracle.zone}`);
  return Math.min(...candidates);
}

/** The highest offset the zone uses from `instant` to the end of the scan. */
function highestFrom(oracle: ZoneOracle, instant: number): number {
  return oracle.changes.slice(changesUpTo(oracle.changes, instant)).reduce((max, change) => Math.max(max, change.after), oracle.offsetAt(instant));
}

function localDayOf(oracle: ZoneOracle, instant: number): number {
  return Math.floor((instant + oracle.offsetAt(instant)) / DAY_MS);
}

function oracleDayExists(oracle: ZoneOracle, day: number): boolean {
  return localDayOf(oracle, oracleFirstInstant(oracle, day * DAY_MS)) === day;
}

const isoOf = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);
const timeOf = (minuteOfDay: number): LocalTime => ({ hour: Math.floor(minuteOfDay / 60), minute: minuteOfDay % 60 });

/** The times of day that touch a change: each side of the jump, a minute either side, and mid-gap. */
function criticalMinutes({ at, before, after }: Change): number[] {
  const minutes = new Set<number>();
  const minuteOf = (wall: number): number => ((Math.floor(wall / MINUTE_MS) % 1440) + 1440) % 1440;
  for (const wall of [at + before, at + after, (at + before + at + after) / 2]) {
    for (const delta of [-1, 0, 1]) minutes.add(minuteOf(wall + delta * MINUTE_MS));
  }
  return [...minutes];
}

/** The local epoch days a change falls on: the day its earlier wall clock reads, and the next (inside 2020–2037). */
function changeDays({ at, before }: Change): number[] {
  const day = Math.floor((at + before) / DAY_MS);
  return [day, day + 1].filter((d) => d >= FIRST_DAY && d <= LAST_DAY);
}

/** Checks `day` in full at `minute`, against the day before at the same time. */
function checkAgainstDayBefore(o: ZoneOracle, day: number, minute: number): void {
  const service = checkDay(o, day - 1, minute, false, null);
  checkDay(o, day, minute, true, service);
}

/**
 * Checks one local day at one time in full; returns its service day as an epoch day (null for a day the zone
 * skipped). `previous`: the service day of the day before at the same time, when known.
 */
function checkDay(oracle: ZoneOracle, day: number, minuteOfDay: number, full: boolean, previous: number | null): number | null {
  const { zone } = oracle;
  const time = timeOf(minuteOfDay);
  const subscription = { time: formatLocalTime(time), timeZone: zone };
  const where = `${zone} ${isoOf(day)} ${subscription.time}`;
  const exists = oracleDayExists(oracle, day);
  if (full && localDayExists(isoOf(day), zone) !== exists) expect.fail(`${where}: the day ${exists ? 'exists' : 'does not exist'}, src says otherwise`);
  if (!exists) return null;
  const slot = slotFor(subscription, isoOf(day));
  const expected = oracleFirstInstant(oracle, day * DAY_MS + minuteOfDay * MINUTE_MS);
  const postAt = slot.postAt.getTime();
  if (postAt !== expected) expect(slot.postAt.toISOString(), `${where}: post instant`).toBe(new Date(expected).toISOString());
  const serviceDay = Date.parse(`${slot.serviceDay}T00:00:00Z`) / DAY_MS;
  const utcDay = Math.floor(postAt / DAY_MS);
  if (serviceDay > utcDay || serviceDay < utcDay - 1) {
    expect.fail(`${where}: service day ${slot.serviceDay} for a post at ${slot.postAt.toISOString()} (a future one, or more than a day behind)`);
  }
  if (previous !== null && (serviceDay <= previous || serviceDay > previous + 2)) {
    expect.fail(`${where}: service day ${slot.serviceDay} after ${isoOf(previous)} the day before (a post lost, or two words jumped)`);
  }
  // A word is jumped only where the zone gives up its highest offset for good (Tehran in 2022), never at a mere DST change.
  if (previous === serviceDay - 2 && highestFrom(oracle, (day - 1) * DAY_MS - 16 * HOUR_MS) <= highestFrom(oracle, (day + 1) * DAY_MS)) {
    expect.fail(`${where}: service day ${slot.serviceDay} jumps a word after ${isoOf(previous)}, though the zone keeps its offsets`);
  }
  if (full) {
    const localDay = isoOf(day);
    if (!deliverableSlots(subscription, slot.postAt).some((due) => due.localDay === localDay)) expect.fail(`${where}: not delivered at its instant`);
    if (deliverableSlots(subscription, new Date(postAt - MINUTE_MS)).some((due) => due.localDay === localDay)) expect.fail(`${where}: delivered a minute early`);
  }
  return serviceDay;
}

/** Checks local days first..last (epoch days) at one time, each against the day before. */
function checkDays(oracle: ZoneOracle, first: number, last: number, minutes: (day: number) => number, full: (day: number) => boolean): void {
  let previous: number | null = null;
  let previousMinute: number | null = null;
  for (let day = first; day <= last; day += 1) {
    const minute = minutes(day);
    const service = checkDay(oracle, day, minute, full(day), minute === previousMinute ? previous : null);
    if (service !== null) {
      previous = service;
      previousMinute = minute;
    }
  }
}

const zones = Intl.supportedValuesOf('timeZone');
const oracles = new Map<string, ZoneOracle>();
function oracle(zone: string): ZoneOracle {
  let known = oracles.get(zone);
  if (!known) {
    known = oracleOf(zone);
    oracles.set(zone, known);
  }
  return known;
}

describe('post instants and service days in every zone, 2020–2037', () => {
  it('lists the zones the issue names (Nuuk under its older name, America/Godthab)', () => {
    for (const zone of ['Pacific/Apia', 'Australia/Lord_Howe', 'Asia/Tehran', 'America/Godthab', 'America/Scoresbysund']) expect(zones).toContain(zone);
    expect(zones.length).toBeGreaterThan(400);
  });

  it('every zone: its offsets match the oracle at every sample and on both sides of every change', () => {
    for (const zone of zones) {
      const o = oracle(zone);
      for (const [at, offset] of o.samples) if (utcOffsetMs(at, zone) !== offset) expect(utcOffsetMs(at, zone), `${zone} at ${new Date(at).toISOString()}`).toBe(offset);
      for (const { at, before, after } of o.changes) {
        expect(utcOffsetMs(at - 1, zone), `${zone} just before ${new Date(at).toISOString()}`).toBe(before);
        expect(utcOffsetMs(at, zone), `${zone} at ${new Date(at).toISOString()}`).toBe(after);
      }
    }
  }, 300_000);

  it('every zone: the days of each change, at every time that touches it', () => {
    for (const zone of zones) {
      const o = oracle(zone);
      for (const change of o.changes) for (const minute of criticalMinutes(change)) for (const day of changeDays(change)) checkAgainstDayBefore(o, day, minute);
    }
  }, 300_000);

  it('every distinct offset history: every day, at a time that moves through the day', () => {
    const histories = new Map<string, string>();
    for (const zone of zones) {
      const o = oracle(zone);
      const key = o.samples.map(([, offset]) => offset).join(',') + '|' + o.changes.map((change) => `${change.at}:${change.after}`).join(',');
      if (!histories.has(key)) histories.set(key, zone);
    }
    for (const zone of histories.values()) {
      const o = oracle(zone);
      // Seven days at each time, so consecutive days are compared; 331 minutes apart, so every hour gets its turn.
      checkDays(o, FIRST_DAY, LAST_DAY, (day) => ((Math.floor(day / 7) * 331) % 1440), () => false);
    }
    expect(histories.size).toBeGreaterThan(50);
    // Tehran's one jumped word, on the first day after its last summer time (2022-09-22), is where it is expected.
    const tehran = oracle('Asia/Tehran');
    expect(checkDay(tehran, Date.UTC(2022, 8, 23) / DAY_MS, 4 * 60, true, checkDay(tehran, Date.UTC(2022, 8, 22) / DAY_MS, 4 * 60, true, null))).toBe(
      Date.UTC(2022, 8, 23) / DAY_MS,
    );
  }, 300_000);

  it('every zone: random post times on the days of its changes (fast-check)', () => {
    zones.forEach((zone, i) => {
      const o = oracle(zone);
      if (o.changes.length === 0) return;
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 1439 }), (minute) => {
          for (const change of o.changes) for (const day of changeDays(change)) checkAgainstDayBefore(o, day, minute);
        }),
        settings(20_261_124 + i, 3),
      );
    });
  }, 300_000);

  it('random (zone, day, time): the day and the next one (fast-check)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...zones), fc.integer({ min: FIRST_DAY, max: LAST_DAY - 1 }), fc.integer({ min: 0, max: 1439 }), (zone, day, minute) => {
        const o = oracle(zone);
        const service = checkDay(o, day, minute, true, null);
        checkDay(o, day + 1, minute, true, service);
      }),
      settings(20_261_125, 3_000),
    );
  }, 300_000);
});
