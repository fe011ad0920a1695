import type { APIEmbed } from 'discord.js';
import { shortDefinition } from './entries.ts';
import type { PostStyle } from '../schedule/subscription.ts';
import { DEFAULT_LOOK, lookKey, type DateStyle, type PostLook, type PostPart } from '../schedule/post-look.ts';
import { footerDate, introDate } from './date-style.ts';
import type { Entry } from '../wotd/entry.ts';
import { ACCENT, attribution, entryEmbed, entryFooter, escapeText, type EmbedOptions } from './embeds.ts';
import { clip, DISCORD_LIMITS } from '../schedule/discord-limits.ts';
import type { IsoDate } from '../wotd/dates.ts';
import { shortDate } from './i18n/formats.ts';
import { translatorFor } from './i18n/translate.ts';

const SEPARATOR = ' — ';

/** Characters of the definition a compact post shows: one line on a phone. */
export const COMPACT_DEFINITION_LENGTH = 100;

/**
 * The word, its IPA and a one-line definition: for channels that want the daily word without the full embed. The
 * definition is short by design; the IPA (which the service may send at any length) gets what is left of the
 * description's 4,096, cut after escaping.
 */
export function compactEntryEmbed(entry: Entry, options: EmbedOptions): APIEmbed {
  const definition = shortDefinition(entry.definition, COMPACT_DEFINITION_LENGTH);
  const ipaRoom = DISCORD_LIMITS.embedDescription - (definition ? definition.length + SEPARATOR.length : 0);
  const ipa = entry.ipa.trim() ? clip(escapeText(entry.ipa.trim()), ipaRoom) : '';
  return {
    title: clip(escapeText(entry.word), DISCORD_LIMITS.embedTitle),
    url: options.siteUrl,
    description: [ipa, definition].filter(Boolean).join(SEPARATOR) || '—',
    color: ACCENT,
    footer: { text: entryFooter(entry, options) },
  };
}

const DEFAULT_LOOK_KEY = lookKey(DEFAULT_LOOK);

/**
 * The daily post's embed in a subscription's style, with the parts it shows and its date style; the full one with
 * every part and no date style is exactly what /wotd shows.
 */
export function dailyPostEmbed(entry: Entry, style: PostStyle, options: EmbedOptions, look: PostLook = DEFAULT_LOOK): APIEmbed {
  if (lookKey(look) !== DEFAULT_LOOK_KEY) return shapedEmbed(entry, style, options, look);
  return style === 'compact' ? compactEntryEmbed(entry, options) : entryEmbed(entry, options);
}

/**
 * The embed with the hidden parts emptied out of the usual one, so a part shown reads exactly as in /wotd. The word
 * (the title) is always there, so the embed is never empty.
 */
function shapedEmbed(entry: Entry, style: PostStyle, options: EmbedOptions, look: PostLook): APIEmbed {
  const shows = (part: PostPart) => look.parts.includes(part);
  const kept: Entry = {
    ...entry,
    pos: shows('pos') ? entry.pos : '',
    ipa: shows('ipa') ? entry.ipa : '',
    definition: shows('definition') ? entry.definition : '',
  };
  const embed = style === 'compact' ? compactEntryEmbed(kept, options) : entryEmbed(kept, options);
  const description = (embed.description ?? '').trim();
  const footer = [shows('date') ? footerDate(entry.date, look.dateStyle, options.locale) : '', attribution(options.siteUrl, options.locale)];
  return {
    title: embed.title ?? '',
    ...(shows('link') ? { url: options.siteUrl } : {}),
    ...(description && description !== '—' ? { description } : {}),
    color: ACCENT,
    footer: { text: clip(footer.filter(Boolean).join(' · '), DISCORD_LIMITS.footerText) },
  };
}

/**
 * What the scheduler needs to write a daily post in a subscription's language: the embed (in its style) and the
 * thread name's words after the word. `fallback` gives the language of a subscription that has none (the console's).
 */
export function dailyPostRendering(
  siteUrl: string,
  fallback?: () => string | undefined,
): {
  render: (entry: Entry, style: PostStyle, language?: string, look?: PostLook) => APIEmbed;
  threadSuffix: (day: IsoDate, language: string | undefined) => string;
  dateText: (day: IsoDate, language: string | undefined, style: DateStyle | null) => string;
} {
  const languageOf = (language: string | undefined) => language ?? fallback?.();
  return {
    render: (entry, style, language, look) => dailyPostEmbed(entry, style, { siteUrl, locale: languageOf(language) }, look),
    dateText: (day, language, style) => introDate(day, style, languageOf(language)),
    threadSuffix: (day, language) => {
      const locale = languageOf(language);
      return translatorFor(locale)('daily.threadSuffix', { date: shortDate(day, locale) });
    },
  };
}
