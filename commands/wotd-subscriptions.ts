import { ApplicationIntegrationType, InteractionContextType, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import { ACCENT, clip, escapeText } from '../src/replies/embeds.ts';
import type { BotServices, CommandContext, SlashCommand } from '../src/replies/interactions.ts';
import { privateNote } from '../src/replies/messages.ts';
import { adminGate, channelMention, discordTime, isConsoleChannel } from '../src/replies/admin-replies.ts';
import { countsTowardLimit, describeStatus, postStyleOf, type DeliveryReading } from '../src/schedule/subscription.ts';
import { settingsOf, type SubscriptionOverview } from '../src/schedule/subscription-service.ts';
import { translatorFor, type Translate } from '../src/replies/i18n/translate.ts';
import { daysPhrase, pauseState } from '../src/replies/subscribe-replies.ts';

const data = new SlashCommandBuilder()
  .setName('wotd-subscriptions')
  .setDescription('List this server\'s daily word-of-the-day posts: channel, time, next post and status')
  .setDefaultMemberPermissions(PermissionFlagsBits.ManageChannels)
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall)
  .setContexts(InteractionContextType.Guild);

const EMBED_DESCRIPTION_LIMIT = 4096;

/** What today's delivery record adds to the status, if anything worth an admin's attention. */
function todaysDelivery(record: DeliveryReading | null): string {
  if (record?.state === 'retrying') return ` (today's post is being retried: ${record.error ?? 'Discord did not answer'})`;
  if (record?.state === 'failed' && record.refused) {
    const { code, message } = record.refused;
    return ` (Discord refused today's post: ${escapeText(clip(message, 200))}, error ${code}; tomorrow's goes out as usual)`;
  }
  if (record?.state === 'damaged') return " (today's delivery record is damaged: the channel is checked before posting)";
  return '';
}

function line({ subscription, nextPostAt, dueNow, lastDelivery }: SubscriptionOverview, t: Translate, locale: string | undefined, now: Date): string {
  const console = isConsoleChannel(subscription.channelId);
  const where = channelMention(subscription.channelId, subscription.channelName, console);
  const role = subscription.roleId ? `, mentions ${console ? `@${subscription.roleId}` : `<@&${subscription.roleId}>`}` : '';
  // A reason may name the channel as subscribed ("Missing Embed Links in #word_of_the_day"): shown as written.
  const paused = pauseState(subscription, now, t, locale);
  const status = `${escapeText(describeStatus(subscription.status))}${paused ? `, ${paused}` : ''}${todaysDelivery(lastDelivery)}`;
  const next = dueNow ? "today's post goes out within a minute" : nextPostAt ? `next post ${discordTime(nextPostAt)}` : 'no posts until subscribed again';
  const extras = `${subscription.openThread === true ? ', thread on each post' : ''}${subscription.publish === true ? ', published' : ''}`;
  const days = daysPhrase(settingsOf(subscription).days, t, locale);
  return `${where} — ${days}, ${subscription.time} ${subscription.timeZone}, ${postStyleOf(subscription)} style${role}${extras}\n  ${status}; ${next}`;
}

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const gate = await adminGate(context, services);
  if (!gate) return;
  const overviews = await gate.subscriptions.list(gate.guildId);
  if (overviews.length === 0) {
    return context.respond(privateNote('No channel here gets the daily word yet. Start with /wotd-subscribe.'));
  }
  const locale = context.invoker.locale;
  const t = translatorFor(locale);
  const now = gate.subscriptions.now();
  const description = clip(overviews.map((overview) => line(overview, t, locale, now)).join('\n\n'), EMBED_DESCRIPTION_LIMIT);
  await context.respond({
    ephemeral: true,
    embeds: [
      {
        title: `Daily posts (${overviews.filter((item) => countsTowardLimit(item.subscription)).length} of ${gate.subscriptions.limit})`,
        description,
        color: ACCENT,
      },
    ],
  });
}

export const wotdSubscriptionsCommand: SlashCommand = { data, execute };
