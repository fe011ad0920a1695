import type { ChannelPoster } from '../schedule/poster.ts';
import { dmUserOf, type Subscription } from '../schedule/subscription.ts';
import type { LearningStore } from './learning-store.ts';

export interface ReviewReminderOptions {
  store: Pick<LearningStore, 'countDue'>;
  subscriptionOf(channelId: string): Promise<Subscription | null>;
  /** The line for `count` (at least 1) due words, in the DM's language (built in src/replies/, handed in). */
  line(count: number, language: string | null): string;
  now: () => number;
}

/**
 * Decorates the transport's poster: the daily DM of a member whose DM subscription has `review` on says, on a line
 * of its own, how many of their saved words are due for review when it is posted (one count on the learning store);
 * nothing when none is due. Channel posts and other DMs pass through unchanged.
 */
export function reviewReminderPoster(inner: ChannelPoster, options: ReviewReminderOptions): ChannelPoster {
  const poster: ChannelPoster = {
    async post(message) {
      const userId = dmUserOf(message.channelId);
      if (userId === null) return inner.post(message);
      const subscription = await options.subscriptionOf(message.channelId);
      if (subscription?.review !== true) return inner.post(message);
      const count = await options.store.countDue(userId, options.now());
      if (count <= 0) return inner.post(message);
      const line = options.line(count, subscription.language ?? null);
      return inner.post({ ...message, content: message.content ? `${message.content}\n${line}` : line });
    },
    findEarlierPost: (message, since) => inner.findEarlierPost(message, since),
  };
  if (inner.edit) poster.edit = inner.edit.bind(inner);
  if (inner.pin) poster.pin = inner.pin.bind(inner);
  return poster;
}
