import type { BotServices, ChannelPermission, ChannelRef, CommandContext, OutgoingMessage } from './interactions.ts';
import { privateNote, userError } from './messages.ts';
import { subscriptionChanges, type SubscriptionChange } from '../schedule/subscription-changes.ts';
import type { SubscriptionService } from '../schedule/subscription-service.ts';
import type { Subscription } from '../schedule/subscription.ts';
import { privateT } from './i18n/reply-locale.ts';
import { translatorFor, type MessageKey, type Translate } from './i18n/translate.ts';
import { failureReasonText } from './failure-reason-text.ts';
import { languageName } from './subscription-text.ts';

/** What the three subscription commands share: the admin gate and their wording. */

const PERMISSION_KEYS: Record<ChannelPermission, MessageKey> = {
  ViewChannel: 'permission.viewChannel',
  SendMessages: 'permission.sendMessages',
  EmbedLinks: 'permission.embedLinks',
  ReadMessageHistory: 'permission.readMessageHistory',
  CreatePublicThreads: 'permission.createPublicThreads',
  PinMessages: 'permission.pinMessages',
  ManageWebhooks: 'permission.manageWebhooks',
};

/** A permission as Discord's settings name it, in the reader's language. */
export function permissionName(permission: ChannelPermission, t: Translate): string {
  return t(PERMISSION_KEYS[permission]);
}

/** Every channel permission by its English name. */
export const PERMISSION_NAMES: Record<ChannelPermission, string> = Object.fromEntries(
  Object.keys(PERMISSION_KEYS).map((permission) => [permission, permissionName(permission as ChannelPermission, translatorFor('en'))]),
) as Record<ChannelPermission, string>;

/** Read Message History lets a retry see whether an earlier attempt's post got through (see delivery.ts). */
export const REQUIRED_PERMISSIONS: ChannelPermission[] = ['ViewChannel', 'SendMessages', 'EmbedLinks', 'ReadMessageHistory'];

/**
 * Checks what Discord's default member permission already hides from most members, since server admins can
 * override that per role or channel: a server, Manage Channels, and a runtime that runs daily posts.
 *
 * With a `target`, the channel whose subscription the command changes, Manage Channels is checked in that channel,
 * with its overwrites: holding it where the command was typed says nothing about another channel.
 */
export async function adminGate(
  context: CommandContext,
  services: BotServices,
  target?: ChannelRef | null,
): Promise<{ guildId: string; subscriptions: SubscriptionService } | null> {
  const t = privateT(context.invoker);
  const guildId = context.invoker.guildId;
  if (!guildId) {
    await context.respond(userError(t('admin.serverOnly')));
    return null;
  }
  if (context.invoker.botInGuild === false) {
    await context.respond(privateNote(t('admin.botNotInServer')));
    return null;
  }
  if (target) {
    if (!(await mayManage(context, target, t))) return null;
  } else if (!context.invoker.canManageChannels) {
    await context.respond(userError(t('admin.needManageChannels')));
    return null;
  }
  if (!services.subscriptions) {
    await context.respond(privateNote(t('admin.unavailable')));
    return null;
  }
  return { guildId, subscriptions: services.subscriptions };
}

/** Whether the member may change `target`'s daily posts; told why not when they may not. */
async function mayManage(context: CommandContext, target: ChannelRef, t: Translate): Promise<boolean> {
  const channel = channelMention(target.id, target.name, isConsoleChannel(target.id));
  if (!context.memberCanManageChannel) {
    await context.respond(privateNote(t('admin.cannotCheckMember', { channel })));
    return false;
  }
  const may = await context.memberCanManageChannel(target.id);
  if (may === true) return true;
  // A channel the bot cannot read (hidden from it, or gone) may still hold a subscription to remove: Manage Server
  // covers every channel and no overwrite takes it away.
  if (may === null && context.invoker.canManageGuild === true) return true;
  await context.respond(userError(may === null ? t('admin.cannotSeeChannel', { channel }) : t('admin.needManageChannelsIn', { channel })));
  return false;
}

