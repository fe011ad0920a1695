import { Routes, type REST } from 'discord.js';
import { DeliveryError } from '../schedule/poster.ts';
import { dmUserOf } from '../schedule/subscription.ts';

/** DM channels remembered by a poster: members who unsubscribe or come and go must not grow it for good. */
export const DM_CHANNELS_REMEMBERED = 10_000;

const SNOWFLAKE = /^\d{1,20}$/;

/**
 * The Discord channel of a subscription's channel id: itself, or for a DM subscription (`dm:<user id>`) the bot's DM
 * channel with that user, opened (POST /users/@me/channels) on its first post and remembered. Discord keeps one DM
 * channel per user, so the nonce of a retry lands in the same channel as the first attempt.
 */
export function dmChannels(rest: REST, remember = DM_CHANNELS_REMEMBERED): (channelId: string) => Promise<string> {
  const opened = new Map<string, string>();
  return async (channelId) => {
    const userId = dmUserOf(channelId);
    if (userId === null) return channelId;
    const known = opened.get(userId);
    if (known) return known;
    const answer: unknown = await rest.post(Routes.userChannels(), { body: { recipient_id: userId } });
    const id = typeof answer === 'object' && answer !== null && 'id' in answer ? answer.id : undefined;
    // Discord's answer is checked like any outside input: its id goes into the post's URL.
    if (typeof id !== 'string' || !SNOWFLAKE.test(id)) {
      throw new DeliveryError('transient', { kind: 'noDmChannel' });
    }
    opened.set(userId, id);
    // Opening again gives the same channel, so forgetting the oldest costs one request at its owner's next post.
    if (opened.size > remember) opened.delete(opened.keys().next().value ?? userId);
    return id;
  };
}
