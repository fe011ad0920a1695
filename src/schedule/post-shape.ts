import type { APIEmbed } from 'discord.js';
import type { IsoDate } from '../wotd/dates.ts';
import { clip, DISCORD_LIMITS } from './discord-limits.ts';

/**
 * A subscription's own shape of its post: the embed's colour, and an intro line above the embed with placeholders.
 * Admins type these, so they are checked when saved (parseColour, checkIntro) and rendered inert when posted: the
 * intro's own text is plain text (every markdown character escaped, mentions and @everyone broken), and the only
 * mention it can hold is the subscription's role, through {role}.
 */

/** The most characters an intro may have as typed (placeholders included). */
export const INTRO_LIMIT = 200;

export const INTRO_PLACEHOLDERS = ['word', 'date', 'role'] as const;
export type IntroPlaceholder = (typeof INTRO_PLACEHOLDERS)[number];

const PLACEHOLDER = /\{([^{}]*)\}/g;

/** `#1abc9c` or `1ABC9C` → 0x1abc9c; null for anything else. */
export function parseColour(text: string): number | null {
  const match = /^#?([0-9a-f]{6})$/i.exec(text.trim());
  return match?.[1] ? Number.parseInt(match[1], 16) : null;
}

export function colourText(colour: number): string {
  return `#${colour.toString(16).padStart(6, '0')}`;
}

/** What is wrong with an intro as typed: too long, a placeholder the bot does not know, or a line break; null if fine. */
export function checkIntro(text: string): { problem: 'too_long'; limit: number } | { problem: 'unknown_placeholder'; name: string } | { problem: 'line_break' } | null {
  if (text.length > INTRO_LIMIT) return { problem: 'too_long', limit: INTRO_LIMIT };
  if (/[\r\n]/.test(text)) return { problem: 'line_break' };
  for (const match of text.matchAll(PLACEHOLDER)) {
    const name = match[1] ?? '';
    if (!(INTRO_PLACEHOLDERS as readonly string[]).includes(name)) return { problem: 'unknown_placeholder', name };
  }
  return null;
}

/** Admin text as plain text: markdown escaped, mentions, tags and @everyone/@here broken with a zero-width space. */
function inert(text: string, atStart: boolean): string {
  const escaped = text
    .replace(/[\\*_`~|[\]]/g, '\\$&')
    .replace(/@/g, '@\u200b')
    .replace(/</g, '<\u200b');
  // A heading, quote or list marker counts only at the start of the line.
  return atStart ? escaped.replace(/^(\s*)([#>-])/, '$1\\$2') : escaped;
}

/**
 * The content above the embed: the intro with {word} (the embed's title, already escaped), {date} (the local day
 * in the channel's zone, written in its date style when the caller gives `dateText`) and {role} (the role's mention) filled in; without an intro, the role's mention alone as
 * before. An intro without {role} still mentions the role, first. Within Discord's 2,000.
 */
export function postContent(options: { intro?: string | undefined; roleId: string | null; embed: APIEmbed; localDay: IsoDate; dateText?: string | undefined }): string | undefined {
  const mention = options.roleId ? `<@&${options.roleId}>` : '';
  if (options.intro === undefined || options.intro.trim() === '') return mention || undefined;
  const values: Record<IntroPlaceholder, string> = { word: options.embed.title ?? '', date: options.dateText ?? options.localDay, role: mention };
  let rendered = '';
  let last = 0;
  for (const match of options.intro.matchAll(PLACEHOLDER)) {
    rendered += inert(options.intro.slice(last, match.index), last === 0);
    rendered += values[(match[1] ?? '') as IntroPlaceholder] ?? '';
    last = match.index + match[0].length;
  }
  rendered += inert(options.intro.slice(last), last === 0);
  const withRole = mention && !options.intro.includes('{role}') ? `${mention} ${rendered}` : rendered;
  return clip(withRole, DISCORD_LIMITS.content);
}

/** The embed in the subscription's colour (the shared embed is not changed). */
export function coloured(embed: APIEmbed, colour: number | undefined): APIEmbed {
  return colour === undefined ? embed : { ...embed, color: colour };
}
