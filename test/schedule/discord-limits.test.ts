import { describe, expect, it } from 'vitest';
import { escapeText } from '../../src/replies/embeds.ts';
import { clip } from '../../src/schedule/discord-limits.ts';

const FAMILY = '👨‍👩‍👧‍👦'; // one grapheme, 11 UTF-16 units
const FLAG = '🇺🇦'; // one grapheme, two regional indicators
const ACCENTED = 'e\u0301'; // é as e + combining acute

describe('clip: Discord lengths, cut on a grapheme boundary with an ellipsis', () => {
  it('leaves text that fits alone, and counts UTF-16 units', () => {
    expect(clip('word', 4)).toBe('word');
    expect(clip('😀😀', 4)).toBe('😀😀');
    expect(clip('😀😀', 3)).toBe('😀…');
  });

  it('never splits an emoji sequence, a flag, a letter and its marks, or a surrogate pair', () => {
    expect(clip(`ab${FAMILY}cd`, 8)).toBe('ab…');
    expect(clip(`ab${FAMILY}cd`, 14)).toBe(`ab${FAMILY}…`);
    expect(clip(`${FLAG}${FLAG}${FLAG}`, 9)).toBe(`${FLAG}${FLAG}…`);
    expect(clip(`${FLAG}${FLAG}${FLAG}`, 8)).toBe(`${FLAG}…`);
    expect(clip(`${FLAG}${FLAG}${FLAG}`, 4)).toBe('…');
    expect(clip(`${ACCENTED}${ACCENTED}${ACCENTED}`, 4)).toBe(`${ACCENTED}…`);
    expect(clip('ש\u05b8לוֹם עוֹלָם', 4)).toBe('ש\u05b8ל…');
    expect(clip('a😀b', 2)).toBe('a…');
    // The room ends between the halves of 🚀, which the ZWJ before it joins to the astronaut.
    expect(clip('ab🧑🏿‍🚀c', 8)).toBe('ab…');
    expect(clip('ab🧑🏿‍🚀cd', 10)).toBe('ab🧑🏿‍🚀…');
  });

  it('keeps nothing of a first grapheme longer than the room', () => {
    expect(clip(`a${'\u0301'.repeat(300)}`, 256)).toBe('…');
    expect(clip('anything', 1)).toBe('…');
    expect(clip('anything', 0)).toBe('');
  });

  it('drops a backslash whose escaped character was cut off, and only that', () => {
    const escaped = escapeText('a*b*c');
    expect(escaped).toBe('a\\*b\\*c');
    expect(clip(escaped, 3)).toBe('a…');
    expect(clip(escaped, 4)).toBe('a\\*…');
    // A literal backslash is escaped as two: both stay or both go.
    expect(clip(escapeText('a\\bc'), 3)).toBe('a…');
    expect(clip(escapeText('a\\bc'), 4)).toBe('a\\\\…');
  });

  it('escapes before cutting, so the result stays within the limit however much escaping adds', () => {
    for (const text of ['*'.repeat(300), '<@1>'.repeat(100), '_~|`'.repeat(100), `${'# a\n'.repeat(100)}`]) {
      const shown = clip(escapeText(text), 256);
      expect(shown.length).toBeLessThanOrEqual(256);
      expect(shown.endsWith('…')).toBe(true);
      expect(/(^|[^\\])(\\\\)*\\…$/.test(shown), shown).toBe(false);
    }
  });
});
