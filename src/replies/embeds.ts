import type { APIEmbed } from 'discord.js';
import type { Entry } from '../wotd/entry.ts';
import { clip, DISCORD_LIMITS } from '../schedule/discord-limits.ts';
import { partOfSpeech, shortDate } from './i18n/formats.ts';
import { translatorFor, type Translate } from './i18n/translate.ts';
import { PerEntry } from './per-entry.ts';

export { clip } from '../schedule/discord-limits.ts';

export interface EmbedOptions {
  /** Where the title links: the service's site. */
  siteUrl: string;
  /** The language of the embed's own words (labels, footer), a Discord locale; English when absent. */
  locale?: string | undefined;
}

/** The colour of every embed the bot sends. */
export const ACCENT = 0x5865f2;
const TITLE_LIMIT = DISCORD_LIMITS.embedTitle;
const DESCRIPTION_LIMIT = DISCORD_LIMITS.embedDescription;
const LABEL_PATTERN = /^\(([^()]{1,60})\)\s*/;

/**
 * A raw link as Discord reads one: http(s)://, no space or `<`, not ending in punctuation. Discord takes everything
 * in it as part of the link, so it needs no escapes, and escapes there would change where it leads.
 */
const RAW_LINK = /(https?:\/\/[^\s<]+[^<.,:;"')\]\s])/;

/** Outside links: escape every character that formats text or opens a masked link. */
function escapeInline(text: string): string {
  return text.replace(/[\\*_`~|[]/g, '\\$&');
}

/** Escaped texts remembered (up to so many, of up to so many characters); the same entries are rendered over and over. */
const ESCAPED_REMEMBERED = 5_000;
const ESCAPED_REMEMBERED_LENGTH = 1_024;
const escaped = new Map<string, string>();

/**
 * The most characters of one text that are escaped and shown: as long as an embed's description, the longest
 * place any text goes: a service that sends a huge field must not get to make the bot work through all of it.
 */
export const ESCAPE_INPUT_LIMIT = DESCRIPTION_LIMIT;

/**
 * Text from the service as inert markdown: it reads exactly as the service wrote it. Every character that formats
 * (emphasis, code, strikethrough, spoilers) or opens a masked link is backslash-escaped, as are line-leading
 * headings, quotes and list markers. Mentions and tags (`<@…>`, `<@&…>`, `<#…>`, `<t:…>`, `</…>`), `@everyone` and
 * `@here` are broken with a zero-width space, so nothing would ping or render even without allowed_mentions: a
 * backslash before `<` would not do, since a raw link just before it would take the backslash in. Raw links stay
 * links, otherwise untouched. At most ESCAPE_INPUT_LIMIT characters are kept; the rest could not be shown anyway.
 */
export function escapeText(text: string): string {
  const known = escaped.get(text);
  if (known !== undefined) return known;
  const result = clip(text, ESCAPE_INPUT_LIMIT)
    .split(RAW_LINK)
    .map((part, index) => (index % 2 === 1 ? part : escapeInline(part)))
    .join('')
    .replace(/@(?=everyone|here)/g, '@\u200b')
    .replace(/<(?=[@#/:]|[a-z]+:)/gi, '<\u200b')
    // A marker at the very end is escaped too: the text may be followed by a space where it is used.
    .replace(/^([^\S\n]*)(#|>|[-+](?![^#\s]))/gm, '$1\\$2')
    .replace(/^([^\S\n]*\d+)\.(?!\S)/gm, '$1\\.');
  // The same entries are rendered over and over (bench:commands' profile), so short texts' results are remembered.
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

/** "noun · /ipa/", leaving out whatever the entry lacks; a known part of speech in the reader's language. */
export function formatPosAndIpa(entry: Pick<Entry, 'pos' | 'ipa'>, t: Translate = translatorFor(undefined)): string {
  const pos = entry.pos.trim() ? partOfSpeech(entry.pos, t) : '';
  const parts = [pos ? `**${escapeText(pos)}**` : '', entry.ipa.trim() ? escapeText(entry.ipa.trim()) : ''];
  return parts.filter(Boolean).join(' · ');
}

/**
 * The site's attribution line, by site URL and language: every answer carries one, and parsing the URL each time
 * showed in profiles.
 */
const attributions = new Map<string, string>();

export function attribution(siteUrl: string, locale?: string | null): string {
  const key = `${locale ?? ''} ${siteUrl}`;
  let line = attributions.get(key);
  if (line === undefined) {
    line = translatorFor(locale)('embed.attribution', { site: new URL(siteUrl).host });
    // A bot has one site URL; tests make a few. Kept small whatever a caller passes.
    if (attributions.size >= 64) attributions.clear();
    attributions.set(key, line);
  }
  return line;
}

/** An entry's embed texts in one language, for one site. */
interface EmbedTexts {
  readonly siteUrl: string;
  readonly title: string;
  readonly description: string;
  readonly footer: string;
}

const embedTexts = new PerEntry<EmbedTexts>();

/** The embed for one entry, used by /wotd and by the daily post alike: a new object each time, of texts made once. */
export function entryEmbed(entry: Entry, options: EmbedOptions): APIEmbed {
  const key = options.locale ?? '';
  let texts = embedTexts.get(entry, key);
  if (texts?.siteUrl !== options.siteUrl) texts = embedTexts.keep(entry, key, makeEmbedTexts(entry, options));
  return {
    title: texts.title,
    url: options.siteUrl,
    description: texts.description,
    color: ACCENT,
    footer: { text: texts.footer },
  };
}

function makeEmbedTexts(entry: Entry, options: EmbedOptions): EmbedTexts {
  const heading = formatPosAndIpa(entry, translatorFor(options.locale));
  const definition = formatDefinition(entry.definition);
  const description = heading ? `${heading}\n\n${definition}` : definition;
  return {
    siteUrl: options.siteUrl,
    title: clip(escapeText(entry.word), TITLE_LIMIT),
    description: clip(description, DESCRIPTION_LIMIT),
    footer: entryFooter(entry, options),
  };
}

/** "2025-01-14 · Word of the Day from wotd.site": the day (in the reader's short date) and the credit. */
export function entryFooter(entry: Pick<Entry, 'date'>, options: EmbedOptions): string {
  return `${shortDate(entry.date, options.locale)} · ${attribution(options.siteUrl, options.locale)}`;
}
