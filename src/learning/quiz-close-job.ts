import type { Logger } from '../config/logger.ts';
import type { DeliveryClaim, DeliveryClaims } from '../schedule/delivery-claims.ts';
import type { ChannelPoster } from '../schedule/poster.ts';
import { addDays, utcDateOf } from '../wotd/dates.ts';
import type { WotdLookup } from '../wotd/lookup.ts';
import type { LearningStore, QuizPost } from './learning-store.ts';
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
  /**
   * Cluster mode: the cluster's claims. Every member runs the job; a quiz is closed (its post edited) only by the
   * member that claims it, and the day's pruning only by the member that claims that.
   */
  claims?: DeliveryClaims;
  now?: () => number;
  everyMs?: number;
}

/** The claims' keys for the job's work, apart from the daily posts' own (channel, day) claims. */
export const closeClaimOf = (channelId: string): string => `quiz-close:${channelId}`;
const PRUNE_CLAIM = 'quiz-prune';

/** Discord's answer for a message or channel that is gone or out of reach: the quiz closes without its edit. */
function unreachable(error: unknown): boolean {
  const status = (error as { status?: unknown } | null)?.status;
  return status === 403 || status === 404;
}

/**
 * The daily quiz's own scheduled job, beside the scheduler rather than in it: every minute it closes the quizzes
 * whose time has come and reveals them. It closes each in the store first (no answer is taken after that, and the
 * streaks of its server's members who had no right answer that day end), then reads its counts, which are final,
 * and edits its post once to show the answer and them, then marks it revealed. A process that dies after the close
 * leaves the quiz due: the next pass reveals it (an edit made before the death is made again, with the same text).
 * Once a UTC day it erases quizzes past QUIZ_RETENTION_DAYS.
 *
 * In a cluster each quiz is closed under a claim (options.claims): of the members passing at once one edits the
 * post, the others leave it; a member that dies holding the claim leaves it to run out, and the next pass of a
 * living member closes the quiz.
 */
export function startQuizCloseJob(options: QuizCloseJobOptions): { pass(): Promise<number>; stop(): Promise<void> } {
  const now = options.now ?? Date.now;
  const log = options.logger.child({ component: 'daily-quiz' });
  let prunedOn: string | null = null;
  let running: Promise<number> | null = null;

  async function closeDue(): Promise<number> {
    let closed = 0;
    for (const post of await options.store.dueToClose(now(), PER_PASS)) {
      const claim = options.claims ? await options.claims.claim(closeClaimOf(post.channelId), post.day) : null;
      // Another member is closing it (or the claims are out of reach: the next pass tries again).
      if (options.claims && !claim) continue;
      try {
        if (await closeOne(post, claim)) closed += 1;
      } catch (error) {
        log.warn({ err: error, channelId: post.channelId, day: post.day }, 'could not close a daily quiz; trying again in a minute');
      } finally {
        await claim?.release();
      }
    }
    const today = utcDateOf(new Date(now()));
    if (prunedOn !== today) {
      prunedOn = today;
      await prune(today).catch((error: unknown) => {
        prunedOn = null;
        log.warn({ err: error }, 'could not erase old daily quizzes; trying again later');
      });
    }
    return closed;
  }

  async function closeOne(post: QuizPost, claim: DeliveryClaim | null): Promise<boolean> {
    // A member that claimed it after an earlier holder died may find it revealed by then.
    const found = options.claims ? await options.store.getQuiz(post.channelId, post.day) : post;
    if (!found || found.revealed) return false;
    if (!found.closed) await options.store.closeQuiz(found.channelId, found.day);
    // Read after the close: the counts shown are those the store will keep.
    const current = await options.store.getQuiz(found.channelId, found.day);
    if (!current || current.revealed) return false;
    const { value: entry } = await options.lookup.getEntry(current.entryDate, { priority: 'background' });
    const shown = options.rendering.reveal(entry, current);
    // A lookup slow enough for the lease to run out leaves the reveal to whoever claimed it since.
    if (claim && !claim.held()) return false;
    try {
      // A quiz recorded for a post that never came has nothing to edit.
      if (current.messageId !== '') await options.poster.edit?.(current.channelId, current.messageId, shown);
    } catch (error) {
      if (!unreachable(error)) throw error;
      log.info({ channelId: current.channelId, day: current.day }, 'the quiz post is gone or out of reach; closing the quiz without revealing it');
    }
    await options.store.markRevealed(current.channelId, current.day);
    return true;
  }

  async function prune(today: string): Promise<void> {
    // One member a day prunes; the others find the claim taken (it is not released, so it lasts its lease).
    if (options.claims && !(await options.claims.claim(PRUNE_CLAIM, today))) return;
    await options.store.pruneQuizzes(addDays(today, -QUIZ_RETENTION_DAYS));
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
