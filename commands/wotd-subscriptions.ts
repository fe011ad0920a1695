import { ApplicationIntegrationType, InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import { ACCENT, clip, escapeText } from '../src/replies/embeds.ts';
import type { BotServices, CommandContext, SlashCommand } from '../src/replies/interactions.ts';
import { privateNote } from '../src/replies/messages.ts';
import { adminGate, channelMention, discordTime, isConsoleChannel } from '../src/replies/admin-replies.ts';
import { named } from '../src/replies/i18n/command-text.ts';
import { privateLocale, privateT } from '../src/replies/i18n/reply-locale.ts';
import type { Translate } from '../src/replies/i18n/translate.ts';
import { daysPhrase, introText, pauseState } from '../src/replies/subscribe-replies.ts';
import { pausedAt } from '../src/schedule/post-rules.ts';
import { colourText } from '../src/schedule/post-shape.ts';
import { dateStyleText, partsText } from '../src/replies/look-options.ts';
import { webhookIdentityText } from '../src/replies/webhook-options.ts';
import { describeStatus, languageName, styleName, todaysDelivery } from '../src/replies/subscription-text.ts';
import { countsTowardLimit, postStyleOf } from '../src/schedule/subscription.ts';
import { settingsOf, type SubscriptionOverview } from '../src/schedule/subscription-service.ts';

const data = named(new SlashCommandBuilder(), 'command.wotd-subscriptions.name', 'command.wotd-subscriptions.description')
  .setDefaultMemberPermissions(PermissionFlagsBits.ManageChannels)
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
  .setContexts(InteractionContextType.Guild);

const EMBED_DESCRIPTION_LIMIT = 4096;

function line({ subscription, nextPostAt, dueNow, lastDelivery }: SubscriptionOverview, t: Translate, locale: string | undefined, now: Date): string {
  const console = isConsoleChannel(subscription.channelId);
  const where = channelMention(subscription.channelId, subscription.channelName, console);
  const role = subscription.roleId ? t('subscriptions.mentions', { role: console ? `@${subscription.roleId}` : `<@&${subscription.roleId}>` }) : '';
  // A reason may name the channel as subscribed ("Missing Embed Links in #word_of_the_day"): shown as written.
  const state = [describeStatus(subscription.status, t), pauseState(subscription, now, t, locale)].filter(Boolean).join(t('subscribe.listSeparator'));
  const status = `${state}${todaysDelivery(lastDelivery, t)}`;
  const paused = pausedAt({ timeZone: subscription.timeZone, pause: subscription.pause }, now) !== null;
  const noPosts = paused && subscription.status.state !== 'disabled' ? t('subscriptions.noPostsWhilePaused') : t('subscriptions.noPosts');
  const next = dueNow ? t('subscriptions.dueNow') : nextPostAt ? t('subscriptions.next', { when: discordTime(nextPostAt) }) : noPosts;
  const extras = [
    subscription.openThread === true ? t('subscriptions.thread') : '',
    subscription.publish === true ? t('subscriptions.published') : '',
    subscription.forum === true ? t('subscriptions.forum') : '',
    subscription.forumTag ? t('subscriptions.forumTag', { tag: escapeText(subscription.forumTag.name) }) : '',
    subscription.pin === true ? t('subscriptions.pinned') : '',
    subscription.language ? t('subscriptions.language', { language: languageName(subscription.language, t) }) : '',
    subscription.colour !== undefined ? t('subscriptions.colour', { colour: colourText(subscription.colour) }) : '',
    subscription.intro !== undefined ? t('subscriptions.intro', { intro: introText(subscription.intro, t) }) : '',
    subscription.parts !== undefined ? t('subscriptions.parts', { parts: partsText(subscription.parts, t) }) : '',
    subscription.dateStyle !== undefined ? t('subscriptions.dateStyle', { style: dateStyleText(subscription.dateStyle, t) }) : '',
    subscription.webhookName !== undefined ? t('subscriptions.webhook', { identity: webhookIdentityText(subscription.webhookName, subscription.webhookAvatar ?? null, t) }) : '',
    subscription.noticeChannelId
      ? t('subscriptions.notices', { channel: channelMention(subscription.noticeChannelId, subscription.noticeChannelId, isConsoleChannel(subscription.noticeChannelId)) })
      : '',
  ].join('');
  const settings = t('subscriptions.line', {
    channel: where,
    days: daysPhrase(settingsOf(subscription).days, t, locale),
    time: subscription.time,
    zone: subscription.timeZone,
    style: styleName(postStyleOf(subscription), t),
    details: `${role}${extras}`,
  });
  return `${settings}\n  ${t('subscriptions.statusLine', { status, next })}`;
}

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const t = privateT(context.invoker);
  const locale = privateLocale(context.invoker);
  const gate = await adminGate(context, services);
  if (!gate) return;
  const overviews = await gate.subscriptions.list(gate.guildId);
  if (overviews.length === 0) return context.respond(privateNote(t('subscriptions.none')));
  const now = gate.subscriptions.now();
  const description = clip(overviews.map((overview) => line(overview, t, locale, now)).join('\n\n'), EMBED_DESCRIPTION_LIMIT);
  const counted = overviews.filter((item) => countsTowardLimit(item.subscription)).length;
  await context.respond({
    ephemeral: true,
    embeds: [{ title: t('subscriptions.title', { count: counted, limit: gate.subscriptions.limit }), description, color: ACCENT }],
  });
}

export const wotdSubscriptionsCommand: SlashCommand = { data, execute };
