/**
 * Discord's documented limits on what a message may hold, and the one way text is cut to fit them.
 *
 * Length is counted in UTF-16 code units (JavaScript's `length`). Discord documents its limits in "characters"
 * and counts code points; a code point is one or two UTF-16 units, never fewer, so text within these limits in
 * units is within them in code points too: the safe side of the two readings.
 */
export const DISCORD_LIMITS = {
  content: 2_000,
  embedTitle: 256,
  embedDescription: 4_096,
  fieldName: 256,
  fieldValue: 1_024,
  fields: 25,
  footerText: 2_048,
  authorName: 256,
  /** Title, description, field names and values, footer and author name of every embed of one message together. */
  embedsTotal: 6_000,
  buttonLabel: 80,
  choiceName: 100,
  choiceValue: 100,
  threadName: 100,
} as const;

export const ELLIPSIS = '…';

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * Cut to at most `limit` UTF-16 units, ending in an ellipsis when anything was cut. The cut falls on a grapheme
 * boundary (a letter keeps its accents, an emoji sequence or flag stays whole, a surrogate pair is never split);
 * when even the first grapheme is longer than the room (a letter with hundreds of combining marks), nothing of it
 * is kept. Text is escaped first and cut after: a backslash whose escaped character was cut off goes too, so an
 * escape is never cut in half and the ellipsis is not escaped.
 */
export function clip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  if (limit < ELLIPSIS.length) return '';
  const room = limit - ELLIPSIS.length;
  // Grapheme boundaries depend only on what precedes them and the character after, so those of a prefix that ends
  // with the whole character at the room (both halves of a surrogate pair) are the text's own up to the room: the
  // last segment of that prefix starts at the last one.
  const prefix = text.slice(0, /[\ud800-\udbff]/.test(text[room] ?? '') ? room + 2 : room + 1);
  let end = 0;
  for (const segment of graphemes.segment(prefix)) end = segment.index;
  let kept = text.slice(0, end);
  let backslashes = 0;
  while (backslashes < kept.length && kept[kept.length - 1 - backslashes] === '\\') backslashes += 1;
  if (backslashes % 2 === 1) kept = kept.slice(0, -1);
  return `${kept}${ELLIPSIS}`;
}

/** Every character of every embed that counts toward Discord's total of 6,000 per message. */
export function embedsLength(embeds: ReadonlyArray<{ title?: string; description?: string; fields?: Array<{ name: string; value: string }>; footer?: { text: string }; author?: { name: string } }>): number {
  let total = 0;
  for (const embed of embeds) {
    total += (embed.title?.length ?? 0) + (embed.description?.length ?? 0) + (embed.footer?.text.length ?? 0) + (embed.author?.name.length ?? 0);
    for (const field of embed.fields ?? []) total += field.name.length + field.value.length;
  }
  return total;
}
