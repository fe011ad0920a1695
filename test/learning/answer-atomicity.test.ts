import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { QuizAnswer } from '../../src/learning/learning-store.ts';
import { openPostgresLearningDriver } from '../../src/learning/postgres-learning-driver.ts';
import type { SqlDriver } from '../../src/learning/sql-driver.ts';
import { SqlLearningStore } from '../../src/learning/sql-learning-store.ts';
import { openSqliteLearningDriver } from '../../src/learning/sqlite-learning-driver.ts';
import { postgresBackend } from '../support/store-backends.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A driver whose transactions fail at their `failAt`-th statement, as a process killed there would stop. */
function failing(driver: SqlDriver, state: { failAt: number | null; statements: number }): SqlDriver {
  return {
    ...driver,
    query: driver.query,
    transaction: (work) =>
      driver.transaction((query) => {
        let step = 0;
        return work(async (sql, parameters) => {
          step += 1;
          state.statements = Math.max(state.statements, step);
          if (state.failAt === step) throw new Error(`cut at statement ${step}`);
          return query(sql, parameters);
        });
      }),
  };
}

const answer = (userId: string): QuizAnswer => ({ channelId: 'c1', day: '2026-03-02', guildId: 'g1', userId, choice: 2, correct: true, answeredAt: 1 });

async function checkEveryStep(open: () => Promise<SqlDriver>) {
  const state = { failAt: null as number | null, statements: 0 };
  const driver = await open();
  const store = await SqlLearningStore.open(failing(driver, state));
  cleanups.push(() => store.close());
  for (const day of ['2026-03-01', '2026-03-02']) {
    await store.registerQuiz({ channelId: 'c1', day, guildId: 'g1', messageId: `m-${day}`, entryDate: day, correct: 2, closesAt: 10, language: null });
  }
  // A member with a streak of one from the day before: the answer below must make it two, once.
  await store.answerQuiz({ ...answer('u1'), day: '2026-03-01' });
  await store.answerQuiz(answer('probe'));
  const steps = state.statements;
  // A right answer's statements between BEGIN and COMMIT: the quiz's row (on SQLite with the streaks), the answers
  // with their counts, the streaks with the board's counts; on PostgreSQL also the board lock and the streaks' read.
  expect(steps).toBe(driver.dialect === 'sqlite' ? 3 : 5);
  for (let failAt = 1; failAt <= steps; failAt += 1) {
    state.failAt = failAt;
    await expect(store.answerQuiz(answer('u1'))).rejects.toThrow(`cut at statement ${failAt}`);
    // Nothing of the cut answer is there: no answer, no count, the streak as it was.
    expect((await store.exportMember('u1')).answers).toHaveLength(1);
    expect(await store.getQuiz('c1', '2026-03-02')).toMatchObject({ answered: 1, right: 1 });
    expect(await store.streak('g1', 'u1')).toMatchObject({ current: 1, total: 1 });
  }
  state.failAt = null;
  expect(await store.answerQuiz(answer('u1'))).toMatchObject({ kind: 'recorded', streak: { current: 2, total: 2 } });
  expect(await store.answerQuiz(answer('u1'))).toMatchObject({ kind: 'already' });
  expect(await store.getQuiz('c1', '2026-03-02')).toMatchObject({ answered: 2, right: 2 });
}

describe('an answer cut at any statement leaves nothing behind, and the retry counts once', () => {
  it('on SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wotd-atomic-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    await checkEveryStep(() => openSqliteLearningDriver(`sqlite://${join(dir, 'store.sqlite')}`));
  });

  postgresBackend.describe('on PostgreSQL', () => {
    it('on PostgreSQL', async () => {
      const location = await postgresBackend.fresh();
      await checkEveryStep(() => openPostgresLearningDriver(location.url));
    });
  });
});
