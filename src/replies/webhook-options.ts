import type { SubscriptionSettings } from '../schedule/subscription-service.ts';
import { checkWebhookName, normalWebhookName, parseWebhookAvatar, WEBHOOK_AVATAR_LIMIT } from '../schedule/webhook-identity.ts';
import { escapeText } from './embeds.ts';
import type { CommandOptions } from './interactions.ts';
import type { Translate } from './i18n/translate.ts';
import { quoteInput } from './messages.ts';

/** /wotd-subscribe's `webhook-name` and `webhook-avatar`: read, checked, and said back (issue 35's webhook identity). */

export interface WebhookFields {
  webhookName?: string | null;
  webhookAvatar?: string | null;
}

/** The options given (one of spaces only is none), or the message saying what Discord or the bot would refuse in them. */
export function readWebhookOptions(options: CommandOptions, t: Translate): { ok: true; fields: WebhookFields } | { ok: false; message: string } {
  const fields: WebhookFields = {};
  const nameText = options.getString('webhook-name');
  if (nameText !== null) {
    const name = normalWebhookName(nameText);
    if (name === '') fields.webhookName = null;
    else {
      const problem = checkWebhookName(name);
      if (problem?.problem === 'length') return { ok: false, message: t('subscribe.error.webhookNameLength', { limit: problem.limit, length: name.length }) };
      if (problem?.problem === 'word') return { ok: false, message: t('subscribe.error.webhookNameWord', { word: problem.word }) };
      if (problem?.problem === 'mark') return { ok: false, message: t('subscribe.error.webhookNameMark', { mark: escapeText(problem.mark) }) };
      if (problem?.problem === 'reserved') return { ok: false, message: t('subscribe.error.webhookNameReserved', { name: problem.name }) };
      fields.webhookName = name;
    }
  }
  const avatarText = options.getString('webhook-avatar');
  if (avatarText !== null) {
    if (avatarText.trim() === '') fields.webhookAvatar = null;
    else {
      const avatar = parseWebhookAvatar(avatarText.trim());
      if (!avatar.ok) {
        return { ok: false, message: t('subscribe.error.webhookAvatar', { typed: quoteInput(avatarText), problem: avatar.problem, limit: WEBHOOK_AVATAR_LIMIT }) };
      }
      fields.webhookAvatar = avatar.url;
    }
  }
  return { ok: true, fields };
}

/**
 * An avatar without a name has nothing to show it: the request must name the webhook too (or drop the avatar). A quiz
 * is refused with a webhook identity: its reveal edits the post through the channel's message route, which Discord
 * refuses for a webhook's message.
 */
export function webhookSettingsProblem(settings: SubscriptionSettings, t: Translate): string | null {
  if (settings.webhookAvatar !== null && settings.webhookName === null) {
    return t('subscribe.error.webhookAvatarAlone', { name: t('option.webhookName.name'), avatar: t('option.webhookAvatar.name') });
  }
  if (settings.quiz && settings.webhookName !== null) {
    return t('subscribe.error.webhookQuiz', { quiz: t('option.quiz.name'), name: t('option.webhookName.name') });
  }
  return null;
}

/** `“Owl”` or `“Owl” (avatar <https://…>)`: the identity as a setting's value; the URL in <> so Discord shows no preview. */
export function webhookIdentityText(name: string, avatar: string | null, t: Translate): string {
  const quoted = t('subscribe.value.intro', { intro: escapeText(name) });
  return avatar === null ? quoted : t('subscribe.value.webhookAvatar', { name: quoted, avatar: `<${avatar}>` });
}

/** ", posted as “Owl” through a webhook", or nothing without a webhook name. */
export function webhookSummary(settings: Pick<SubscriptionSettings, 'webhookName' | 'webhookAvatar'>, t: Translate): string {
  return settings.webhookName === null ? '' : t('subscribe.extra.webhook', { identity: webhookIdentityText(settings.webhookName, settings.webhookAvatar, t) });
}
