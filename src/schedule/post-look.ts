import { z } from 'zod';

/**
 * Which parts of the daily post's embed a subscription shows, and how it writes the date. The word itself is always
 * shown (it is the embed's title), so an embed is never empty whatever parts are left out.
 */

/** part of speech, IPA, definition, the date in the footer, the title's link to the site; in the embed's order. */
export const POST_PARTS = ['pos', 'ipa', 'definition', 'date', 'link'] as const;
export type PostPart = (typeof POST_PARTS)[number];

/** long: 27 November 2026; short: the language's numeric date (27/11/2026); iso: 2026-11-27. */
export const DATE_STYLES = ['long', 'short', 'iso'] as const;
export type DateStyle = (typeof DATE_STYLES)[number];

export const postPartsSchema = z.array(z.enum(POST_PARTS)).max(POST_PARTS.length);
export const dateStyleSchema = z.enum(DATE_STYLES);

/** What the embed shows besides the word: the parts, and the date's style (null: today's look). */
export interface PostLook {
  parts: readonly PostPart[];
  dateStyle: DateStyle | null;
}

export const DEFAULT_LOOK: Readonly<PostLook> = { parts: POST_PARTS, dateStyle: null };

/** The parts in the embed's order, each once; all of them is stored as nothing (today's look). */
export function storedParts(parts: readonly PostPart[]): PostPart[] | undefined {
  const ordered = POST_PARTS.filter((part) => parts.includes(part));
  return ordered.length === POST_PARTS.length ? undefined : ordered;
}

/** A stored subscription's look (fields it lacks read as today's look). */
export function lookOf(subscription: { parts?: readonly PostPart[] | undefined; dateStyle?: DateStyle | undefined }): PostLook {
  if (subscription.parts === undefined && subscription.dateStyle === undefined) return DEFAULT_LOOK;
  return { parts: subscription.parts ?? POST_PARTS, dateStyle: subscription.dateStyle ?? null };
}

/** A look's key among the embeds rendered once per tick and shared by every channel with that look. */
export function lookKey(look: PostLook): string {
  if (look === DEFAULT_LOOK) return '';
  return `${POST_PARTS.filter((part) => look.parts.includes(part)).join(',')}|${look.dateStyle ?? ''}`;
}

/**
 * The `parts` option as typed, English names (the member's own language's are mapped by the caller): `all`, or
 * names separated by commas or spaces, `word` allowed and ignored (always shown). The first unknown name when one is.
 */
export function parsePostParts(
  text: string,
  nameOf: (typed: string) => PostPart | 'word' | 'all' | undefined,
): { ok: true; parts: PostPart[] } | { ok: false; unknown: string } | { ok: false; unknown: null } {
  const typed = text.split(/[\s,、，;]+/).filter(Boolean);
  if (typed.length === 0) return { ok: false, unknown: null };
  const parts = new Set<PostPart>();
  for (const name of typed) {
    const part = nameOf(name);
    if (part === undefined) return { ok: false, unknown: name };
    if (part === 'all') POST_PARTS.forEach((each) => parts.add(each));
    else if (part !== 'word') parts.add(part);
  }
  return { ok: true, parts: POST_PARTS.filter((part) => parts.has(part)) };
}
