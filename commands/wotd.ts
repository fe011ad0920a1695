import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder } from 'discord.js';
import { entryEmbed } from '../src/replies/embeds.ts';
import type { BotServices, CommandContext, OutgoingMessage, SlashCommand } from '../src/replies/interactions.ts';
import { readDateOption } from '../src/replies/date-text.ts';
import { INTERACTIVE, replyWhenReady } from '../src/replies/deliver.ts';
import { invalidDateMessage, notRevealedMessage, STALE_NOTE } from '../src/replies/messages.ts';
import type { IsoDate } from '../src/wotd/dates.ts';
import { translatorFor } from '../src/replies/i18n/translate.ts';
import { saveButton } from '../src/replies/learning-replies.ts';

export const DATE_OPTION_DESCRIPTION = 'YYYY-MM-DD, DD-MM-YYYY, today or yesterday (default: today)';

const data = new SlashCommandBuilder()
  .setName('wotd')
  // Installed to a server or to a member's account: works in servers, the bot's DMs, group DMs and other DMs.
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel)
  .setDescription('Show the word of the day: its part of speech, pronunciation and definition')
  .addStringOption((option) =>
    option.setName('date').setDescription(DATE_OPTION_DESCRIPTION).setMaxLength(32),
  );

async function entryMessage(date: IsoDate, services: BotServices, locale?: string): Promise<OutgoingMessage> {
  const found = await services.lookup.getEntry(date, INTERACTIVE);
  const message: OutgoingMessage = { embeds: [entryEmbed(found.value, { siteUrl: services.siteUrl })] };
  if (services.learning) message.buttons = [saveButton(translatorFor(locale), found.value.date)];
  if (found.stale) message.content = STALE_NOTE;
  return message;
}

/** The day the `date` option names, or null once the member has been told why that day cannot be shown. */
export async function dateOptionOrRefuse(context: CommandContext, today: IsoDate): Promise<IsoDate | null> {
  const option = readDateOption(context.options.getString('date'), today);
  if (option.kind === 'date') return option.date;
  await context.respond(
    option.kind === 'invalid' ? invalidDateMessage(option.text, option.realDay) : notRevealedMessage(option.date, today),
  );
  return null;
}

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const date = await dateOptionOrRefuse(context, services.lookup.today());
  if (!date) return;
  await replyWhenReady(context, entryMessage(date, services, context.invoker.locale), {
    subject: { date },
    logger: services.logger,
  });
}

export const wotdCommand: SlashCommand = { data, execute };
