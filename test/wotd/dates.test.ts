import { describe, expect, it } from 'vitest';
import {
  addDays,
  daysBefore,
  daysBetween,
  detectVariant,
  parseAnyDate,
  parseDmyDate,
  parseIsoDate,
  parseWireDate,
  toWireDate,
  utcDateOf,
} from '../../src/wotd/dates.ts';

describe('dates', () => {
  it('accepts real calendar days only', () => {
    expect(parseIsoDate('2024-02-29')).toBe('2024-02-29');
    expect(parseIsoDate('2025-02-29')).toBeNull();
    expect(parseIsoDate('2025-02-30')).toBeNull();
    expect(parseIsoDate('2025-13-01')).toBeNull();
    expect(parseIsoDate('2025-1-01')).toBeNull();
    expect(parseIsoDate(' 2025-01-01')).toBeNull();
    expect(parseIsoDate('0000-01-01')).toBeNull();
    expect(parseIsoDate('0099-03-01')).toBe('0099-03-01');
  });

  it('reads DD-MM-YYYY and either form as typed by people', () => {
    expect(parseDmyDate('14-01-2025')).toBe('2025-01-14');
    expect(parseDmyDate('31-04-2025')).toBeNull();
    expect(parseAnyDate(' 2025-01-14 ')).toBe('2025-01-14');
    expect(parseAnyDate('14-01-2025')).toBe('2025-01-14');
    expect(parseAnyDate('14/01/2025')).toBeNull();
  });

  it('converts between the two wire variants', () => {
    expect(toWireDate('2025-01-14', 'B')).toBe('14-01-2025');
    expect(toWireDate('2025-01-14', 'A')).toBe('2025-01-14');
    expect(parseWireDate('14-01-2025', 'B')).toBe('2025-01-14');
    expect(parseWireDate('14-01-2025', 'A')).toBeNull();
    expect(detectVariant('2025-01-14')).toBe('A');
    expect(detectVariant('14-01-2025')).toBe('B');
    expect(detectVariant('yesterday')).toBeNull();
  });

  it('does day arithmetic across months, leap days and years', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(daysBetween('2020-01-01', '2035-12-31')).toBe(5843);
  });

  it('lists the days before a day, newest first, as addDays counts them', () => {
    expect(daysBefore('2024-03-02', 3)).toEqual(['2024-03-01', '2024-02-29', '2024-02-28']);
    for (const day of ['2026-01-01', '0100-03-01', '0001-01-03', '9999-12-31']) {
      expect(daysBefore(day, 6)).toEqual([1, 2, 3, 4, 5, 6].map((back) => addDays(day, -back)));
    }
    expect(daysBefore('2025-01-14', 0)).toEqual([]);
  });

  it('takes today as the UTC date of an instant', () => {
    expect(utcDateOf(new Date('2026-03-01T23:59:59.999Z'))).toBe('2026-03-01');
    expect(utcDateOf(new Date('2026-03-01T23:30:00-01:00'))).toBe('2026-03-02');
    // The same day asked again, the next and the one before it, each as it is.
    for (const [instant, day] of [
      ['2026-03-02T00:00:00.000Z', '2026-03-02'],
      ['2026-03-01T23:59:59.999Z', '2026-03-01'],
      ['2026-03-03T00:00:00.000Z', '2026-03-03'],
      ['2026-03-02T12:00:00.000Z', '2026-03-02'],
      ['1969-12-31T23:59:59.999Z', '1969-12-31'],
      ['1970-01-01T00:00:00.000Z', '1970-01-01'],
      ['0099-06-01T08:00:00.000Z', '0099-06-01'],
    ] as const) {
      expect(utcDateOf(new Date(instant))).toBe(day);
      expect(utcDateOf(new Date(instant))).toBe(day);
    }
    expect(() => utcDateOf(new Date('not a date'))).toThrow(RangeError);
  });
});
