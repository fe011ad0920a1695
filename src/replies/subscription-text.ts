import type { DeliveryReading, PostStyle, SubscriptionStatus } from '../schedule/subscription.ts';
import { clip, escapeText } from './embeds.ts';
import { deliveryFailureText, disabledReasonText, failureReasonText } from './failure-reason-text.ts';
import { catalogLocaleOf, type CatalogLocale } from './i18n/locales.ts';
import type { MessageKey, Translate } from './i18n/translate.ts';

/** A subscription's state, its failures and its language, as the admin commands say them. */

/** "active", "failing (reason; 2 failed days in a row)", "disabled (reason)", the reason in the reader's language. */
export function describeStatus(status: SubscriptionStatus, t: Translate): string {
  switch (status.state) {
    case 'active':
      return t('status.active');
    case 'failing':
      return t('status.failing', { reason: failureReasonText(status.reason, t), days: status.failedDays });
    case 'disabled': {
      const reason = disabledReasonText(status.reason, status.failedDays, t);
      return status.channelGone ? t('status.disabledGone', { reason }) : t('status.disabled', { reason });
    }
  }
}

/** What today's delivery record adds to the status, if anything worth an admin's attention (with a leading space). */
export function todaysDelivery(record: DeliveryReading | null, t: Translate): string {
  if (record?.state === 'retrying') {
    const error = deliveryFailureText(record, t);
    return ` ${error ? t('status.today.retrying', { error }) : t('status.today.retryingNoAnswer')}`;
  }
  if (record?.state === 'failed' && record.refused) {
    const { code, message } = record.refused;
    // A refusal with a reason of its own (a forum's required tag) is said as that, in the reader's language.
    const said = record.failure && record.failure.kind !== 'refused' ? failureReasonText(record.failure, t) : escapeText(clip(message, 200));
    return ` ${t('status.today.refused', { message: said, code: String(code) })}`;
  }
  if (record?.state === 'damaged') return ` ${t('status.today.damaged')}`;
  if (record?.state === 'sent' && record.pinFailures) {
    return record.pinFailures.map(({ what, reason }) => ` ${t('status.today.pinFailed', { what, reason: failureReasonText(reason, t) })}`).join('');
  }
  return '';
}

export function styleName(style: PostStyle, t: Translate): string {
  return style === 'compact' ? t('style.compact') : t('style.full');
}

const LANGUAGE_KEYS: Record<CatalogLocale, MessageKey> = {
  en: 'language.en',
  de: 'language.de',
  es: 'language.es',
  fr: 'language.fr',
  'pt-BR': 'language.pt-BR',
  ru: 'language.ru',
  ja: 'language.ja',
  'zh-CN': 'language.zh-CN',
};

/** A subscription's language as the reader names it ("German"); none set: the server's language. */
export function languageName(language: string | null | undefined, t: Translate): string {
  if (!language) return t('language.server');
  return t(LANGUAGE_KEYS[catalogLocaleOf(language)]);
}
