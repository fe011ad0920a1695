import { describe, expect, it } from 'vitest';
import { andList, longDate, shortDate } from '../../../src/replies/i18n/formats.ts';

/** Days are written once per catalog and kept: asked again, in any locale naming that catalog, the same text. */
describe('dates in the reader’s language', () => {
  it('writes a day as each catalog reads it, the same the second time', () => {
    for (let round = 0; round < 2; round += 1) {
      expect(longDate('2025-01-14', 'en-US')).toBe('14 January 2025');
      expect(longDate('2025-01-14', 'de')).toBe('14. Januar 2025');
      expect(longDate('2025-01-14', 'de-AT')).toBe('14. Januar 2025');
      expect(longDate('2025-01-14', 'ja')).toBe('2025年1月14日');
      expect(shortDate('2025-01-14', 'en-GB')).toBe('2025-01-14');
      expect(shortDate('2025-01-14', 'de')).toBe('14.01.2025');
      expect(shortDate('2025-01-14', 'fr')).toBe('14/01/2025');
      expect(longDate('2025-01-15', 'de')).toBe('15. Januar 2025');
      expect(shortDate('2025-01-15', undefined)).toBe('2025-01-15');
    }
    expect(andList(['a', 'b', 'c'], 'de')).toBe('a, b und c');
  });

  it('keeps writing correctly past the days it remembers', () => {
    const days = Array.from({ length: 5_000 }, (_, i) => new Date(Date.UTC(2000, 0, 1 + i)).toISOString().slice(0, 10));
    for (const day of days) longDate(day, 'fr');
    expect(longDate('2000-01-01', 'fr')).toBe('1 janvier 2000');
    expect(longDate(days.at(-1) ?? '', 'fr')).toBe(new Intl.DateTimeFormat('fr', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${days.at(-1)}T00:00:00Z`)));
  });
});
