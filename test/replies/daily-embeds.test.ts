import { describe, expect, it } from 'vitest';
import { compactEntryEmbed, COMPACT_DEFINITION_LENGTH, dailyPostEmbed } from '../../src/replies/daily-embeds.ts';
import { entryEmbed } from '../../src/replies/embeds.ts';

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

  it('keeps the description within 4,096 however long the IPA, cutting after escaping and never inside an escape', () => {
    // 3,000 asterisks escape to 6,000 characters: the description was 6,000 and more, and Discord refused the post.
    for (const ipa of ['*'.repeat(3000), `/${'ˈa'.repeat(2500)}/`, '<@1>'.repeat(1000), `${'x'.repeat(4090)}*****`]) {
      const embed = compactEntryEmbed({ ...entry, ipa }, options);
      const description = embed.description ?? '';
      expect(description.length, ipa.slice(0, 20)).toBeLessThanOrEqual(4096);
      // The one-line definition is kept whole after the IPA; the IPA is what gets cut.
      expect(description.endsWith(' — *(historical)* The "happy" faculty of finding things by \\*chance\\*.'), ipa.slice(0, 20)).toBe(true);
      const ipaShown = description.split(' — ')[0] ?? '';
      expect(ipaShown.endsWith('…'), ipa.slice(0, 20)).toBe(ipa.length > 2000);
      expect(/(^|[^\\])(\\\\)*\\…$/.test(ipaShown), `${ipa.slice(0, 20)}: an escape cut in half`).toBe(false);
    }
  });
});
