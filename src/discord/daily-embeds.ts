import type { APIEmbed } from 'discord.js';
import { shortDefinition } from '../replies/entries.ts';
import type { PostStyle } from '../schedule/subscription.ts';
import type { Entry } from '../wotd/entry.ts';
import { ACCENT, attribution, clip, entryEmbed, escapeText, type EmbedOptions } from './embeds.ts';

/** Characters of the definition a compact post shows: one line on a phone. */
export const COMPACT_DEFINITION_LENGTH = 100;

/** The word, its IPA and a one-line definition: for channels that want the daily word without the full embed. */
export function compactEntryEmbed(entry: Entry, options: EmbedOptions): APIEmbed {
  const ipa = entry.ipa.trim() ? escapeText(entry.ipa.trim()) : '';
  const definition = shortDefinition(entry.definition, COMPACT_DEFINITION_LENGTH);
  return {
    title: clip(escapeText(entry.word), 256),
    url: options.siteUrl,
    description: [ipa, definition].filter(Boolean).join(' — ') || '—',
    color: ACCENT,
    footer: { text: `${entry.date} · ${attribution(options.siteUrl)}` },
  };
}

/** The daily post's embed in a subscription's style; the full one is exactly what /wotd shows. */
export function dailyPostEmbed(entry: Entry, style: PostStyle, options: EmbedOptions): APIEmbed {
  return style === 'compact' ? compactEntryEmbed(entry, options) : entryEmbed(entry, options);
}
