/**
 * A small, deliberately strict model of what Discord's renderer does with message and embed text, for checking that
 * text from the service renders inert. It knows Discord's escape (a backslash makes the next character literal when
 * that is not a letter, digit or space), its raw links (which swallow the markup inside them), and the constructs
 * that format text, link it or resolve a mention. Stricter than Discord where in doubt: a lone `*` counts as
 * emphasis, `@everyone` counts even when backslash-escaped, and any `<@`, `<#`, `<t:` … counts as a tag.
 */

/** Discord's raw link: http(s)://, then no space or `<`, not ending in punctuation. */
const RAW_LINK = /https?:\/\/[^\s<]+[^<.,:;"')\]\s]/y;
const ESCAPABLE = /[^0-9A-Za-z\s]/u;

export interface Markup {
  kind: string;
  at: number;
  /** The text around it, for the failure message. */
  near: string;
}

const LINE_START: Array<[RegExp, string]> = [
  [/[^\S\n]*#{1,3}[^\S\n]/y, 'heading'],
  [/[^\S\n]*-#[^\S\n]/y, 'subtext'],
  [/[^\S\n]*>/y, 'block quote'],
  [/[^\S\n]*[-+][^\S\n]/y, 'bulleted list'],
  [/[^\S\n]*\*[^\S\n]/y, 'bulleted list (*)'],
  [/[^\S\n]*\d+\.[^\S\n]/y, 'numbered list'],
];

const TAG = /<(@[!&]?\d|#\d|\/[^\s>]+:\d|t:-?\d|a?:[^\s:>]+:\d|id:|sound:)/y;
const MASKED_LINK = /\[[^\n]*\]\(/y;

/** Whether the sticky `pattern` matches at `at`, and how long the match is (0 when it does not). */
function matchAt(pattern: RegExp, text: string, at: number): number {
  pattern.lastIndex = at;
  const match = pattern.exec(text);
  return match ? match[0].length : 0;
}

/** A backslash escape at `at`: its length (2, or 3 before an astral character), else 0. */
function escapeAt(text: string, at: number): number {
  if (text[at] !== '\\') return 0;
  const next = text.codePointAt(at + 1);
  if (next === undefined || !ESCAPABLE.test(String.fromCodePoint(next))) return 0;
  return next > 0xffff ? 3 : 2;
}

/**
 * Every construct in `text` that Discord would render as formatting, a masked link or a mention.
 * `ownStars`: leave `*` alone (the bot's own bold and italics around escaped text); everything else still counts.
 */
export function activeMarkup(text: string, options: { ownStars?: boolean } = {}): Markup[] {
  const found: Markup[] = [];
  const add = (kind: string, at: number): void => {
    found.push({ kind, at, near: JSON.stringify(text.slice(Math.max(0, at - 12), at + 16)) });
  };
  let lineStart = true;
  for (let i = 0; i < text.length; ) {
    if (lineStart) {
      for (const [pattern, kind] of LINE_START) {
        if (kind === 'bulleted list (*)' && options.ownStars) continue;
        if (matchAt(pattern, text, i) > 0) add(kind, i);
      }
      lineStart = false;
    }
    const escaped = escapeAt(text, i);
    if (escaped > 0) {
      i += escaped;
      continue;
    }
    const char = text[i];
    if (char === '\n') {
      lineStart = true;
      i += 1;
      continue;
    }
    const link = matchAt(RAW_LINK, text, i);
    if (link > 0) {
      i += link;
      continue;
    }
    if (char === '<' && matchAt(TAG, text, i) > 0) add(text.startsWith('<t:', i) ? 'timestamp' : 'mention or tag', i);
    else if (char === '[' && matchAt(MASKED_LINK, text, i) > 0) add('masked link', i);
    else if (text.startsWith('~~', i)) add('strikethrough', i);
    else if (text.startsWith('||', i)) add('spoiler', i);
    else if (char === '`') add('code', i);
    // Discord's underscores open emphasis only at a word boundary: one inside a word (New_York) stays a letter.
    else if (char === '_' && !(/[A-Za-z0-9]/.test(text[i - 1] ?? '') && /[A-Za-z0-9]/.test(text[i + 1] ?? ''))) add('underline or italics', i);
    else if (char === '*' && !options.ownStars) add('bold or italics', i);
    i += 1;
  }
  // Checked without escapes: a mention of everyone must be broken, not merely escaped.
  const plain = text.replace(/\\/g, '');
  for (const match of plain.matchAll(/@(everyone|here)/g)) add(`@${match[1]}`, match.index);
  return found;
}

/** What a reader sees of escaped text: escapes removed (outside raw links, where a backslash is part of the link). */
export function unescapeDiscord(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; ) {
    const link = matchAt(RAW_LINK, text, i);
    if (link > 0) {
      out += text.slice(i, i + link);
      i += link;
      continue;
    }
    const escaped = escapeAt(text, i);
    if (escaped > 0) {
      out += text.slice(i + 1, i + escaped);
      i += escaped;
      continue;
    }
    out += text[i];
    i += 1;
  }
  return out;
}

/** Mentions and tags broken with a zero-width space read the same as the originals, for comparisons. */
export function withoutBreaks(text: string): string {
  return text.replace(/@\u200b(everyone|here)/g, '@$1').replace(/<\u200b/g, '<');
}
