import { SlashCommandBuilder } from 'discord.js';
import { entryEmbed } from '../src/discord/embeds.ts';
import type { BotServices, CommandContext, OutgoingMessage, SlashCommand } from '../src/interactions.ts';
import { readDateOption } from '../src/replies/dates.ts';
import { INTERACTIVE, replyWhenReady } from '../src/replies/deliver.ts';
import { invalidDateMessage, notRevealedMessage, STALE_NOTE } from '../src/replies/messages.ts';
import type { IsoDate } from '../src/wotd/dates.ts';

export const DATE_OPTION_DESCRIPTION = 'YYYY-MM-DD, DD-MM-YYYY, today or yesterday (default: today)';

const data = new SlashCommandBuilder()
  .setName('wotd')
  .setDescription('Show the word of the day: its part of speech, pronunciation and definition')
  .addStringOption((option) =>
    option.setName('date').setDescription(DATE_OPTION_DESCRIPTION).setMaxLength(32),
  );

async function entryMessage(date: IsoDate, services: BotServices): Promise<OutgoingMessage> {
  const found = await services.lookup.getEntry(date, INTERACTIVE);
  const message: OutgoingMessage = { embeds: [entryEmbed(found.value, { siteUrl: services.siteUrl })] };
  if (found.stale) message.content = STALE_NOTE;
  return message;
}

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const option = readDateOption(context.options.getString('date'), services.lookup.today());
  if (option.kind === 'invalid') return context.respond(invalidDateMessage(option.text, option.realDay));
  if (option.kind === 'future') return context.respond(notRevealedMessage(option.date));
  await replyWhenReady(context, entryMessage(option.date, services), {
    subject: { date: option.date },
    logger: services.logger,
  });
}

export const wotdCommand: SlashCommand = { data, execute };
