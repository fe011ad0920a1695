import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder } from 'discord.js';
import type { BotServices, CommandContext, SlashCommand } from '../src/replies/interactions.ts';
import { privateNote } from '../src/replies/messages.ts';
import { discordTime, subscribeOutcome } from '../src/replies/admin-replies.ts';
import { choice, named } from '../src/replies/i18n/command-text.ts';
import { privateT } from '../src/replies/i18n/reply-locale.ts';
import { languageName } from '../src/replies/subscription-text.ts';
import { POST_STYLES } from '../src/schedule/subscription.ts';
import { parseSchedule, TIME_OPTION_MAX_LENGTH } from '../src/replies/schedule-options.ts';
import { languageOrRefuse } from '../src/replies/language-option.ts';
import { autocomplete } from './wotd-subscribe.ts';

const data = named(new SlashCommandBuilder(), 'command.wotd-subscribe-me.name', 'command.wotd-subscribe-me.description')
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel)
  .addStringOption((option) => named(option, 'option.time.name', 'command.wotd-subscribe-me.time.description').setMinLength(3).setMaxLength(TIME_OPTION_MAX_LENGTH))
  .addStringOption((option) =>
    named(option, 'option.timezone.name', 'command.wotd-subscribe-me.timezone.description').setMaxLength(64).setAutocomplete(true),
  )
  .addStringOption((option) =>
    named(option, 'option.style.name', 'command.option.style.description').addChoices(choice('style.full', 'full'), choice('style.compact', 'compact')),
  )
  .addStringOption((option) =>
    named(option, 'option.language.name', 'command.wotd-subscribe-me.language.description').setMaxLength(32).setAutocomplete(true),
  )
  .addBooleanOption((option) => named(option, 'option.review.name', 'command.wotd-subscribe-me.review.description'));

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const t = privateT(context.invoker);
  if (!services.subscriptions) return context.respond(privateNote(t('admin.unavailable')));
  const schedule = parseSchedule(context.options.getString('time'), context.options.getString('timezone'), t);
  if (!schedule.ok) return context.respond(privateNote(schedule.message));
  const chosen = await languageOrRefuse(context, t);
  if (!chosen) return;
  const given = context.options.getString('style');
  const style = POST_STYLES.find((candidate) => candidate === given) ?? 'full';
  const userId = context.invoker.userId;
  // The DMs are written in the language chosen, else in the member's own as it is now.
  const language = chosen.language ?? context.invoker.locale;
  const review = context.options.getBoolean('review') === true;
  const result = await services.subscriptions.subscribeDm({
    userId,
    time: schedule.time,
    timeZone: schedule.timeZone,
    style,
    ...(language ? { language } : {}),
    review,
  });
  // One per member, replaced by subscribing again, so the limit cannot be reached; said plainly if it ever is.
  if (result.kind === 'limit_reached') return context.respond(privateNote(t('subscribeMe.already')));
  const overview = await services.subscriptions.dm(userId);
  const { verb, changed } = subscribeOutcome(result, false, t);
  const next = overview?.dueNow
    ? ` ${t('subscribeMe.dueNow')}`
    : overview?.nextPostAt
      ? ` ${t('subscribeMe.next', { when: discordTime(overview.nextPostAt) })}`
      : '';
  const details = [
    style === 'compact' ? t('subscribeMe.detail.compact') : '',
    chosen.language ? t('subscribe.detail.language', { language: languageName(chosen.language, t) }) : '',
    review ? t('subscribeMe.detail.review') : '',
  ].join('');
  const saved = t('subscribeMe.saved', { verb, time: schedule.time, zone: `${schedule.timeZone}${schedule.zoneNote}`, details });
  await context.respond(privateNote(`${saved}${changed}${next} ${t('subscribeMe.howDms')}`));
}

export const wotdSubscribeMeCommand: SlashCommand = { data, execute, autocomplete };
