import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder } from 'discord.js';
import { named } from '../src/replies/i18n/command-text.ts';
import { TooFewWordsError } from '../src/learning/quiz-choices.ts';
import { INTERACTIVE, replyWhenReady, updateWhenReady } from '../src/replies/deliver.ts';
import { translatorFor, type Translate } from '../src/replies/i18n/translate.ts';
import type { BotServices, ButtonContext, CommandContext, OutgoingMessage, Respondable, SlashCommand } from '../src/replies/interactions.ts';
import { answerNote, choiceButtons, closedNote, QUIZ_PREFIX, quizEmbed } from '../src/replies/learning-replies.ts';
import { privateNote } from '../src/replies/messages.ts';
import { parseIsoDate, type IsoDate } from '../src/wotd/dates.ts';
import type { LearningService } from '../src/learning/learning-service.ts';
import { dateOptionOrRefuse } from './wotd.ts';

const data = named(new SlashCommandBuilder(), 'command.wotd-quiz.name', 'command.wotd-quiz.description')
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel)
  .addStringOption((option) => named(option, 'option.date.name', 'command.wotd.date.description').setMaxLength(32));

/**
 * Buttons: `quiz:try:<date>:<picked date>` on a private quiz (the date of the entry whose definition was picked; it
 * counts toward nothing, so there is nothing to forge), and `quiz:day:<day>:<choice>` on a channel's daily post,
 * checked against the quiz's record of that channel, day and message.
 */
const TRY = /^quiz:try:(\d{4}-\d{2}-\d{2}):(\d{4}-\d{2}-\d{2})$/;
const DAILY = /^quiz:day:(\d{4}-\d{2}-\d{2}):([0-3])$/;

async function practiceQuiz(date: IsoDate, channelId: string, services: BotServices, learning: LearningService, t: Translate): Promise<OutgoingMessage> {
  const { value: entry } = await services.lookup.getEntry(date, INTERACTIVE);
  try {
    const quiz = await learning.quiz(entry, `${channelId}:${date}`, 'interactive');
    return {
      ephemeral: true,
      embeds: [quizEmbed(t, quiz, services.siteUrl, t('learning.quiz.practice'))],
      buttons: choiceButtons((index) => `${QUIZ_PREFIX}:try:${date}:${quiz.dates[index] ?? date}`),
    };
  } catch (error) {
    if (error instanceof TooFewWordsError) return privateNote(t('learning.quiz.tooFew'));
    throw error;
  }
}

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const t = translatorFor(context.invoker.locale);
  if (!services.learning) return context.respond(privateNote(t('learning.unavailable')));
  const date = await dateOptionOrRefuse(context, services.lookup.today());
  if (!date) return;
  // Private from the start: the deferral, if the lookup is slow, must not show the quiz's place to the channel.
  const answer = practiceQuiz(date, context.invoker.channelId, services, services.learning, t);
  await replyWhenReady(privately(context), answer, { subject: { date }, logger: services.logger });
}

/** The interaction, deferring privately when an answer is slow: a quiz's answers are the member's own. */
function privately(context: Respondable): Respondable {
  return {
    get invoker() {
      return context.invoker;
    },
    get acknowledged() {
      return context.acknowledged;
    },
    defer: () => context.defer({ ephemeral: true }),
    respond: (message) => context.respond(message),
  };
}

async function handlePractice(context: ButtonContext, services: BotServices, quizDate: IsoDate, picked: IsoDate, t: Translate): Promise<void> {
  // Replaces the member's own private quiz with the verdict.
  const verdict = services.lookup.getEntry(quizDate, INTERACTIVE).then(
    ({ value: entry }): OutgoingMessage => ({ content: answerNote(t, entry, picked === quizDate), embeds: [], buttons: [] }),
  );
  await updateWhenReady(context, verdict, { subject: { date: quizDate }, logger: services.logger });
}

async function handleDaily(context: ButtonContext, services: BotServices, learning: LearningService, day: IsoDate, choice: number, t: Translate): Promise<void> {
  const { guildId, channelId, userId } = context.invoker;
  const messageId = context.messageId;
  if (!guildId || !messageId) return context.respond(privateNote(t('learning.quiz.gone')));
  // One answer, however long the store takes: a private deferral goes out if it is not ready in 150 ms.
  const reply = learning.answerDaily({ channelId, guildId, userId, messageId, day, choice }).then(async (answered): Promise<OutgoingMessage> => {
    switch (answered.kind) {
      case 'gone':
        return privateNote(t('learning.quiz.gone'));
      case 'closed': {
        const { value: entry } = await services.lookup.getEntry(answered.entryDate, INTERACTIVE);
        return privateNote(closedNote(t, entry));
      }
      case 'already':
        return privateNote(t(answered.right ? 'learning.quiz.alreadyRight' : 'learning.quiz.alreadyWrong'));
      case 'recorded': {
        const { value: entry } = await services.lookup.getEntry(answered.entryDate, INTERACTIVE);
        return privateNote(answerNote(t, entry, answered.right, answered.streak));
      }
    }
  });
  await replyWhenReady(privately(context), reply, { subject: { date: day }, logger: services.logger });
}

async function handleButton(context: ButtonContext, services: BotServices): Promise<void> {
  const t = translatorFor(context.invoker.locale);
  if (!services.learning) return context.respond(privateNote(t('learning.unavailable')));
  const daily = DAILY.exec(context.customId);
  if (daily?.[1] && daily[2] && parseIsoDate(daily[1])) return handleDaily(context, services, services.learning, daily[1], Number(daily[2]), t);
  const practice = TRY.exec(context.customId);
  if (practice?.[1] && practice[2] && parseIsoDate(practice[1]) && parseIsoDate(practice[2])) return handlePractice(context, services, practice[1], practice[2], t);
  await context.respond(privateNote(t('learning.quiz.gone')));
}

export const wotdQuizCommand: SlashCommand = { data, execute, button: { prefix: QUIZ_PREFIX, handle: handleButton } };
