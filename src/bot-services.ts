import type { Config } from './config/settings.ts';
import type { Logger } from './config/logger.ts';
import { LearningService } from './learning/learning-service.ts';
import { openLearningStore } from './learning/open-learning-store.ts';
import { wordListOf } from './learning/word-list.ts';
import { startQuizCloseJob } from './learning/quiz-close-job.ts';
import { quizPoster } from './learning/quiz-poster.ts';
import { reviewReminderPoster } from './learning/review-reminder.ts';
import { savePoster } from './learning/save-poster.ts';
import { dailySaveButton, quizRendering, reviewReminderLine } from './replies/learning-replies.ts';
import type { BotServices } from './replies/interactions.ts';
import type { DailyPosts } from './schedule/daily-posts.ts';
import { storeLocation } from './store/open-store.ts';
import type { WotdAdapter } from './wotd/adapter.ts';
import type { DatabaseMirror } from './wotd/mirror/open-mirror.ts';

/**
 * What the commands are handed, the same on Discord and at the console: lookups, subscriptions, privacy, and the
 * learning loop on the same store (its data exported and erased by /wotd-data with the rest). `close` closes what
 * was opened here.
 */
export async function openBotServices(
  config: Config,
  lookup: WotdAdapter,
  daily: DailyPosts,
  logger: Logger,
  mirror: DatabaseMirror | null,
): Promise<BotServices & { close(): Promise<void> }> {
  const store = await openLearningStore(storeLocation(config), logger);
  const learning = new LearningService(store, wordListOf(lookup, mirror?.reader), {
    quizChannel: daily.store.quizOn,
  });
  daily.privacy.include(store);
  // The daily quiz: its channels' posts become quizzes, and its own job closes them (with a poster that can edit).
  const rendering = quizRendering(config.WOTD_SITE_URL);
  let closing: { stop(): Promise<void> } | undefined;
  const subscriptionOf = (channelId: string) => daily.store.get(channelId);
  // Every daily post has Save, next to the transport: under the quiz's answers, which the quiz puts in above it.
  daily.wrapPoster((inner) => savePoster(inner, { subscriptionOf, button: dailySaveButton }));
  daily.wrapPoster((inner, { claims }) => {
    // In a cluster every member runs the job, and each quiz is closed by whichever member claims it.
    if (inner.edit) closing = startQuizCloseJob({ store, poster: inner, lookup, rendering, logger, ...(claims ? { claims } : {}) });
    return quizPoster(inner, { learning, lookup, rendering, logger, subscriptionOf });
  });
  // A member's daily DM with review on says how many of their saved words are due.
  daily.wrapPoster((inner) => reviewReminderPoster(inner, { store, subscriptionOf, line: reviewReminderLine, now: learning.now }));
  return {
    lookup,
    siteUrl: config.WOTD_SITE_URL,
    logger,
    subscriptions: daily.subscriptions,
    privacy: daily.privacy,
    learning,
    async close() {
      await closing?.stop();
      await learning.close();
    },
  };
}
