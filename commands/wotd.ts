import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder } from 'discord.js';
import { entryEmbed } from '../src/replies/embeds.ts';
import type { BotServices, CommandContext, OutgoingMessage, SlashCommand } from '../src/replies/interactions.ts';
import { readDateOption, type DateOption } from '../src/replies/date-text.ts';
import { INTERACTIVE, replyWhenReady } from '../src/replies/deliver.ts';
import { invalidDateMessage, notRevealedMessage, staleNote } from '../src/replies/messages.ts';
import { named } from '../src/replies/i18n/command-text.ts';
import { placeLocale, privateLocale, privateT } from '../src/replies/i18n/reply-locale.ts';
import { translatorFor } from '../src/replies/i18n/translate.ts';
import type { IsoDate } from '../src/wotd/dates.ts';
import { saveButton } from '../src/replies/learning-replies.ts';

export const DATE_OPTION_DESCRIPTION = translatorFor('en')('command.wotd.date.description');

const data = named(new SlashCommandBuilder(), 'command.wotd.name', 'command.wotd.description')
  // Installed to a server or to a member's account: works in servers, the bot's DMs, group DMs and other DMs.
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel)
  .addStringOption((option) => named(option, 'option.date.name', 'command.wotd.date.description').setMaxLength(32));

/** The word in an embed for everyone in the channel, so in the place's language. */
async function entryMessage(date: IsoDate, services: BotServices, locale: string | undefined): Promise<OutgoingMessage> {
  const found = await services.lookup.getEntry(date, INTERACTIVE);
  const message: OutgoingMessage = { embeds: [entryEmbed(found.value, { siteUrl: services.siteUrl, locale })] };
  if (services.learning) message.buttons = [saveButton(translatorFor(locale), found.value.date)];
  if (found.stale) message.content = staleNote(translatorFor(locale));
  return message;
}

/**
 * The day the `date` option names, or null once the member has been told why that day cannot be shown. A day is
 * returned as it is, without a promise (`await` takes either): nearly every command names one.
 */
export function dateOptionOrRefuse(context: CommandContext, today: IsoDate): IsoDate | Promise<null> {
  const option = readDateOption(context.options.getString('date'), today);
  return option.kind === 'date' ? option.date : refuseDate(context, option, today);
}

async function refuseDate(context: CommandContext, option: Exclude<DateOption, { kind: 'date' }>, today: IsoDate): Promise<null> {
  const t = privateT(context.invoker);
  await context.respond(
    option.kind === 'invalid'
      ? invalidDateMessage(option.text, option.realDay, t)
      : notRevealedMessage(option.date, today, t, privateLocale(context.invoker)),
  );
  return null;
}

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const dateRead = dateOptionOrRefuse(context, services.lookup.today());
  const date = typeof dateRead === 'string' ? dateRead : await dateRead;
  if (!date) return;
  const localeKnown = placeLocale(context.invoker, services);
  const locale = typeof localeKnown === 'object' ? await localeKnown : localeKnown;
  await replyWhenReady(context, entryMessage(date, services, locale), {
    subject: { date },
    logger: services.logger,
  });
}

export const wotdCommand: SlashCommand = { data, execute };
