import { escapeMarkdown, type APIEmbed } from 'discord.js';
import type { Entry } from '../wotd/entry.ts';

export interface EmbedOptions {
  /** Where the title links: the service's site. */
  siteUrl: string;
}

/** The colour of every embed the bot sends. */
export const ACCENT = 0x5865f2;
const TITLE_LIMIT = 256;
const DESCRIPTION_LIMIT = 4096;
const LABEL_PATTERN = /^\(([^()]{1,60})\)\s*/;

export function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

const ESCAPE_EVERYTHING = { heading: true, bulletedList: true, numberedList: true, maskedLink: true } as const;

/** Escaped texts remembered (up to so many, of up to so many characters); the same entries are rendered over and over. */
const ESCAPED_REMEMBERED = 5_000;
const ESCAPED_REMEMBERED_LENGTH = 1_024;
const escaped = new Map<string, string>();

/**
 * Text from the service as inert markdown: every formatting character, and line-leading headings, lists and
 * quotes, are escaped, so a definition always reads exactly as the service wrote it.
 * discord.js's escapeMarkdown runs a dozen regular expressions over the text, which was the largest single cost
 * of answering a command (bench:commands' profile), so results are remembered.
 */
export function escapeText(text: string): string {
  const known = escaped.get(text);
  if (known !== undefined) return known;
  const result = escapeMarkdown(text, ESCAPE_EVERYTHING).replace(/^(\s*)>/gm, '$1\\>');
  if (text.length <= ESCAPED_REMEMBERED_LENGTH) {
    if (escaped.size >= ESCAPED_REMEMBERED) escaped.clear();
    escaped.set(text, result);
  }
  return result;
}

/** Splits a leading "(label)" such as "(historical)" from the definition text. */
export function splitLabel(definition: string): { label: string | null; text: string } {
  const match = LABEL_PATTERN.exec(definition.trim());
  if (!match?.[1]) return { label: null, text: definition.trim() };
  return { label: match[1].trim(), text: definition.trim().slice(match[0].length) };
}

/** The definition as markdown: escaped, with its leading label in italics. */
export function formatDefinition(definition: string): string {
  const { label, text } = splitLabel(definition);
  const body = escapeText(text);
  return label ? `*(${escapeText(label)})* ${body}` : body;
}

/** "noun · /ipa/", leaving out whatever the entry lacks. */
export function formatPosAndIpa(entry: Pick<Entry, 'pos' | 'ipa'>): string {
  const parts = [entry.pos.trim() ? `**${escapeText(entry.pos.trim())}**` : '', entry.ipa.trim() ? escapeText(entry.ipa.trim()) : ''];
  return parts.filter(Boolean).join(' · ');
}

export function attribution(siteUrl: string): string {
  return `Word of the Day from ${new URL(siteUrl).host}`;
}

/** The embed for one entry, used by /wotd and by the daily post alike. */
export function entryEmbed(entry: Entry, options: EmbedOptions): APIEmbed {
  const heading = formatPosAndIpa(entry);
  const definition = formatDefinition(entry.definition);
  const description = heading ? `${heading}\n\n${definition}` : definition;
  return {
    title: clip(escapeText(entry.word), TITLE_LIMIT),
    url: options.siteUrl,
    description: clip(description, DESCRIPTION_LIMIT),
    color: ACCENT,
    footer: { text: `${entry.date} · ${attribution(options.siteUrl)}` },
  };
}
