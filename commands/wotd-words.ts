import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder } from 'discord.js';
import { named } from '../src/replies/i18n/command-text.ts';
import { translatorFor, type Translate } from '../src/replies/i18n/translate.ts';
import type { BotServices, ButtonContext, CommandContext, SlashCommand } from '../src/replies/interactions.ts';
import { savedWordsMessage, shownWord, WORDS_PREFIX } from '../src/replies/learning-replies.ts';
import { INTERACTIVE } from '../src/replies/deliver.ts';
import { failureMessage, privateNote } from '../src/replies/messages.ts';
import { parseIsoDate } from '../src/wotd/dates.ts';
import { MAX_SAVED_WORDS } from '../src/learning/learning-store.ts';

const data = named(new SlashCommandBuilder(), 'command.wotd-words.name', 'command.wotd-words.description')
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel)
  .addIntegerOption((option) => named(option, 'option.page.name', 'command.option.page.description').setMinValue(1).setMaxValue(10_000));

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const t = translatorFor(context.invoker.locale);
  if (!services.learning) return context.respond(privateNote(t('learning.unavailable')));
  const page = (context.options.getInteger('page') ?? 1) - 1;
  await context.respond(savedWordsMessage(t, await services.learning.wordsPage(context.invoker.userId, page)));
}

/** `words:save:<date>`, `words:page:<n>`, `words:rm:<date>:<page>`: they act on the list of whoever presses. */
function parseButton(customId: string): { kind: 'save'; date: string } | { kind: 'page'; page: number } | { kind: 'rm'; date: string; page: number } | null {
  const save = /^words:save:(\d{4}-\d{2}-\d{2})$/.exec(customId);
  if (save?.[1] && parseIsoDate(save[1])) return { kind: 'save', date: save[1] };
  const page = /^words:page:(-?\d{1,5})$/.exec(customId);
  if (page?.[1]) return { kind: 'page', page: Number(page[1]) };
  const remove = /^words:rm:(\d{4}-\d{2}-\d{2}):(\d{1,5})$/.exec(customId);
  if (remove?.[1] && remove[2] && parseIsoDate(remove[1])) return { kind: 'rm', date: remove[1], page: Number(remove[2]) };
  return null;
}

async function save(context: ButtonContext, services: BotServices & Required<Pick<BotServices, 'learning'>>, date: string, t: Translate): Promise<void> {
  await context.defer({ ephemeral: true });
  let entry;
  try {
    entry = (await services.lookup.getEntry(date, INTERACTIVE)).value;
  } catch (error) {
    return context.respond(failureMessage(error, { date }));
  }
  const outcome = await services.learning.save(context.invoker.userId, entry);
  const word = shownWord(entry.word);
  const content =
    outcome === 'saved' ? t('learning.save.saved', { word }) : outcome === 'already' ? t('learning.save.already', { word }) : t('learning.save.full', { max: MAX_SAVED_WORDS });
  await context.respond(privateNote(content));
}

async function handleButton(context: ButtonContext, services: BotServices): Promise<void> {
  const t = translatorFor(context.invoker.locale);
  const learning = services.learning;
  if (!learning) return context.respond(privateNote(t('learning.unavailable')));
  const request = parseButton(context.customId);
  if (!request) return context.respond(privateNote(t('learning.words.notSaved')));
  if (request.kind === 'save') return save(context, { ...services, learning }, request.date, t);
  const userId = context.invoker.userId;
  if (request.kind === 'page') return context.update(savedWordsMessage(t, await learning.wordsPage(userId, request.page)));
  const removed = await learning.store.getWord(userId, request.date);
  const done = await learning.store.removeWord(userId, request.date);
  const view = await learning.wordsPage(userId, request.page);
  const message = savedWordsMessage(t, view);
  const note = done && removed ? t('learning.words.removed', { word: shownWord(removed.word) }) : t('learning.words.notSaved');
  await context.update({ ...message, content: note });
}

export const wotdWordsCommand: SlashCommand = { data, execute, button: { prefix: WORDS_PREFIX, handle: handleButton } };
