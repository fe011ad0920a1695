import { clip, escapeText, splitLabel } from '../discord/embeds.ts';
import type { Entry } from '../wotd/entry.ts';

/** Characters of a definition shown in a list before it is cut short. */
export const SHORT_DEFINITION_LENGTH = 120;

/**
 * A definition cut to a list's width, then escaped (cutting escaped text could split an escape in two),
 * with its leading label in italics.
 */
export function shortDefinition(definition: string, length = SHORT_DEFINITION_LENGTH): string {
  const { label, text } = splitLabel(definition);
  const body = escapeText(clip(text.replace(/\s+/g, ' '), length));
  return label ? `*(${escapeText(label)})* ${body}` : body;
}

/** "noun · /ipa/" without markup, or null when the entry has neither. */
function posAndIpa(entry: Pick<Entry, 'pos' | 'ipa'>): string | null {
  const parts = [entry.pos.trim(), entry.ipa.trim()].filter(Boolean).map(escapeText);
  return parts.length > 0 ? parts.join(' · ') : null;
}

/** One entry as a list field: the word and date as its name; part of speech, IPA and short definition as its value. */
export function entryField(entry: Entry): { name: string; value: string } {
  const heading = posAndIpa(entry);
  const definition = shortDefinition(entry.definition);
  const value = [heading ? `*${heading}*` : '', definition].filter(Boolean).join('\n');
  return { name: clip(`${escapeText(entry.word)} · ${entry.date}`, 256), value: clip(value || '—', 1024) };
}

/** One entry as a line of a list: "**2025-01-14** · *noun · /ipa/* — short definition". */
export function entryLine(entry: Entry): string {
  const heading = posAndIpa(entry);
  const definition = shortDefinition(entry.definition);
  return `**${entry.date}**${heading ? ` · *${heading}*` : ''}${definition ? ` — ${definition}` : ''}`;
}
