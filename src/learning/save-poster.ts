import type { ChannelPoster, DailyButton } from '../schedule/poster.ts';
import type { Subscription } from '../schedule/subscription.ts';
import type { IsoDate } from '../wotd/dates.ts';

export interface SavePosterOptions {
  subscriptionOf(channelId: string): Promise<Subscription | null>;
  /**
   * The Save button for the word of `day`, in the post's language (built in src/replies/, handed in): the same id
   * and handler as /wotd's Save, so it saves to the list of whoever presses it.
   */
  button(day: IsoDate, language: string | null): DailyButton;
}

/**
 * Decorates the transport's poster: every daily post (a channel's or a DM, the quiz too) gets a Save button for its
 * day's word, on a row of its own below any buttons it has. It sits next to the transport, under the quiz, so the
 * quiz's post keeps its answers above Save; the quiz's reveal, which replaces the buttons, puts Save back itself.
 * Only buttons change: the nonce and the embeds, by which an earlier attempt's post is found, stay as they were.
 */
export function savePoster(inner: ChannelPoster, options: SavePosterOptions): ChannelPoster {
  const poster: ChannelPoster = {
    async post(message) {
      if (!message.day) return inner.post(message);
      const subscription = await options.subscriptionOf(message.channelId);
      const save = options.button(message.day, subscription?.language ?? null);
      const buttons = message.buttons ?? [];
      if (buttons.some((button) => button.customId === save.customId)) return inner.post(message);
      return inner.post({ ...message, buttons: [...buttons, { ...save, newRow: buttons.length > 0 }] });
    },
    findEarlierPost: (message, since) => inner.findEarlierPost(message, since),
  };
  if (inner.edit) poster.edit = inner.edit.bind(inner);
  if (inner.pin) poster.pin = inner.pin.bind(inner);
  return poster;
}
