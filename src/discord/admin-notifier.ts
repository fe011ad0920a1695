import { Routes, type REST } from 'discord.js';
import type { Logger } from '../config/logger.ts';
import { adminNoticeText, noticeLocale } from '../replies/admin-notice-text.ts';
import { noticeRecipient, type StatusNotifier } from '../schedule/admin-notices.ts';
import { dmChannels } from './dm-channels.ts';

const SNOWFLAKE = /^[1-9]\d{0,19}$/;

/**
 * Tells a subscription's admin about its change of state on Discord: by DM to the member who last configured it,
 * and when that cannot be delivered (DMs closed, no shared server, no such member), in the notice channel the
 * subscription names. Nothing in it may ping: mentions are shown, never notified.
 */
export function createAdminNotifier(
  rest: REST,
  options: { logger: Logger; /** A server's preferred locale, when the client knows it. */ serverLocaleOf?: (guildId: string) => string | undefined },
): StatusNotifier {
  const dmOf = dmChannels(rest, 1_000);
  const send = async (channelId: string, content: string): Promise<void> => {
    await rest.post(Routes.channelMessages(channelId), { body: { content, allowed_mentions: { parse: [] } } });
  };
  return {
    async notify(subscription, notice) {
      const named = noticeRecipient(subscription);
      const serverLocale = options.serverLocaleOf?.(subscription.guildId);
      // A stored id is checked like any outside input before it goes into a request.
      const recipient = named !== null && SNOWFLAKE.test(named) ? named : null;
      let dmFailure: unknown = new Error('no member to DM: nobody who configured this subscription is known');
      if (recipient) {
        try {
          await send(await dmOf(`dm:${recipient}`), adminNoticeText(subscription, notice, { locale: noticeLocale(subscription, 'dm', serverLocale) }));
          return 'dm';
        } catch (error) {
          dmFailure = error;
          options.logger.warn({ channelId: subscription.channelId, err: error }, 'could not DM the admin about the daily post; trying the notice channel');
        }
      }
      if (!subscription.noticeChannelId) throw dmFailure;
      const locale = noticeLocale(subscription, 'channel', serverLocale);
      await send(subscription.noticeChannelId, adminNoticeText(subscription, notice, { viaNoticeChannel: true, recipient, locale }));
      return 'channel';
    },
  };
}
