/**
 * A subscription's webhook identity (issue 35): the name and avatar its posts show, posted through the bot's own
 * webhook in the channel. Admins type both, so they are checked here before they are saved, by Discord's rules for
 * a webhook's name (its create-webhook and nickname documentation) and ours for an avatar URL. The bot never fetches
 * the avatar: Discord does, from the URL handed over as `avatar_url` with each post.
 */

/** Discord's longest webhook name. Counted in UTF-16 code units, never fewer than Discord's characters. */
export const WEBHOOK_NAME_LIMIT = 80;
/** The longest avatar URL kept: far above any image host's, far below what would bloat every post. */
export const WEBHOOK_AVATAR_LIMIT = 512;

/** Substrings Discord refuses in a webhook's name, whatever their case. */
const FORBIDDEN_WORDS = ['discord', 'clyde'] as const;
/** Substrings Discord refuses in any nickname. */
const FORBIDDEN_MARKS = ['@', '#', ':', '```'] as const;
/** Names Discord refuses whole. */
const RESERVED_NAMES = ['everyone', 'here'] as const;

export type WebhookNameProblem =
  | { problem: 'length'; limit: number }
  | { problem: 'word'; word: string }
  | { problem: 'mark'; mark: string }
  | { problem: 'reserved'; name: string };

/** A name as Discord keeps it: trimmed, runs of spaces made one, invisible format characters dropped. */
export function normalWebhookName(text: string): string {
  return text.replace(/[\p{Cc}\p{Cf}]/gu, '').replace(/\s+/gu, ' ').trim();
}

/** What Discord would refuse in this (normalised) name, or null when it takes it. */
export function checkWebhookName(name: string): WebhookNameProblem | null {
  if (name.length < 1 || name.length > WEBHOOK_NAME_LIMIT) return { problem: 'length', limit: WEBHOOK_NAME_LIMIT };
  const lower = name.toLowerCase();
  const word = FORBIDDEN_WORDS.find((candidate) => lower.includes(candidate));
  if (word) return { problem: 'word', word };
  const mark = FORBIDDEN_MARKS.find((candidate) => name.includes(candidate));
  if (mark) return { problem: 'mark', mark };
  const reserved = RESERVED_NAMES.find((candidate) => lower === candidate);
  if (reserved) return { problem: 'reserved', name: reserved };
  return null;
}

export type WebhookAvatarProblem = 'too_long' | 'not_url' | 'not_https' | 'credentials';

/**
 * The avatar URL as Discord will be handed it (the URL parser's own spelling: percent-encoded, so it holds no
 * spaces, quotes or angle brackets), or what is wrong with it as typed: longer than the limit, not a URL (or one
 * with spaces or control characters), not https, or carrying a user name or password (they would be handed to
 * Discord with every post and shown in exports).
 */
export function parseWebhookAvatar(text: string): { ok: true; url: string } | { ok: false; problem: WebhookAvatarProblem } {
  const refuse = (problem: WebhookAvatarProblem) => ({ ok: false as const, problem });
  if (text.length > WEBHOOK_AVATAR_LIMIT) return refuse('too_long');
  if (/[\s\p{Cc}\p{Cf}]/u.test(text)) return refuse('not_url');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse('not_url');
  }
  if (url.protocol !== 'https:') return refuse('not_https');
  if (url.username !== '' || url.password !== '') return refuse('credentials');
  if (url.hostname === '') return refuse('not_url');
  if (url.href.length > WEBHOOK_AVATAR_LIMIT) return refuse('too_long');
  return { ok: true, url: url.href };
}
