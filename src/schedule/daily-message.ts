import type { APIEmbed } from 'discord.js';
import type { IsoDate } from '../wotd/dates.ts';
import { clip, DISCORD_LIMITS } from './discord-limits.ts';
import { coloured, postContent } from './post-shape.ts';
import { deliveryNonce, type DailyMessage } from './poster.ts';
import type { Subscription } from './subscription.ts';

/**
 * The day's message to a subscription's channel: its intro (or role mention) and the day's embed in its colour.
 * `threadSuffix` follows the word in the thread's name (default: the service day); `localDay` is the channel's own
 * date of the post, for the intro's {date} (default: the service day).
 */
export function buildMessage(
  subscription: Subscription,
  embed: APIEmbed,
  day: IsoDate,
  shape: { threadSuffix?: string | undefined; localDay?: IsoDate; dateText?: string | undefined } = {},
): DailyMessage {
  const message: DailyMessage = {
    channelId: subscription.channelId,
    channelName: subscription.channelName,
    day,
    embeds: [coloured(embed, subscription.colour)],
    mentionRoleId: subscription.roleId,
    nonce: deliveryNonce(subscription.channelId, day),
  };
  const content = postContent({ intro: subscription.intro, roleId: subscription.roleId, embed, localDay: shape.localDay ?? day, dateText: shape.dateText });
  if (content) message.content = content;
  if (subscription.forum === true) {
    // A forum post is a thread of its own: a thread under it, publishing or pinning it do not apply.
    message.forumPost = { title: threadName(embed, shape.threadSuffix ?? day), ...(subscription.forumTag ? { tagId: subscription.forumTag.id } : {}) };
    return message;
  }
  if (subscription.openThread === true) message.thread = { name: threadName(embed, shape.threadSuffix ?? day) };
  if (subscription.publish === true) message.publish = true;
  if (subscription.pin === true) message.pin = {};
  if (subscription.webhookName) message.webhook = { name: subscription.webhookName, ...(subscription.webhookAvatar ? { avatarUrl: subscription.webhookAvatar } : {}) };
  return message;
}

/**
 * "serendipity — word of the day, 2025-01-14": the word as plain text (the title is escaped markdown), then the
 * suffix the replies layer wrote in the post's language (the bare day without one), within Discord's 100.
 */
export function threadName(embed: APIEmbed, suffix: string): string {
  const word = (embed.title ?? '').replace(/\\(.)/g, '$1').trim();
  const name = word ? `${word} — ${suffix}` : suffix;
  return clip(name, DISCORD_LIMITS.threadName);
}
