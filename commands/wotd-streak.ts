import { InteractionContextType, SlashCommandBuilder } from 'discord.js';
import { named } from '../src/replies/i18n/command-text.ts';
import { translatorFor } from '../src/replies/i18n/translate.ts';
import type { BotServices, CommandContext, Invoker, SlashCommand } from '../src/replies/interactions.ts';
import { streakNote } from '../src/replies/learning-replies.ts';
import { privateNote } from '../src/replies/messages.ts';

const data = named(new SlashCommandBuilder(), 'command.wotd-streak.name', 'command.wotd-streak.description')
  .setContexts(InteractionContextType.Guild);

/** The server whose streaks the member may see: one the bot is in, where the command was used. */
export function streakServer(invoker: Invoker): string | null {
  if (!invoker.guildId || invoker.botInGuild === false || invoker.context === 'private_channel') return null;
  return invoker.guildId;
}

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const t = translatorFor(context.invoker.locale);
  if (!services.learning) return context.respond(privateNote(t('learning.unavailable')));
  const guildId = streakServer(context.invoker);
  if (!guildId) return context.respond(privateNote(t('learning.streak.guildOnly')));
  await context.respond(privateNote(streakNote(t, await services.learning.store.streak(guildId, context.invoker.userId))));
}

export const wotdStreakCommand: SlashCommand = { data, execute };
