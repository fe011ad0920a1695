import { clip, escapeText, splitLabel } from './embeds.ts';
import type { Entry } from '../wotd/entry.ts';
import { partOfSpeech, shortDate } from './i18n/formats.ts';
import { translatorFor } from './i18n/translate.ts';
import { PerEntry } from './per-entry.ts';

/** Characters of a definition shown in a list before it is cut short. */
export const SHORT_DEFINITION_LENGTH = 120;

/**
 * A definition on one line, at most `length` characters once escaped (cut after escaping, never inside an escape;
 * it is cut roughly first, so a 10,000-character definition is not escaped whole), after its leading label in
 * italics.
 */
export function shortDefinition(definition: string, length = SHORT_DEFINITION_LENGTH): string {
  const { label, text } = splitLabel(definition);
  const body = clip(escapeText(clip(text.replace(/\s+/g, ' '), length)), length);
  return label ? `*(${escapeText(label)})* ${body}` : body;
}

/** "noun · /ipa/" without markup (a known part of speech in the reader's language), or null when the entry has neither. */
function posAndIpa(entry: Pick<Entry, 'pos' | 'ipa'>, locale: string | undefined): string | null {
  const pos = entry.pos.trim() ? partOfSpeech(entry.pos, translatorFor(locale)) : '';
  const parts = [pos, entry.ipa.trim()].filter(Boolean).map(escapeText);
  return parts.length > 0 ? parts.join(' · ') : null;
}

const FIELD_NAME_LIMIT = 256;
const FIELD_VALUE_LIMIT = 1024;

/**
 * One entry as a list field: the word and date as its name; part of speech, IPA and short definition as its value.
 * Name and value together take at most `room` characters, since Discord counts every field toward an embed's
 * total of 6000; a word or value too long for it is cut short, never the date.
 */
export function entryField(entry: Entry, room = FIELD_NAME_LIMIT + FIELD_VALUE_LIMIT, locale?: string): { name: string; value: string } {
  const key = `${room} ${locale ?? ''}`;
  // A new object each time (the caller's to keep), of the texts made once.
  const known = fields.get(entry, key) ?? fields.keep(entry, key, makeEntryField(entry, room, locale));
  return { name: known.name, value: known.value };
}

const fields = new PerEntry<{ readonly name: string; readonly value: string }>();
const lines = new PerEntry<string>();

function makeEntryField(entry: Entry, room: number, locale: string | undefined): { name: string; value: string } {
  const heading = posAndIpa(entry, locale);
  const definition = shortDefinition(entry.definition);
  const value = [heading ? `*${heading}*` : '', definition].filter(Boolean).join('\n');
  const date = ` · ${shortDate(entry.date, locale)}`;
  const name = `${clip(escapeText(entry.word), Math.min(FIELD_NAME_LIMIT, Math.floor(room / 4)) - date.length)}${date}`;
  return { name, value: clip(value || '—', Math.min(FIELD_VALUE_LIMIT, room - name.length)) };
}

/** One entry as a line of a list: "**2025-01-14** · *noun · /ipa/* — short definition". */
export function entryLine(entry: Entry, locale?: string): string {
  const key = locale ?? '';
  return lines.get(entry, key) ?? lines.keep(entry, key, makeEntryLine(entry, locale));
}

function makeEntryLine(entry: Entry, locale: string | undefined): string {
  const heading = posAndIpa(entry, locale);
  const definition = shortDefinition(entry.definition);
  return `**${shortDate(entry.date, locale)}**${heading ? ` · *${heading}*` : ''}${definition ? ` — ${definition}` : ''}`;
}
