import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder } from 'discord.js';
import type { BotServices, CommandContext, SlashCommand } from '../src/replies/interactions.ts';
import { privateNote } from '../src/replies/messages.ts';
import { discordTime, subscribeOutcome } from '../src/replies/admin-replies.ts';
import { POST_STYLES } from '../src/schedule/subscription.ts';
import { parseSchedule, TIME_OPTION_MAX_LENGTH } from '../src/replies/schedule-options.ts';
import { autocomplete } from './wotd-subscribe.ts';

const data = new SlashCommandBuilder()
  .setName('wotd-subscribe-me')
  .setDescription('Get the word of the day in your DMs every day (or change when)')
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel)
  .addStringOption((option) =>
    option.setName('time').setDescription('Time of day, 24-hour HH:MM (default 09:00)').setMinLength(3).setMaxLength(TIME_OPTION_MAX_LENGTH),
  )
  .addStringOption((option) =>
    option.setName('timezone').setDescription('Your IANA time zone, e.g. Europe/London (default UTC)').setMaxLength(64).setAutocomplete(true),
  )
  .addStringOption((option) =>
    option
      .setName('style')
      .setDescription('full: like /wotd (default); compact: the word, IPA and a one-line definition')
      .addChoices({ name: 'full', value: 'full' }, { name: 'compact', value: 'compact' }),
  );

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  if (!services.subscriptions) return context.respond(privateNote('Daily posts are not available in this bot right now.'));
  const schedule = parseSchedule(context.options.getString('time'), context.options.getString('timezone'));
  if (!schedule.ok) return context.respond(privateNote(schedule.message));
  const given = context.options.getString('style');
  const style = POST_STYLES.find((candidate) => candidate === given) ?? 'full';
  const userId = context.invoker.userId;
  const result = await services.subscriptions.subscribeDm({ userId, time: schedule.time, timeZone: schedule.timeZone, style });
  // One per member, replaced by subscribing again, so the limit cannot be reached; said plainly if it ever is.
  if (result.kind === 'limit_reached') return context.respond(privateNote('You already get the word of the day in your DMs.'));
  const overview = await services.subscriptions.dm(userId);
  const { verb, changed } = subscribeOutcome(result, false);
  const next = overview?.dueNow
    ? " Today's time has passed, so today's word comes within a minute."
    : overview?.nextPostAt
      ? ` Next: ${discordTime(overview.nextPostAt)}.`
      : '';
  const compact = style === 'compact' ? ', compact' : '';
  await context.respond(
    privateNote(
      `${verb}: I'll DM you the word of the day every day at ${schedule.time} (${schedule.timeZone}${schedule.zoneNote})${compact}.${changed}${next} ` +
        'I can DM you while we share a server or you have added me to your account, and your privacy settings allow it. /wotd-unsubscribe-me stops it.',
    ),
  );
}

export const wotdSubscribeMeCommand: SlashCommand = { data, execute, autocomplete };
