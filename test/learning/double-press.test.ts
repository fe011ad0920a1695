import { afterEach, expect, it } from 'vitest';
import { LearningService } from '../../src/learning/learning-service.ts';
import type { LearningStore } from '../../src/learning/learning-store.ts';
import { openLearningStore } from '../../src/learning/open-learning-store.ts';
import { tempStore } from '../schedule/helpers.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const DAY = '2026-03-01';

/** A learning service on a SQLite store whose answer writes are counted; the next `failing` of them fail. */
async function world() {
  const temp = tempStore();
  cleanups.push(temp.cleanup);
  const store = await openLearningStore({ url: temp.url });
  cleanups.push(() => store.close());
  const writes = { count: 0, failing: 0 };
  const counted = new Proxy(store, {
    get(target, property) {
      if (property === 'answerQuiz') {
        return (...args: Parameters<LearningStore['answerQuiz']>) => {
          writes.count += 1;
          if (writes.failing === 0) return target.answerQuiz(...args);
          writes.failing -= 1;
          return Promise.reject(new Error('the store is down'));
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const learning = new LearningService(counted, { candidatesFor: async () => [] }, { fuzz: false });
  await learning.registerQuiz({ channelId: 'c1', day: DAY, guildId: 'g1', messageId: 'm1', entryDate: DAY, correct: 2, closesAt: Date.now() + 3_600_000, language: null });
  const press = (userId: string, choice: number) => learning.answerDaily({ channelId: 'c1', guildId: 'g1', userId, messageId: 'm1', day: DAY, choice });
  return { store, writes, press };
}

it('tells a press made while the member’s first is being written the first’s outcome, with one write', async () => {
  const { store, writes, press } = await world();
  const outcomes = await Promise.all([press('u1', 2), press('u1', 0), press('u1', 1)]);
  const recorded = outcomes.filter((outcome) => outcome.kind === 'recorded');
  expect(recorded).toHaveLength(1);
  const right = recorded[0]?.kind === 'recorded' && recorded[0].right;
  expect(outcomes.filter((outcome) => outcome.kind !== 'recorded')).toEqual([
    { kind: 'already', right },
    { kind: 'already', right },
  ]);
  expect(writes.count).toBe(1);
  // Once it is written, a later press asks the store, which tells the same.
  expect(await press('u1', 0)).toEqual({ kind: 'already', right });
  expect(writes.count).toBe(2);
  expect(await store.getQuiz('c1', DAY)).toMatchObject({ answered: 1, right: right ? 1 : 0 });
});

it('writes the second press itself when the first’s write failed', async () => {
  const { store, writes, press } = await world();
  writes.failing = 1;
  const outcomes = await Promise.allSettled([press('u2', 2), press('u2', 2)]);
  expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
  expect(outcomes.find((outcome) => outcome.status === 'rejected')).toMatchObject({ reason: new Error('the store is down') });
  expect(outcomes.find((outcome) => outcome.status === 'fulfilled')).toMatchObject({ value: { kind: 'recorded', right: true } });
  expect(writes.count).toBe(2);
  expect(await store.getQuiz('c1', DAY)).toMatchObject({ answered: 1, right: 1 });
});
