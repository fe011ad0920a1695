import { legacyReason, type FailureKind, type FailureReason } from '../schedule/failure-reason.ts';
import { clip, escapeText } from './embeds.ts';
import { CATALOGS, type MessageKey, type MessageValues, type Translate } from './i18n/translate.ts';

/**
 * A failure's reason (src/schedule/failure-reason.ts) in the reader's language. Each kind has its message here; the
 * reason's fields are its values: `permission` as Discord's settings name it in that language, `channelName` as
 * `channel` (`#words`, or `none`), Discord's own words and error details verbatim (escaped), numbers as written,
 * flags as `yes`/`no` for a select.
 */
const REASON_KEYS: Readonly<Record<Exclude<FailureKind, 'recorded'>, MessageKey>> = {
  missingPermission: 'reason.missingPermission',
  missingAccess: 'reason.missingAccess',
  missingPermissions: 'reason.missingPermissions',
  forbidden: 'reason.forbidden',
  channelGone: 'reason.channelGone',
  channelDeleted: 'reason.channelDeleted',
  serverGone: 'reason.serverGone',
  botRemoved: 'reason.botRemoved',
  dmsClosed: 'reason.dmsClosed',
  noSharedServer: 'reason.noSharedServer',
  userGone: 'reason.userGone',
  notFound: 'reason.notFound',
  refused: 'reason.refused',
  discordError: 'reason.discordError',
  httpStatus: 'reason.httpStatus',
  timeout: 'reason.timeout',
  unreachable: 'reason.unreachable',
  noTurn: 'reason.noTurn',
  noMessageId: 'reason.noMessageId',
  noThreadList: 'reason.noThreadList',
  forumTagRequired: 'reason.forumTagRequired',
  pinLimit: 'reason.pinLimit',
  noDmChannel: 'reason.noDmChannel',
  goneUnconfirmed: 'reason.goneUnconfirmed',
  webhookDeletedAgain: 'reason.webhookDeletedAgain',
  webhookIncomplete: 'reason.webhookIncomplete',
  unexpected: 'reason.unexpected',
};

/** Text from outside (Discord's message, an error's) is shown up to this many characters. */
const SHOWN_TEXT_LIMIT = 200;

/**
 * A permission by Discord's name in the reader's language, from its flag name (`EmbedLinks`: `permission.embedLinks`,
 * as admin-replies.ts names them); one the catalogs have no name for, by its flag name.
 */
function permissionLabel(permission: string, t: Translate): string {
  const key = `permission.${permission.charAt(0).toLowerCase()}${permission.slice(1)}`;
  return Object.hasOwn(CATALOGS.en, key) ? t(key as MessageKey) : permission;
}

function valuesOf(reason: FailureReason, t: Translate): MessageValues {
  const values: MessageValues = {};
  for (const [field, value] of Object.entries(reason)) {
    if (field === 'kind' || value === undefined) continue;
    if (field === 'permission' && typeof value === 'string') values.permission = permissionLabel(value, t);
    else if (field === 'channelName' && typeof value === 'string') values.channel = `#${escapeText(value)}`;
    else if (typeof value === 'string') values[field] = escapeText(clip(value, SHOWN_TEXT_LIMIT));
    // Codes and statuses as Discord writes them: no digit grouping.
    else if (typeof value === 'number') values[field] = String(value);
    else if (typeof value === 'boolean') values[field] = value ? 'yes' : 'no';
  }
  if (reason.kind === 'missingPermission' || reason.kind === 'webhookDeletedAgain') values.channel ??= 'none';
  return values;
}

/** "Missing Embed Links in #words", "Links einbetten fehlt in #words": a reason as the reader reads it. */
export function failureReasonText(reason: FailureReason, t: Translate): string {
  // A sentence an earlier version stored that is not recognised: the record of what happened, shown as it is.
  if (reason.kind === 'recorded') return escapeText(clip(reason.text, SHOWN_TEXT_LIMIT));
  const text = t(REASON_KEYS[reason.kind], valuesOf(reason, t));
  return reason.kind === 'missingPermission' && reason.mentionLeft === true ? t('reason.mentionLeft', { reason: text }) : text;
}

/** A switched-off subscription's reason, with the days in a row it failed on when that is why it was switched off. */
export function disabledReasonText(reason: FailureReason, failedDays: number | undefined, t: Translate): string {
  const text = failureReasonText(reason, t);
  return failedDays === undefined ? text : t('reason.onDaysInARow', { reason: text, days: failedDays });
}

/** The reason on a day's delivery record: the code, or the sentence an earlier version stored in `error`. */
export function deliveryFailureText(record: { failure?: FailureReason | undefined; error?: string | undefined }, t: Translate): string | null {
  if (record.failure) return failureReasonText(record.failure, t);
  return record.error ? failureReasonText(legacyReason(record.error).reason, t) : null;
}
