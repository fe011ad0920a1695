import type { ChannelPoster } from '../schedule/poster.ts';
import { dmUserOf } from '../schedule/subscription.ts';
import { renderMessage } from './render.ts';

/**
 * The console's stand-in for a Discord channel: a daily post is printed, headed by the channel it is for.
 * Like Discord with enforce_nonce, a repeated nonce for a channel returns the first post instead of printing again.
 */
export function createConsolePoster(options: { write: (text: string) => void; color: boolean; now?: () => Date }): ChannelPoster {
  const posted = new Map<string, string>();
  const now = options.now ?? (() => new Date());
  return {
    async post(message) {
      const key = `${message.channelId}:${message.nonce}`;
      const earlier = posted.get(key);
      if (earlier) return { messageId: earlier };
      const id = `console-${posted.size + 1}`;
      posted.set(key, id);
      // At the console a channel's id and a role's id are their names.
      const content = message.content?.replace(/<@&([^>]+)>/g, '@$1');
      const rendered = renderMessage({ content, embeds: message.embeds }, { color: options.color, now: now() });
      const where = dmUserOf(message.channelId) === null ? `#${message.channelId}` : 'your DMs';
      options.write(`Daily word in ${where}:\n${rendered}\n\n`);
      return { messageId: id };
    },
  };
}
