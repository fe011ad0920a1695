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
      const extras = [
        message.thread ? `(a thread “${message.thread.name}” is opened under it)` : '',
        message.publish ? '(published to the servers that follow the channel)' : '',
      ].filter(Boolean);
      options.write(`Daily word in ${where}:\n${[rendered, ...extras].join('\n')}\n\n`);
      return { messageId: id };
    },
  };
}
