import type { BotServices, ChannelPermission, ChannelRef, CommandContext, OutgoingMessage } from './interactions.ts';
import { privateNote, userError } from './messages.ts';
import { subscriptionChanges, type SubscriptionChange, type SubscriptionService } from '../schedule/subscription-service.ts';
import type { Subscription } from '../schedule/subscription.ts';

/** What the three subscription commands share: the admin gate and their wording. */

export const PERMISSION_NAMES: Record<ChannelPermission, string> = {
  ViewChannel: 'View Channel',
  SendMessages: 'Send Messages',
  EmbedLinks: 'Embed Links',
  ReadMessageHistory: 'Read Message History',
  CreatePublicThreads: 'Create Public Threads',
};

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
  const guildId = context.invoker.guildId;
  if (!guildId) {
    await context.respond(userError('Daily posts are set up per server: use this command in a server channel, not in a DM.'));
    return null;
  }
  if (context.invoker.botInGuild === false) {
    await context.respond(
      privateNote('I am not a member of this server, so I cannot post here. Ask a server admin to add me to the server, then try again.'),
    );
    return null;
  }
  if (target) {
    if (!(await mayManage(context, target))) return null;
  } else if (!context.invoker.canManageChannels) {
    await context.respond(userError('You need the **Manage Channels** permission to manage daily posts in this server.'));
    return null;
  }
  if (!services.subscriptions) {
    await context.respond(privateNote('Daily posts are not available in this bot right now.'));
    return null;
  }
  return { guildId, subscriptions: services.subscriptions };
}

/** Whether the member may change `target`'s daily posts; told why not when they may not. */
async function mayManage(context: CommandContext, target: ChannelRef): Promise<boolean> {
  const where = channelMention(target.id, target.name, isConsoleChannel(target.id));
  if (!context.memberCanManageChannel) {
    await context.respond(privateNote(`I cannot check your permissions in ${where} from here, so I have changed nothing.`));
    return false;
  }
  const may = await context.memberCanManageChannel(target.id);
  if (may === true) return true;
  // A channel the bot cannot read (hidden from it, or gone) may still hold a subscription to remove: Manage Server
  // covers every channel and no overwrite takes it away.
  if (may === null && context.invoker.canManageGuild === true) return true;
  await context.respond(
    userError(
      may === null
        ? `I cannot see ${where}, so I cannot check your permissions there. Give me **View Channel** in it, or ask someone with **Manage Server**.`
        : `You need the **Manage Channels** permission in ${where} to manage its daily posts.`,
    ),
  );
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
export function dmSwitchedOffNotice(subscription: Subscription): string {
  const reason = subscription.status.state === 'disabled' ? subscription.status.reason : 'it could not be delivered';
  return (
    `Your daily word-of-the-day DMs are switched off: ${reason}. To get them again, allow direct messages from me ` +
    '(share a server with me with DMs from its members allowed, or add me to your account), then run /wotd-subscribe-me.'
  );
}

/** The private note owed to a member whose DM subscription was switched off since they were last told, or null. */
export async function pendingDmNotice(services: BotServices, userId: string): Promise<OutgoingMessage | null> {
  const switchedOff = await services.subscriptions?.takeDmNotice(userId);
  return switchedOff ? privateNote(dmSwitchedOffNotice(switchedOff)) : null;
}

/** A role as a reply names it: `@name` at the console (where ids are names), a mention (pinging nobody) on Discord. */
function roleMention(roleId: string, console: boolean): string {
  return console ? `@${roleId}` : `<@&${roleId}>`;
}

const SETTING_NAMES: Record<SubscriptionChange['setting'], string> = {
  time: 'the time',
  timeZone: 'the time zone',
  role: 'the role',
  style: 'the style',
  thread: 'a thread on each post',
  publish: 'publishing to following servers',
  quiz: 'the daily quiz',
};

function changeValue(change: SubscriptionChange, value: string | boolean | null, console: boolean): string {
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (value === null) return 'none';
  return change.setting === 'role' ? roleMention(value, console) : value;
}

/**
 * What subscribing again did to an existing subscription, said after the new settings: each change from what to
 * what, or that nothing changed, so a repeated command never silently replaces anything.
 */
function changesNote(changes: SubscriptionChange[], reEnabled: boolean, console: boolean): string {
  if (changes.length === 0) return reEnabled ? 'Its settings are as before.' : 'Nothing changed: it had these settings already.';
  const said = changes.map((change) => `${SETTING_NAMES[change.setting]} from ${changeValue(change, change.from, console)} to ${changeValue(change, change.to, console)}`);
  return `Changed: ${said.join(', ')}.`;
}

/**
 * How the answer to a subscribe command opens (Subscribed, Updated, Updated and re-enabled) and, for a subscription
 * that existed, the sentence saying what changed from what to what (with a leading space; empty for a new one).
 */
export function subscribeOutcome(saved: { subscription: Subscription; previous: Subscription | null }, console: boolean): { verb: string; changed: string } {
  const { previous } = saved;
  if (previous === null) return { verb: 'Subscribed', changed: '' };
  const reEnabled = previous.status.state !== 'active';
  return {
    verb: reEnabled ? 'Updated and re-enabled' : 'Updated',
    changed: ` ${changesNote(subscriptionChanges(previous, saved.subscription), reEnabled, console)}`,
  };
}
