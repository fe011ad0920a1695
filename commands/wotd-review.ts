import { ApplicationIntegrationType, InteractionContextType, SlashCommandBuilder } from 'discord.js';
import { named } from '../src/replies/i18n/command-text.ts';
import { isGrade } from '../src/learning/review.ts';
import { discordTimestamp } from '../src/replies/date-text.ts';
import { INTERACTIVE, replaceWhenReady } from '../src/replies/deliver.ts';
import { translatorFor } from '../src/replies/i18n/translate.ts';
import type { BotServices, ButtonContext, CommandContext, OutgoingMessage, SlashCommand } from '../src/replies/interactions.ts';
import { REVIEW_PREFIX, reviewAnswer, reviewPrompt, shownWord } from '../src/replies/learning-replies.ts';
import { privateNote } from '../src/replies/messages.ts';
import type { LearningService } from '../src/learning/learning-service.ts';
import type { Translate } from '../src/replies/i18n/translate.ts';
import { parseIsoDate } from '../src/wotd/dates.ts';

const data = named(new SlashCommandBuilder(), 'command.wotd-review.name', 'command.wotd-review.description')
  .setIntegrationTypes(ApplicationIntegrationType.GuildInstall, ApplicationIntegrationType.UserInstall)
  .setContexts(InteractionContextType.Guild, InteractionContextType.BotDM, InteractionContextType.PrivateChannel);

/** The member's next due word as a question, or that nothing is due; `note` goes first (the last grade's outcome). */
async function nextQuestion(learning: LearningService, userId: string, t: Translate, note?: string): Promise<OutgoingMessage> {
  const { word, due } = await learning.nextReview(userId);
  if (!word) return privateNote(note ? `${note}\n\n${t('learning.review.none')}` : t('learning.review.none'));
  return reviewPrompt(t, userId, word, due, note);
}

async function execute(context: CommandContext, services: BotServices): Promise<void> {
  const t = translatorFor(context.invoker.locale);
  if (!services.learning) return context.respond(privateNote(t('learning.unavailable')));
  await context.respond(await nextQuestion(services.learning, context.invoker.userId, t));
}

type ReviewButton = { kind: 'show'; userId: string; date: string } | { kind: 'grade'; userId: string; date: string; grade: string };

/**
 * `review:show:<user>:<date>` and `review:grade:<user>:<date>:<grade>`: about the saved words of `<user>`, which
 * must be whoever presses (a review message is private, and its id says whose it is all the same).
 */
function parseButton(customId: string): ReviewButton | null {
  const match = /^review:(show|grade):([\w-]{1,32}):(\d{4}-\d{2}-\d{2})(?::(again|hard|good|easy))?$/.exec(customId);
  if (!match?.[1] || !match[2] || !match[3] || !parseIsoDate(match[3])) return null;
  if (match[1] === 'show') return match[4] ? null : { kind: 'show', userId: match[2], date: match[3] };
  return match[4] ? { kind: 'grade', userId: match[2], date: match[3], grade: match[4] } : null;
}

async function handleButton(context: ButtonContext, services: BotServices): Promise<void> {
  const t = translatorFor(context.invoker.locale);
  const learning = services.learning;
  if (!learning) return context.respond(privateNote(t('learning.unavailable')));
  const request = parseButton(context.customId);
  const userId = context.invoker.userId;
  // A button from before its id named its member: the message is the presser's own, so it moves on to their next word.
  if (!request) return context.update(await nextQuestion(learning, userId, t));
  if (request.userId !== userId) return context.respond(privateNote(t('learning.review.notYours')));
  const saved = await learning.store.getWord(userId, request.date);
  if (!saved) return context.update(await nextQuestion(learning, userId, t, t('learning.words.notSaved')));
  // Each step replaces the same private message: the meaning and the grades, then the next due word.
  if (request.kind === 'show') {
    const answer = services.lookup.getEntry(request.date, INTERACTIVE).then((found) => reviewAnswer(t, userId, found.value));
    return replaceWhenReady(context, answer, { subject: { date: request.date }, logger: services.logger });
  }
  if (!isGrade(request.grade)) return context.update(await nextQuestion(learning, userId, t));
  const graded = await learning.grade(userId, request.date, request.grade);
  const note = graded
    ? t('learning.review.next', { word: shownWord(saved.word), when: discordTimestamp(new Date(graded.due), 'R') })
    : t('learning.words.notSaved');
  await context.update(await nextQuestion(learning, userId, t, note));
}

export const wotdReviewCommand: SlashCommand = { data, execute, button: { prefix: REVIEW_PREFIX, handle: handleButton } };
