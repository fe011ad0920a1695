import { InteractionContextType, SlashCommandBuilder } from 'discord.js';
import { named } from '../src/replies/i18n/command-text.ts';
import { translatorFor } from '../src/replies/i18n/translate.ts';
import type { BotServices, ButtonContext, CommandContext, SlashCommand } from '../src/replies/interactions.ts';
import { BOARD_PREFIX, leaderboardMessage } from '../src/replies/learning-replies.ts';
import { privateNote } from '../src/replies/messages.ts';
import { streakServer } from './wotd-streak.ts';

const data = named(new SlashCommandBuilder(), 'command.wotd-leaderboard.name', 'command.wotd-leaderboard.description')
  .setContexts(InteractionContextType.Guild)
  .addIntegerOption((option) => named(option, 'option.page.name', 'command.option.page.description').setMinValue(1).setMaxValue(10_000));

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const t = translatorFor(context.invoker.locale);
  if (!services.learning) return context.respond(privateNote(t('learning.unavailable')));
  const guildId = streakServer(context.invoker);
  if (!guildId) return context.respond(privateNote(t('learning.streak.guildOnly')));
  const page = (context.options.getInteger('page') ?? 1) - 1;
  await context.respond(leaderboardMessage(t, await services.learning.leaderboardPage(guildId, context.invoker.userId, page)));
}

/** `board:page:<n>`: a page of the board of the server the button is pressed in, for whoever presses it. */
async function handleButton(context: ButtonContext, services: BotServices): Promise<void> {
  const t = translatorFor(context.invoker.locale);
  if (!services.learning) return context.respond(privateNote(t('learning.unavailable')));
  const guildId = streakServer(context.invoker);
  const page = /^board:page:(-?\d{1,5})$/.exec(context.customId)?.[1];
  if (!guildId || page === undefined) return context.respond(privateNote(t('learning.streak.guildOnly')));
  await context.update(leaderboardMessage(t, await services.learning.leaderboardPage(guildId, context.invoker.userId, Number(page))));
}

export const wotdLeaderboardCommand: SlashCommand = { data, execute, button: { prefix: BOARD_PREFIX, handle: handleButton } };
