import type { Logger } from '../config/logger.ts';
import type { ChannelPoster } from '../schedule/poster.ts';
import { addDays, utcDateOf } from '../wotd/dates.ts';
import type { WotdLookup } from '../wotd/lookup.ts';
import type { LearningStore } from './learning-store.ts';
import type { QuizRendering } from './quiz-poster.ts';

/** Quizzes and their answers are kept this many days after their day, then erased (streaks keep their counts). */
export const QUIZ_RETENTION_DAYS = 35;
const CHECK_EVERY_MS = 60_000;
/** Quizzes closed per pass; more wait for the next minute. */
const PER_PASS = 200;

export interface QuizCloseJobOptions {
  store: LearningStore;
  poster: Pick<ChannelPoster, 'edit'>;
  lookup: Pick<WotdLookup, 'getEntry'>;
  rendering: QuizRendering;
  logger: Logger;
  now?: () => number;
  everyMs?: number;
}

/** Discord's answer for a message or channel that is gone or out of reach: the quiz closes without its edit. */
function unreachable(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return status === 403 || status === 404;
}

/**
 * The daily quiz's own scheduled job, beside the scheduler rather than in it: every minute it closes the quizzes
 * whose time has come, each by editing its post once to reveal the answer and the counts, and then marking it
 * closed, which ends the streaks of its server's members who had no right answer that day. The edit comes first: a
 * process that dies between the two edits the post again (with the same text) at its next pass. Once a UTC day it
 * erases quizzes past QUIZ_RETENTION_DAYS.
 */
export function startQuizCloseJob(options: QuizCloseJobOptions): { pass(): Promise<number>; stop(): Promise<void> } {
  const now = options.now ?? Date.now;
  const log = options.logger.child({ component: 'daily-quiz' });
  let prunedOn: string | null = null;
  let running: Promise<number> | null = null;

  async function closeDue(): Promise<number> {
    let closed = 0;
    for (const post of await options.store.dueToClose(now(), PER_PASS)) {
      try {
        const { value: entry } = await options.lookup.getEntry(post.entryDate, { priority: 'background' });
        const shown = options.rendering.reveal(entry, post);
        try {
          await options.poster.edit?.(post.channelId, post.messageId, shown);
        } catch (error) {
          if (!unreachable(error)) throw error;
          log.info({ channelId: post.channelId, day: post.day }, 'the quiz post is gone or out of reach; closing the quiz without revealing it');
        }
        if (await options.store.closeQuiz(post.channelId, post.day)) closed += 1;
      } catch (error) {
        log.warn({ err: error, channelId: post.channelId, day: post.day }, 'could not close a daily quiz; trying again in a minute');
      }
    }
    const today = utcDateOf(new Date(now()));
    if (prunedOn !== today) {
      prunedOn = today;
      await options.store.pruneQuizzes(addDays(today, -QUIZ_RETENTION_DAYS)).catch((error: unknown) => {
        prunedOn = null;
        log.warn({ err: error }, 'could not erase old daily quizzes; trying again later');
      });
    }
    return closed;
  }

  const pass = (): Promise<number> => {
    running ??= closeDue().finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(() => {
    pass().catch((error: unknown) => log.warn({ err: error }, 'the daily quiz pass failed'));
  }, options.everyMs ?? CHECK_EVERY_MS);
  timer.unref();
  return {
    pass,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
