import type { StatusNotice } from '../schedule/status-notice.ts';
import { SERVER_DATA_RETENTION_DAYS } from '../schedule/privacy.ts';
import { FAILED_DAYS_BEFORE_DISABLE, type Subscription } from '../schedule/subscription.ts';
import { permissionName, REQUIRED_PERMISSIONS } from './admin-replies.ts';
import { andList } from './i18n/formats.ts';
import { translatorFor } from './i18n/translate.ts';
import type { ChannelPermission } from './interactions.ts';
import { escapeText } from './embeds.ts';
import { disabledReasonText } from './failure-reason-text.ts';

/**
 * What the admin of a subscription is told when it starts failing, is switched off or recovers: the reason and the
 * exact fix (the permissions, in which channel), in `locale` (see noticeLocale). Pings nobody: it goes out with no
 * mention allowed.
 */
export function adminNoticeText(
  subscription: Subscription,
  notice: StatusNotice,
  options: { viaNoticeChannel?: boolean; recipient?: string | null; locale?: string | null } = {},
): string {
  const locale = options.locale ?? subscription.language;
  const t = translatorFor(locale);
  const channel = `<#${subscription.channelId}> (#${escapeText(subscription.channelName)})`;
  const needed: ChannelPermission[] = subscription.openThread === true ? [...REQUIRED_PERMISSIONS, 'CreatePublicThreads'] : [...REQUIRED_PERMISSIONS];
  if (subscription.webhookName !== undefined) needed.push('ManageWebhooks');
  const permissions = andList(needed.map((name) => `**${permissionName(name, t)}**`), locale);
  const reason = notice.reason ? disabledReasonText(notice.reason, notice.failedDays, t) : '';
  // The command as this language's members see it in Discord: its name and the channel option's.
  const command = `/${t('command.wotd-subscribe.name')} ${t('option.channel.name')}:#${escapeText(subscription.channelName)}`;
  let body: string;
  if (notice.kind === 'recovered') body = t('posts.notice.recovered', { channel });
  else if (notice.botRemoved === true) body = t('posts.notice.removed', { channel, command, days: SERVER_DATA_RETENTION_DAYS });
  else if (notice.channelGone === true) body = t('posts.notice.gone', { channel, reason });
  else if (notice.kind === 'failing') body = t('posts.notice.failing', { channel, reason, permissions, days: FAILED_DAYS_BEFORE_DISABLE });
  else body = t('posts.notice.disabled', { channel, reason, permissions, command });
  if (!options.viaNoticeChannel) return body;
  const forWhom = options.recipient ? t('posts.notice.forAdmin', { admin: `<@${options.recipient}>` }) : t('posts.notice.forAdmins');
  return `${forWhom} ${body}`;
}

/**
 * The language of a notice: by DM, the admin's own (their client's when they last configured the subscription),
 * else the place's; in the notice channel, the place's: the subscription's language, else the server's preferred
 * locale (`serverLocale`, when the transport knows it), else English.
 */
export function noticeLocale(subscription: Subscription, route: 'dm' | 'channel', serverLocale?: string | null): string | undefined {
  const place = subscription.language ?? serverLocale ?? undefined;
  return route === 'dm' ? (subscription.configuredLocale ?? place) : place;
}
