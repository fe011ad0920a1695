import { describe, expect, it } from 'vitest';
import { compactEntryEmbed, COMPACT_DEFINITION_LENGTH, dailyPostEmbed } from '../../src/discord/daily-embeds.ts';
import { entryEmbed } from '../../src/discord/embeds.ts';

const options = { siteUrl: 'https://wotd.example' };
const entry = { date: '2025-01-14', word: 'serendipity', pos: 'noun', ipa: '/ˌsɛɹ.ənˈdɪp.ɪ.ti/', definition: '(historical) The "happy" faculty of\nfinding things by *chance*.' };

describe('daily post embeds', () => {
  it('full is exactly the /wotd embed', () => {
    expect(dailyPostEmbed(entry, 'full', options)).toEqual(entryEmbed(entry, options));
  });

  it('compact is the word, its IPA and a one-line definition, escaped, with the same title link and footer', () => {
    const compact = dailyPostEmbed(entry, 'compact', options);
    expect(compact).toEqual({
      title: 'serendipity',
      url: 'https://wotd.example',
      description: '/ˌsɛɹ.ənˈdɪp.ɪ.ti/ — *(historical)* The "happy" faculty of finding things by \\*chance\\*.',
      color: entryEmbed(entry, options).color,
      footer: { text: '2025-01-14 · Word of the Day from wotd.example' },
    });
  });

  it('cuts a long definition to one line and leaves out a missing IPA', () => {
    const long = compactEntryEmbed({ ...entry, ipa: ' ', definition: `${'word '.repeat(60)}end` }, options);
    expect(long.description).not.toContain('\n');
    expect(long.description?.length).toBeLessThanOrEqual(COMPACT_DEFINITION_LENGTH);
    expect(long.description?.endsWith('…')).toBe(true);
  });
});
