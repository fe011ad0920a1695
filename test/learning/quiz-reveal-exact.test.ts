import { afterEach, expect, it } from 'vitest';
import type { AnswerOutcome, QuizAnswer } from '../../src/learning/learning-store.ts';
import { openLearningStore } from '../../src/learning/open-learning-store.ts';
import { startQuizCloseJob } from '../../src/learning/quiz-close-job.ts';
import { quizRendering } from '../../src/replies/learning-replies.ts';
import type { OutgoingMessage } from '../../src/replies/interactions.ts';
import { storeBackends } from '../support/store-backends.ts';
import { captureLogger, entryFor } from '../schedule/helpers.ts';

/**
 * The daily quiz's reveal shows exactly the counts the store keeps: an answer that arrives while the close job is
 * revealing the quiz (after its counts were read, before its post was edited) is refused as too late, not counted
 * behind the post's back. And a job that fails after closing the quiz reveals it at its next pass.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const DAY = '2026-07-01';
const CLOSES = Date.parse('2026-07-02T00:00:00Z');
const rendering = quizRendering('https://wotd.site');
const answer = (userId: string, choice: number): QuizAnswer => ({ channelId: 'c1', day: DAY, guildId: 'g1', userId, choice, correct: choice === 1, answeredAt: CLOSES - 1 });

for (const backend of storeBackends) {
  backend.describe(`the daily quiz's reveal, on ${backend.name}`, () => {
    it('shows the final counts: a press during the reveal is told the quiz has closed', async () => {
      const store = await openLearningStore(await backend.fresh());
      cleanups.push(() => store.close());
      await store.registerQuiz({ channelId: 'c1', day: DAY, guildId: 'g1', messageId: 'm1', entryDate: DAY, correct: 1, closesAt: CLOSES, language: null });
      await store.answerQuiz(answer('early', 1));
      const edits: OutgoingMessage[] = [];
      const late: AnswerOutcome[] = [];
      let failNext = true;
      const job = startQuizCloseJob({
        store,
        poster: {
          edit: async (_channelId, _messageId, message) => {
            // A member presses while the post is being edited.
            late.push(await store.answerQuiz(answer(`late${late.length}`, 1)));
            if (failNext) {
              failNext = false;
              throw new Error('Discord is down');
            }
            edits.push(message);
          },
        },
        lookup: { getEntry: async (date?: string) => ({ value: entryFor(date ?? DAY), stale: false, fromCache: false }) },
        rendering,
        logger: captureLogger().logger,
        now: () => CLOSES + 1_000,
        everyMs: 3_600_000,
      });
      cleanups.push(() => job.stop());

      // The edit fails: the quiz is closed (it takes no answer) but not revealed, and still due.
      expect(await job.pass()).toBe(0);
      expect(await store.getQuiz('c1', DAY)).toMatchObject({ closed: true, revealed: false, answered: 1, right: 1 });
      expect((await store.dueToClose(CLOSES + 1_000, 10)).map((post) => post.channelId)).toEqual(['c1']);
      expect(await store.answerQuiz(answer('after', 0))).toEqual({ kind: 'closed' });
      // The next pass reveals it, with the counts the store keeps.
      expect(await job.pass()).toBe(1);
      expect(late).toEqual([{ kind: 'closed' }, { kind: 'closed' }]);
      const final = await store.getQuiz('c1', DAY);
      expect(final).toMatchObject({ closed: true, revealed: true, answered: 1, right: 1 });
      if (!final) throw new Error('the quiz is gone');
      expect(edits).toEqual([rendering.reveal(entryFor(DAY), final)]);
      expect(await store.dueToClose(CLOSES + 1_000, 10)).toEqual([]);
      expect(await job.pass()).toBe(0);
      expect(edits).toHaveLength(1);
      // The member who answered in time is told so, after the close as before it.
      expect(await store.answerQuiz(answer('early', 2))).toMatchObject({ kind: 'already', previous: { userId: 'early', choice: 1 } });
    });
  });
}
