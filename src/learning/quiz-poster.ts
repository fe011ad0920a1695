import type { Logger } from '../config/logger.ts';
import type { ChannelPoster, DailyButton, DailyMessage } from '../schedule/poster.ts';
import type { Subscription } from '../schedule/subscription.ts';
import type { PostPart } from '../schedule/post-look.ts';
import { localDateOf, parseLocalTime, zonedInstant } from '../schedule/zoned-time.ts';
import { addDays, type IsoDate } from '../wotd/dates.ts';
import type { Entry } from '../wotd/entry.ts';
import type { WotdLookup } from '../wotd/lookup.ts';
import type { LearningService } from './learning-service.ts';
import type { QuizPost } from './learning-store.ts';
import { quizFrom, TooFewWordsError, type QuizChoices } from './quiz-choices.ts';

/** How a quiz post looks: its question, and its reveal once closed. Built in src/replies/, handed in. */
export interface QuizRendering {
  /** `parts`: the subscription's parts (post-look.ts); absent, all. */
  question(quiz: QuizChoices, language: string | null, parts?: readonly PostPart[]): { embeds: DailyMessage['embeds']; buttons: DailyButton[] };
  reveal(entry: Entry, post: QuizPost): { embeds: DailyMessage['embeds']; buttons: DailyButton[] };
}

export interface QuizPosterOptions {
  learning: LearningService;
  lookup: Pick<WotdLookup, 'getEntry'>;
  subscriptionOf(channelId: string): Promise<Subscription | null>;
  rendering: QuizRendering;
  logger: Logger;
}

/** The button of choice `index` on the quiz of `day`: nothing else travels in it (see LearningService.answerDaily). */
export function dailyQuizButtonId(day: IsoDate, index: number): string {
  return `quiz:day:${day}:${index}`;
}

/**
 * When a quiz posted at `postedAt` closes: at the subscription's `quizCloses` local time, else at the end of the
 * channel's local day (the next local midnight); at least an hour after the post, at most two days.
 */
export function quizClosesAt(subscription: Pick<Subscription, 'timeZone' | 'quizCloses'>, postedAt: Date): number {
  const localDay = localDateOf(postedAt, subscription.timeZone);
  const time = subscription.quizCloses ? parseLocalTime(subscription.quizCloses) : null;
  let closes = time ? zonedInstant(localDay, time, subscription.timeZone).getTime() : zonedInstant(addDays(localDay, 1), { hour: 0, minute: 0 }, subscription.timeZone).getTime();
  if (time && closes <= postedAt.getTime()) closes = zonedInstant(addDays(localDay, 1), time, subscription.timeZone).getTime();
  const earliest = postedAt.getTime() + 60 * 60_000;
  return Math.min(Math.max(closes, earliest), postedAt.getTime() + 2 * 86_400_000);
}

/**
 * Decorates the transport's poster: a post for a server channel whose subscription has `quiz` on becomes the day's
 * quiz (the word, its part of speech and IPA, four candidate meanings and their buttons), and the quiz is recorded
 * with the post's message id once Discord has it, so the buttons answer only on that message. A post found from an
 * earlier attempt is recorded the same way. The four choices are recorded before the first attempt posts, and every
 * later attempt for that channel's day shows those (see QuizPost.choices). Anything else passes through unchanged; a quiz that cannot be made (too
 * few other words) posts the plain word, and says so in the log.
 */
export function quizPoster(inner: ChannelPoster, options: QuizPosterOptions): ChannelPoster {
  const asQuiz = async (message: DailyMessage): Promise<{ message: DailyMessage; record: (messageId: string) => Promise<void> } | null> => {
    const day = message.day;
    if (!day) return null;
    const subscription = await options.subscriptionOf(message.channelId);
    if (!subscription || subscription.quiz !== true || subscription.channelId.startsWith('dm:')) return null;
    const { value: entry } = await options.lookup.getEntry(day, { priority: 'scheduled' });
    const store = options.learning.store;
    const earlier = await store.getQuiz(message.channelId, day);
    const record = (quiz: QuizChoices, messageId: string) =>
      options.learning.registerQuiz({
        channelId: message.channelId,
        day,
        guildId: subscription.guildId,
        messageId,
        entryDate: entry.date,
        correct: quiz.correct,
        choices: quiz.dates,
        closesAt: quizClosesAt(subscription, new Date(options.learning.now())),
        language: subscription.language ?? null,
      });
    let quiz: QuizChoices;
    if (earlier?.choices && earlier.entryDate === entry.date) {
      // An earlier attempt made them: the same four, though the word list may have changed since.
      const shown = await Promise.all(earlier.choices.map(async (date) => (date === entry.date ? entry : (await options.lookup.getEntry(date, { priority: 'scheduled' })).value)));
      quiz = quizFrom(entry, shown);
    } else {
      try {
        quiz = await options.learning.quiz(entry, `${message.channelId}:${day}`, 'scheduled');
      } catch (error) {
        if (!(error instanceof TooFewWordsError)) throw error;
        options.logger.warn({ channelId: message.channelId, day }, 'too few other words for a quiz; posting the word without one');
        return null;
      }
      // Kept before the post: an attempt that dies after Discord made the post leaves them for the next.
      await record(quiz, earlier?.messageId ?? '');
    }
    const shown = options.rendering.question(quiz, subscription.language ?? null, subscription.parts);
    return { message: { ...message, embeds: shown.embeds, buttons: shown.buttons }, record: (messageId: string) => record(quiz, messageId) };
  };
  const poster: ChannelPoster = {
    async post(message) {
      const quiz = await asQuiz(message);
      if (!quiz) return inner.post(message);
      const posted = await inner.post(quiz.message);
      // A failure here fails the post's record too, so the retry finds the post and records both.
      await quiz.record(posted.messageId);
      return posted;
    },
    async findEarlierPost(message, since) {
      const quiz = await asQuiz(message);
      const found = await inner.findEarlierPost(quiz?.message ?? message, since);
      if (found && quiz) await quiz.record(found.messageId);
      return found;
    },
  };
  if (inner.edit) poster.edit = inner.edit.bind(inner);
  if (inner.pin) poster.pin = inner.pin.bind(inner);
  return poster;
}
