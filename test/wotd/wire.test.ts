import { describe, expect, it } from 'vitest';
import { WotdError } from '../../src/wotd/errors.ts';
import { parseEntry, parseFind, parsePrevious, sniffVariant } from '../../src/wotd/wire.ts';

const wireB = (date: string, word = 'aplomb') => ({ date, word, pos: 'noun', ipa: '/əˈplɒm/', definition: '(historical) "poise"' });

function badResponse(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof WotdError && error.code === 'bad_response') return error.message;
    throw error;
  }
  throw new Error('expected bad_response');
}

describe('wire schemas', () => {
  it('converts a variant-B entry to ISO dates and keeps quotes and labels as sent', () => {
    expect(parseEntry(wireB('05-03-2024'), 'B')).toEqual({ ...wireB('2024-03-05') });
  });

  it('refuses the other variant’s dates, impossible dates and wrong field types, naming the field', () => {
    expect(badResponse(() => parseEntry(wireB('2024-03-05'), 'B'))).toMatch(/date: expected a DD-MM-YYYY date/);
    expect(badResponse(() => parseEntry({ ...wireB('2024-02-30'), date: '2024-02-30' }, 'A'))).toMatch(/date/);
    expect(badResponse(() => parseEntry({ ...wireB('05-03-2024'), word: 7 }, 'B'))).toMatch(/word/);
    expect(badResponse(() => parseEntry({ ...wireB('05-03-2024'), word: '  ' }, 'B'))).toMatch(/word is empty/);
    expect(badResponse(() => parseEntry('<html>', 'A'))).toMatch(/invalid entry/);
  });

  it('reads find_wotd as an object or an array in any order, newest first without duplicates', () => {
    expect(parseFind(wireB('05-03-2024'), 'B').map((entry) => entry.date)).toEqual(['2024-03-05']);
    const found = parseFind([wireB('01-01-2021'), wireB('05-03-2024'), wireB('02-02-2022'), wireB('05-03-2024')], 'B');
    expect(found.map((entry) => entry.date)).toEqual(['2024-03-05', '2022-02-02', '2021-01-01']);
    expect(badResponse(() => parseFind([wireB('05-03-2024'), { date: '01-01-2021' }], 'B'))).toMatch(/^.*1\.word/);
  });

  it('sorts a history page newest first and refuses entries not strictly before the date', () => {
    const page = parsePrevious({ has_more: true, results: [wireB('2024-03-03'), wireB('2024-03-04')].map((entry) => ({ ...entry, date: entry.date })) }, 'A', '2024-03-05');
    expect(page.entries.map((entry) => entry.date)).toEqual(['2024-03-04', '2024-03-03']);
    expect(page.hasMore).toBe(true);
    expect(badResponse(() => parsePrevious({ has_more: false, results: [{ ...wireB('x'), date: '2024-03-05' }] }, 'A', '2024-03-05'))).toMatch(
      /2024-03-05 in the history before 2024-03-05/,
    );
    expect(badResponse(() => parsePrevious({ has_more: 'no', results: [] }, 'A', '2024-03-05'))).toMatch(/has_more/);
  });

  it('tells the variant from the first date it finds', () => {
    expect(sniffVariant(wireB('05-03-2024'))).toBe('B');
    expect(sniffVariant([wireB('2024-03-05')])).toBe('A');
    expect(sniffVariant({ has_more: false, results: [wireB('05-03-2024')] })).toBe('B');
    expect(sniffVariant({ has_more: false, results: [] })).toBeNull();
    expect(sniffVariant('nope')).toBeNull();
  });
});
