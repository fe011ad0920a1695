import type { ChannelPoster, DailyButton, DailyMessage } from '../schedule/poster.ts';
import { dmUserOf } from '../schedule/subscription.ts';
import { renderMessage } from './render.ts';
import { consoleLocale } from './console-locale.ts';
import { translatorFor } from '../replies/i18n/translate.ts';

/** Nonces remembered: Discord keeps them for minutes; this many covers days of console channels. */
const REMEMBERED_NONCES = 1_000;

/** Where a post's buttons are kept so `press` can press them (the console session): the number the post goes by. */
export interface PostBoard {
  postShown(post: { channelId: string; messageId: string; buttons: DailyButton[] }, source: string): number | undefined;
}

/**
 * The console's stand-in for a Discord channel: a daily post is printed, headed by the channel it is for, its buttons
 * (the daily quiz's) numbered and handed to `board`, so `press` presses them as in that channel.
 * Like Discord with enforce_nonce, a repeated nonce for a channel returns the first post instead of printing again;
 * only the latest REMEMBERED_NONCES are kept, as Discord too forgets them.
 */
export function createConsolePoster(options: { write: (text: string) => void; color: boolean; now?: () => Date; locale?: string; board?: PostBoard }): ChannelPoster {
  const locale = 'locale' in options ? options.locale : consoleLocale();
  const t = translatorFor(locale);
  const posted = new Map<string, string>();
  let count = 0;
  const now = options.now ?? (() => new Date());
  const source = (channelId: string) =>
    dmUserOf(channelId) === null ? t('console.post.sourceChannel', { channel: `#${channelId}` }) : t('console.post.sourceDm');
  /** The post (or its edit) as printed, its buttons numbered under the number the board gave it. */
  const render = (channelId: string, messageId: string, message: { content?: string | undefined; embeds: DailyMessage['embeds']; buttons?: DailyButton[] | undefined }) => {
    const buttons = message.buttons ?? [];
    const number = options.board?.postShown({ channelId, messageId, buttons }, source(channelId));
    return renderMessage(
      { content: message.content, embeds: message.embeds, buttons },
      { color: options.color, now: now(), locale, ...(number === undefined ? {} : { messageNumber: number }) },
    );
  };
  return {
    async findEarlierPost(message) {
      const id = posted.get(`${message.channelId}:${message.nonce}`);
      return id ? { messageId: id } : null;
    },
    async edit(channelId, messageId, update) {
      const rendered = render(channelId, messageId, update);
      options.write(`${t('console.post.edited', { id: messageId, channel: `#${channelId}` })}\n${rendered}\n\n`);
    },
    async post(message) {
      const key = `${message.channelId}:${message.nonce}`;
      const earlier = posted.get(key);
      if (earlier) return { messageId: earlier };
      count += 1;
      const id = `console-${count}`;
      posted.set(key, id);
      if (posted.size > REMEMBERED_NONCES) {
        const oldest = posted.keys().next().value;
        if (oldest !== undefined) posted.delete(oldest);
      }
      // At the console a channel's id and a role's id are their names.
      const content = message.content?.replace(/<@&([^>]+)>/g, '@$1');
      const rendered = render(message.channelId, id, { content, embeds: message.embeds, buttons: message.buttons });
      const heading = dmUserOf(message.channelId) === null ? t('console.post.channel', { channel: `#${message.channelId}` }) : t('console.post.dm');
      const extras = [
        message.thread ? t('console.post.thread', { name: message.thread.name }) : '',
        message.publish ? t('console.post.published') : '',
        message.webhook ? t('console.post.webhook', { name: message.webhook.name, avatar: message.webhook.avatarUrl ?? 'none' }) : '',
      ].filter(Boolean);
      options.write(`${heading}\n${[rendered, ...extras].join('\n')}\n\n`);
      return { messageId: id };
    },
  };
}
