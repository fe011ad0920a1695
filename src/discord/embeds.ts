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

/**
 * The most characters of one text that are escaped and shown: as long as an embed's description, the longest
 * place any text goes. Escaping takes time quadratic in a line's length (a 20 000-character line costs seconds),
 * so a service that sends a huge field must not get to make the bot escape all of it.
 */
export const ESCAPE_INPUT_LIMIT = DESCRIPTION_LIMIT;

/**
 * Text from the service as inert markdown: every formatting character, and line-leading headings, lists and
 * quotes, are escaped, so a definition always reads exactly as the service wrote it (up to ESCAPE_INPUT_LIMIT
 * characters; the rest could not be shown anyway).
 */
export function escapeText(text: string): string {
  return escapeMarkdown(clip(text, ESCAPE_INPUT_LIMIT), ESCAPE_EVERYTHING).replace(/^(\s*)>/gm, '$1\\>');
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
