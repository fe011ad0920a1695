import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder } from 'discord.js';
import type { BotServices, CommandContext, SlashCommand } from '../src/replies/interactions.ts';
import { privateNote } from '../src/replies/messages.ts';

const data = new SlashCommandBuilder()
  .setName('wotd-unsubscribe-me')
  .setDescription('Stop the word of the day in your DMs')
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel);

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  if (!services.subscriptions) return context.respond(privateNote('Daily posts are not available in this bot right now.'));
  const removed = await services.subscriptions.unsubscribeDm(context.invoker.userId);
  await context.respond(
    privateNote(removed ? 'Unsubscribed: no more word-of-the-day DMs from me.' : 'You do not get the word of the day in your DMs; nothing to stop.'),
  );
}

export const wotdUnsubscribeMeCommand: SlashCommand = { data, execute };
