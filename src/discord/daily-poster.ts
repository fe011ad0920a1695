import type { REST } from 'discord.js';
import type { ChannelPoster } from '../schedule/poster.ts';
import { createChannelPoster, postTurnsFor, type ChannelPosterOptions } from './channel-poster.ts';
import { dailyPins } from './daily-pin.ts';
import { createForumPoster } from './forum-poster.ts';

/**
 * The daily post wherever a subscription points: a message in a text or announcement channel (or a DM), a new post
 * in a forum or media channel, pinned when the subscription asks. Every kind of post takes its turn of one pace, and
 * they share the bot's user id (asked of Discord once when not given). A pin or unpin takes its turn only when no
 * post waits (src/discord/post-pace.ts): members wait for the posts, not the pins.
 */
export function createDailyPoster(rest: REST, options: ChannelPosterOptions = {}): ChannelPoster {
  const turns = postTurnsFor(rest, options);
  const channels = createChannelPoster(rest, options, turns);
  const forums = createForumPoster(rest, options, turns);
  const pin = dailyPins(rest, turns);
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
