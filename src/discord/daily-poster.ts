import type { REST } from 'discord.js';
import type { ChannelPoster } from '../schedule/poster.ts';
import { createChannelPoster, DEFAULT_POSTS_PER_SECOND, type ChannelPosterOptions } from './channel-poster.ts';
import { dailyPins } from './daily-pin.ts';
import { createForumPoster } from './forum-poster.ts';
import { pacer } from './post-pace.ts';

/**
 * The daily post wherever a subscription points: a message in a text or announcement channel (or a DM), a new post
 * in a forum or media channel, pinned when the subscription asks. Every kind of post takes its turn of one pace; a
 * pin or unpin takes one only when no post waits (src/discord/post-pace.ts): members wait for the posts, not the pins.
 */
export function createDailyPoster(rest: REST, options: ChannelPosterOptions = {}): ChannelPoster {
  const shared = { ...options, waitForTurn: options.waitForTurn ?? pacer(options.postsPerSecond ?? DEFAULT_POSTS_PER_SECOND) };
  const channels = createChannelPoster(rest, shared);
  const forums = createForumPoster(rest, shared);
  const pin = dailyPins(rest, () => shared.waitForTurn('after'));
  return {
    async post(message) {
      if (message.forumPost) return forums.post(message);
      return pin(message, await channels.post(message));
    },
    async findEarlierPost(message, since) {
      if (message.forumPost) return forums.findEarlierPost(message, since);
      const found = await channels.findEarlierPost(message, since);
      return found && pin(message, found);
    },
  };
}
