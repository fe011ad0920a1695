import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder } from 'discord.js';
import type { BotServices, CommandContext, SlashCommand } from '../src/replies/interactions.ts';
import { privateNote } from '../src/replies/messages.ts';
import { named } from '../src/replies/i18n/command-text.ts';
import { privateT } from '../src/replies/i18n/reply-locale.ts';

const data = named(new SlashCommandBuilder(), 'command.wotd-unsubscribe-me.name', 'command.wotd-unsubscribe-me.description')
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel);

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const t = privateT(context.invoker);
  if (!services.subscriptions) return context.respond(privateNote(t('admin.unavailable')));
  const removed = await services.subscriptions.unsubscribeDm(context.invoker.userId);
  await context.respond(privateNote(removed ? t('unsubscribeMe.done') : t('unsubscribeMe.none')));
}

export const wotdUnsubscribeMeCommand: SlashCommand = { data, execute };
