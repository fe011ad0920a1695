import type { REST } from 'discord.js';
import type { ChannelPoster } from '../schedule/poster.ts';
import { createChannelPoster, postTurnsFor, type ChannelPosterOptions } from './channel-poster.ts';
import { dailyPins } from './daily-pin.ts';
import { createForumPoster } from './forum-poster.ts';

/**
 * The daily post wherever a subscription points: a message in a text or announcement channel (or a DM), a new post
 * in a forum or media channel; and its pin, which the scheduler asks for once the post is recorded. Every kind of
 * post takes its turn of one pace, and they share the bot's user id (asked of Discord once when not given). A pin or
 * unpin takes its turn only when no post waits (src/discord/post-pace.ts): members wait for the posts, not the pins.
 */
export function createDailyPoster(rest: REST, options: ChannelPosterOptions = {}): ChannelPoster {
  const turns = postTurnsFor(rest, options);
  const channels = createChannelPoster(rest, options, turns);
  const forums = createForumPoster(rest, options, turns);
  return {
    post(message) {
      return message.forumPost ? forums.post(message) : channels.post(message);
    },
    findEarlierPost(message, since) {
      return message.forumPost ? forums.findEarlierPost(message, since) : channels.findEarlierPost(message, since);
    },
    pin: dailyPins(rest, turns),
  };
}
