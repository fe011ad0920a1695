import type { SubscriptionSettings } from '../schedule/subscription-service.ts';
import type { ForumTag } from '../schedule/subscription.ts';
import { andList } from './i18n/formats.ts';
import type { Translate } from './i18n/translate.ts';
import { postsAsThreads, type ChannelRef, type ForumFacts } from './interactions.ts';
import { quoteInput } from './messages.ts';

/**
 * The forum side of /wotd-subscribe: the `forum-tag` option read against the forum's own tags, and the settings that
 * make no sense for a forum post (a thread under it, a pin, the quiz's buttons: a forum post is a thread of its own).
 */

/** A forum tag's name as Discord allows it: at most 20 characters. */
export const FORUM_TAG_NAME_LIMIT = 20;

function fold(text: string): string {
  return text.normalize('NFKC').trim().toLocaleLowerCase();
}

function tagList(facts: ForumFacts, t: Translate, locale: string | undefined): string {
  return facts.tags.length === 0 ? t('subscribe.value.none') : andList(facts.tags.map((tag) => `**${tag.name}**`), locale);
}

/** The tag `forum-tag` names (by name, any case, or by id), or the message saying why it cannot be used. */
export function readForumTag(
  typed: string | null,
  channel: ChannelRef,
  facts: ForumFacts | null,
  context: { where: string; t: Translate; locale: string | undefined },
): { ok: true; forumTag?: ForumTag } | { ok: false; message: string } {
  const { where, t, locale } = context;
  if (typed === null) return { ok: true };
  if (!postsAsThreads(channel.kind)) return { ok: false, message: t('subscribe.error.forumTagNotForum', { channel: where }) };
  if (!facts) return { ok: false, message: t('subscribe.error.forumUnreadable', { channel: where, kind: channel.kind }) };
  const wanted = fold(typed);
  const tag = facts.tags.find((known) => fold(known.name) === wanted || known.id === typed.trim());
  if (!tag) return { ok: false, message: t('subscribe.error.forumTagUnknown', { channel: where, typed: quoteInput(typed), tags: tagList(facts, t, locale), count: facts.tags.length }) };
  return { ok: true, forumTag: { id: tag.id, name: tag.name } };
}

/**
 * What is wrong with the settings for this channel, or null: a forum that requires a tag without one, settings that do
 * not apply to a forum post, or a forum the bot cannot read.
 */
export function forumSettingsProblem(
  settings: SubscriptionSettings,
  channel: ChannelRef,
  facts: ForumFacts | null,
  context: { where: string; t: Translate; locale: string | undefined },
): string | null {
  const { where, t, locale } = context;
  if (!postsAsThreads(channel.kind)) return null;
  if (!facts) return t('subscribe.error.forumUnreadable', { channel: where, kind: channel.kind });
  const notHere = [
    settings.openThread ? t('option.thread.name') : '',
    settings.pin ? t('option.pin.name') : '',
    settings.quiz ? t('option.quiz.name') : '',
    // A forum post is made by the bot itself (POST /channels/:id/threads); a webhook identity would not show.
    settings.webhookName !== null ? t('option.webhookName.name') : '',
  ].filter(Boolean);
  if (notHere.length > 0) {
    return t('subscribe.error.forumNotApplicable', { channel: where, kind: channel.kind, options: andList(notHere.map((name) => `**${name}**`), locale), count: notHere.length });
  }
  if (facts.requireTag && !settings.forumTag) return t('subscribe.error.forumTagRequired', { channel: where, tags: tagList(facts, t, locale) });
  // A tag removed from the forum since it was chosen: Discord would refuse every post.
  if (settings.forumTag && !facts.tags.some((tag) => tag.id === settings.forumTag?.id)) {
    return t('subscribe.error.forumTagGone', { channel: where, tag: settings.forumTag.name, tags: tagList(facts, t, locale) });
  }
  return null;
}