/** `<t:…:F>` (full date and time in the reader's zone) and `<t:…:R>` (relative). */
export function discordTime(instant: Date): string {
  const seconds = Math.floor(instant.getTime() / 1000);
  return `<t:${seconds}:F> (<t:${seconds}:R>)`;
}

export function channelMention(channelId: string, name: string, console: boolean): string {
  return console ? `#${name}` : `<#${channelId}>`;
}

/** The console's channels are names, not snowflakes; Discord's are all digits. */
export function isConsoleChannel(channelId: string): boolean {
  return !/^\d{15,22}$/.test(channelId);
}

/** What a member is told, once, at their next command after their DM subscription was switched off. */
export function dmSwitchedOffNotice(subscription: Subscription, t: Translate = translatorFor('en')): string {
  const reason = subscription.status.state === 'disabled' ? failureReasonText(subscription.status.reason, t) : t('dm.notDelivered');
  return t('dm.switchedOff', { reason });
}

/** The private note owed to a member whose DM subscription was switched off since they were last told, or null. */
export async function pendingDmNotice(services: BotServices, userId: string, locale?: string): Promise<OutgoingMessage | null> {
  const switchedOff = await services.subscriptions?.takeDmNotice(userId);
  return switchedOff ? privateNote(dmSwitchedOffNotice(switchedOff, translatorFor(locale))) : null;
}

/** A role as a reply names it: `@name` at the console (where ids are names), a mention (pinging nobody) on Discord. */
function roleMention(roleId: string, console: boolean): string {
  return console ? `@${roleId}` : `<@&${roleId}>`;
}

const CHANGE_KEYS: Record<SubscriptionChange['setting'], MessageKey> = {
  time: 'subscription.change.time',
  timeZone: 'subscription.change.timeZone',
  role: 'subscription.change.role',
  style: 'subscription.change.style',
  thread: 'subscription.change.thread',
  publish: 'subscription.change.publish',
  language: 'subscription.change.language',
  quiz: 'subscription.change.quiz',
  review: 'subscription.change.review',
};

function changeValue(change: SubscriptionChange, value: string | boolean | null, console: boolean, t: Translate): string {
  if (typeof value === 'boolean') return value ? t('subscription.value.on') : t('subscription.value.off');
  if (change.setting === 'language') return languageName(value, t);
  if (value === null) return t('subscription.value.none');
  if (change.setting === 'style') return value === 'compact' ? t('style.compact') : t('style.full');
  return change.setting === 'role' ? roleMention(value, console) : value;
}

/**
 * What subscribing again did to an existing subscription, said after the new settings: each change from what to
 * what, or that nothing changed, so a repeated command never silently replaces anything.
 */
function changesNote(changes: SubscriptionChange[], reEnabled: boolean, console: boolean, t: Translate): string {
  if (changes.length === 0) return reEnabled ? t('subscription.unchangedReEnabled') : t('subscription.unchanged');
  const said = changes.map((change) =>
    t(CHANGE_KEYS[change.setting], { from: changeValue(change, change.from, console, t), to: changeValue(change, change.to, console, t) }),
  );
  return t('subscription.changed', { changes: said.join(t('common.listSeparator')) });
}

/**
 * How the answer to a subscribe command opens (Subscribed, Updated, Updated and re-enabled) and, for a subscription
 * that existed, the sentence saying what changed from what to what (with a leading space; empty for a new one).
 */
export function subscribeOutcome(
  saved: { subscription: Subscription; previous: Subscription | null },
  console: boolean,
  t: Translate = translatorFor('en'),
): { verb: string; changed: string } {
  const { previous } = saved;
  if (previous === null) return { verb: t('subscription.verb.subscribed'), changed: '' };
  const reEnabled = previous.status.state !== 'active';
  return {
    verb: reEnabled ? t('subscription.verb.updatedReEnabled') : t('subscription.verb.updated'),
    changed: ` ${changesNote(subscriptionChanges(previous, saved.subscription), reEnabled, console, t)}`,
  };
}
