import { afterEach, expect, it } from 'vitest';
import { boardScore, MAX_SAVED_WORDS, type LearningStore, type QuizAnswer, type QuizPost, type QuizRecord, type Streak } from '../../src/learning/learning-store.ts';
import { openLearningStore } from '../../src/learning/open-learning-store.ts';
import { openPostgresLearningDriver } from '../../src/learning/postgres-learning-driver.ts';
import { BOARD_TABLE_NAMES } from '../../src/learning/sql-board.ts';
import { openSqliteLearningDriver } from '../../src/learning/sqlite-learning-driver.ts';
import type { StoreLocation } from '../../src/store/open-store.ts';
import { redisClient } from '../support/redis.ts';
import { storeBackends, type BackendName } from '../support/store-backends.ts';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function open(location: StoreLocation): Promise<LearningStore> {
  const store = await openLearningStore(location);
  cleanups.push(() => store.close());
  return store;
}

function quiz(day: string, overrides: Partial<QuizPost> = {}): QuizRecord {
  return { channelId: 'c1', day, guildId: 'g1', messageId: `m-${day}`, entryDate: day, correct: 2, closesAt: Date.parse(`${day}T23:59:59Z`), language: null, ...overrides };
}

function answer(day: string, userId: string, correct: boolean, overrides: Partial<QuizAnswer> = {}): QuizAnswer {
  return { channelId: 'c1', day, guildId: 'g1', userId, choice: correct ? 2 : 0, correct, answeredAt: Date.parse(`${day}T12:00:00Z`), ...overrides };
}

/** The board as it must be: every member's streak record, sorted by current streak, total and id. */
async function expectBoard(store: LearningStore, guildId: string, members: readonly string[]): Promise<void> {
  const records = (await Promise.all(members.map((userId) => store.streak(guildId, userId)))).filter((record): record is Streak => record !== null);
  const sorted = records.sort((a, b) => b.current - a.current || b.total - a.total || (a.userId < b.userId ? -1 : 1));
  // Tied members (the same streak and total) share a rank: one plus the members strictly ahead.
  const ranked = sorted.map((record) => ({ ...record, rank: 1 + sorted.filter((other) => other.current > record.current || (other.current === record.current && other.total > record.total)).length }));
  for (let offset = 0; offset <= ranked.length + 1; offset += 3) {
    expect(await store.leaderboard(guildId, offset, 7)).toEqual({ rows: ranked.slice(offset, offset + 7), members: ranked.length });
  }
  const ranks = await Promise.all(members.map((userId) => store.rankOf(guildId, userId)));
  expect(ranks).toEqual(members.map((userId) => ranked.find((record) => record.userId === userId)?.rank ?? null));
  expect(new Set(ranked.map((record) => record.rank)).size).toBeLessThan(ranked.length);
}

/** A store as the bot wrote it before the board's counts (SQL) or rank zset (Redis): those taken away. */
async function asBefore(name: BackendName, location: StoreLocation, guildId: string): Promise<void> {
  if (name === 'Redis') {
    const redis = await redisClient();
    const prefix = `${location.keyPrefix ?? ''}learning:`;
    const streaks = await redis.hGetAll(`${prefix}streaks:${guildId}`);
    await redis.del(`${prefix}rank:${guildId}`);
    for (const [userId, json] of Object.entries(streaks)) {
      const streak = JSON.parse(json) as Streak;
      await redis.zAdd(`${prefix}board:${guildId}`, { score: boardScore(streak.current, streak.total), value: userId });
    }
    return;
  }
  const driver = name === 'SQLite' ? await openSqliteLearningDriver(location.url) : await openPostgresLearningDriver(location.url);
  for (const table of Object.values(BOARD_TABLE_NAMES)) await driver.query(`DROP TABLE ${driver.table(table)}`);
  await driver.close();
}

for (const backend of storeBackends) {
  backend.describe(`learning store on ${backend.name}`, () => {
    it('saves words once, lists them newest first with a count, removes them, and keeps them across a reopen', async () => {
      const location = await backend.fresh();
      const first = await open(location);
      expect(await first.saveWord('u1', { date: '2026-01-01', word: 'apple', pos: 'noun' }, 1_000)).toBe('saved');
      expect(await first.saveWord('u1', { date: '2026-01-02', word: 'bake', pos: 'verb' }, 2_000)).toBe('saved');
      expect(await first.saveWord('u1', { date: '2026-01-01', word: 'apple', pos: 'noun' }, 3_000)).toBe('already');
      expect(await first.saveWord('u2', { date: '2026-01-01', word: 'apple', pos: 'noun' }, 3_000)).toBe('saved');
      const second = await open(location);
      const listed = await second.listWords('u1', 0, 10);
      expect(listed.total).toBe(2);
      expect(listed.words.map((word) => word.word)).toEqual(['bake', 'apple']);
      expect((await second.listWords('u1', 1, 10)).words.map((word) => word.date)).toEqual(['2026-01-01']);
      expect(await second.removeWord('u1', '2026-01-02')).toBe(true);
      expect(await second.removeWord('u1', '2026-01-02')).toBe(false);
      expect((await second.listWords('u1', 0, 10)).total).toBe(1);
    });

    it('caps a member at MAX_SAVED_WORDS, even when saves race', async () => {
      const store = await open(await backend.fresh());
      for (let start = 0; start < MAX_SAVED_WORDS - 5; start += 100) {
        await Promise.all(
          Array.from({ length: Math.min(100, MAX_SAVED_WORDS - 5 - start) }, (_, i) =>
            store.saveWord('u1', { date: `d${String(start + i).padStart(5, '0')}`, word: 'w', pos: 'noun' }, start + i),
          ),
        );
      }
      const racing = await Promise.all(Array.from({ length: 20 }, (_, i) => store.saveWord('u1', { date: `x${i}`, word: 'w', pos: 'noun' }, 5_000 + i)));
      expect(racing.filter((outcome) => outcome === 'saved')).toHaveLength(5);
      expect(racing.filter((outcome) => outcome === 'full')).toHaveLength(15);
      expect((await store.listWords('u1', 0, 1)).total).toBe(MAX_SAVED_WORDS);
    });

    it('gives the word due first and stores its review', async () => {
      const store = await open(await backend.fresh());
      await store.saveWord('u1', { date: '2026-01-01', word: 'apple', pos: 'noun' }, 1_000);
      await store.saveWord('u1', { date: '2026-01-02', word: 'bake', pos: 'verb' }, 2_000);
      expect(await store.nextDue('u1', 500)).toEqual({ word: null, due: 0 });
      const due = await store.nextDue('u1', 5_000);
      expect(due.due).toBe(2);
      expect(due.word?.word).toBe('apple');
      expect(await store.recordReview('u1', '2026-01-01', '{"card":1}', 100_000)).toBe(true);
      const next = await store.nextDue('u1', 5_000);
      expect(next).toMatchObject({ due: 1, word: { word: 'bake' } });
      expect(await store.getWord('u1', '2026-01-01')).toMatchObject({ card: '{"card":1}', due: 100_000 });
      expect(await store.recordReview('u1', '2026-09-09', '{}', 1)).toBe(false);
      // The count the daily DM says (review:true): due words only, up to and including `now`, the member's own.
      expect([await store.countDue('u1', 1_999), await store.countDue('u1', 2_000), await store.countDue('u1', 100_000)]).toEqual([0, 1, 2]);
      expect(await store.countDue('u2', 100_000)).toBe(0);
    });

    it('takes one answer per member per quiz, however many arrive at once, and counts it once', async () => {
      const store = await open(await backend.fresh());
      await store.registerQuiz(quiz('2026-03-01'));
      const presses = await Promise.all(Array.from({ length: 10 }, (_, i) => store.answerQuiz(answer('2026-03-01', 'u1', i % 2 === 0, { choice: i % 4 }))));
      expect(presses.filter((outcome) => outcome.kind === 'recorded')).toHaveLength(1);
      const first = presses.find((outcome) => outcome.kind === 'recorded');
      for (const outcome of presses) if (outcome !== first) expect(outcome.kind).toBe('already');
      const post = await store.getQuiz('c1', '2026-03-01');
      expect(post?.answered).toBe(1);
      await store.answerQuiz(answer('2026-03-01', 'u2', true));
      await store.answerQuiz(answer('2026-03-01', 'u3', false));
      expect(await store.getQuiz('c1', '2026-03-01')).toMatchObject({ answered: 3 });
      expect(await store.answerQuiz(answer('2026-03-02', 'u1', true))).toEqual({ kind: 'no-quiz' });
      expect(await store.answerQuiz(answer('2026-03-01', 'u9', true, { guildId: 'other' }))).toEqual({ kind: 'no-quiz' });
      // Pressed on another message than the quiz's post: no quiz, checked by the write itself; on its post: counted.
      const pressed = await Promise.all([store.answerQuiz(answer('2026-03-01', 'u8', true), 'm-older'), store.answerQuiz(answer('2026-03-01', 'u7', true), 'm-2026-03-01')]);
      expect(pressed).toEqual([{ kind: 'no-quiz' }, expect.objectContaining({ kind: 'recorded' })]);
      expect(await store.getQuiz('c1', '2026-03-01')).toMatchObject({ answered: 4 });
    });

    it('answers many members pressing at once, twice each on two connections (as two processes), each told its own outcome', async () => {
      const location = await backend.fresh();
      const [one, two] = [await open(location), await open(location)];
      await one.registerQuiz(quiz('2026-03-01'));
      await one.registerQuiz(quiz('2026-03-02'));
      const members = Array.from({ length: 40 }, (_, i) => `p${String(i).padStart(2, '0')}`);
      // Half of them were right the day before: a right answer today makes their streak two.
      for (const userId of members.slice(0, 20)) await one.answerQuiz(answer('2026-03-01', userId, true));
      const presses = await Promise.all(
        members.flatMap((userId, i) => [one.answerQuiz(answer('2026-03-02', userId, i % 3 !== 0)), two.answerQuiz(answer('2026-03-02', userId, i % 3 === 0))]),
      );
      let right = 0;
      for (const [i, userId] of members.entries()) {
        const mine = [presses[2 * i], presses[2 * i + 1]];
        const recorded = mine.findIndex((outcome) => outcome?.kind === 'recorded');
        expect(recorded, userId).toBeGreaterThanOrEqual(0);
        const wasRight = recorded === 0 ? i % 3 !== 0 : i % 3 === 0;
        if (wasRight) right += 1;
        expect(mine[1 - recorded], userId).toMatchObject({ kind: 'already', previous: { userId, correct: wasRight } });
        const yesterday = i < 20;
        const expected = wasRight ? { current: yesterday ? 2 : 1, total: yesterday ? 2 : 1 } : yesterday ? { current: 1, total: 1 } : null;
        expect(await one.streak('g1', userId), userId).toEqual(expected ? expect.objectContaining(expected) : null);
        const told = mine[recorded];
        expect(told?.kind === 'recorded' ? told.streak : undefined, userId).toEqual(expected ? expect.objectContaining(expected) : null);
      }
      expect(await two.getQuiz('c1', '2026-03-02')).toMatchObject({ answered: members.length, right });
      await expectBoard(one, 'g1', members);
    });

    it('keeps a quiz’s choices, and none for a quiz recorded without them', async () => {
      const store = await open(await backend.fresh());
      const choices = ['2026-02-01', '2026-03-01', '2026-02-07', '2026-01-30'];
      await store.registerQuiz(quiz('2026-03-01', { messageId: '', correct: 1, choices }));
      await store.registerQuiz(quiz('2026-03-01', { channelId: 'c2' }));
      expect(await store.getQuiz('c1', '2026-03-01')).toMatchObject({ messageId: '', correct: 1, choices });
      await store.registerQuiz(quiz('2026-03-01', { messageId: 'm1', correct: 1, choices }));
      expect(await store.getQuiz('c1', '2026-03-01')).toMatchObject({ messageId: 'm1', choices });
      expect(await store.getQuiz('c2', '2026-03-01')).toMatchObject({ choices: null });
    });

    it('counts streaks over quiz days only, ends them when a quiz closes unanswered, and ranks the server', async () => {
      const store = await open(await backend.fresh());
      // Quiz days 1, 2, 5 (3 and 4 had no post), 6.
      for (const day of ['2026-03-01', '2026-03-02', '2026-03-05', '2026-03-06']) await store.registerQuiz(quiz(day));
      await store.answerQuiz(answer('2026-03-01', 'bob', true));
      await store.answerQuiz(answer('2026-03-02', 'carol', false));
      await store.answerQuiz(answer('2026-03-05', 'bob', true));
      for (const day of ['2026-03-01', '2026-03-02', '2026-03-05']) {
        await store.answerQuiz(answer(day, 'alice', true));
        await store.closeQuiz('c1', day);
      }
      expect(await store.streak('g1', 'alice')).toMatchObject({ current: 3, best: 3, total: 3 });
      // Bob missed day 2: his run restarted on day 5.
      expect(await store.streak('g1', 'bob')).toMatchObject({ current: 1, best: 1, total: 2 });
      expect(await store.streak('g1', 'carol')).toBeNull();
      const board = await store.leaderboard('g1', 0, 10);
      expect(board.rows.map((row) => row.userId)).toEqual(['alice', 'bob']);
      expect(board.members).toBe(2);
      expect(await store.rankOf('g1', 'bob')).toBe(2);
      // Day 6 closes: Bob did not answer it, Alice did.
      await store.answerQuiz(answer('2026-03-06', 'alice', true));
      expect(await store.closeQuiz('c1', '2026-03-06')).toBe(true);
      expect(await store.closeQuiz('c1', '2026-03-06')).toBe(false);
      expect(await store.streak('g1', 'bob')).toMatchObject({ current: 0, best: 1, total: 2 });
      expect(await store.streak('g1', 'alice')).toMatchObject({ current: 4, total: 4 });
      expect(await store.answerQuiz(answer('2026-03-06', 'bob', true))).toEqual({ kind: 'closed' });
      expect(await store.getQuiz('c1', '2026-03-06')).toMatchObject({ closed: true, answered: 1, right: 1 });
    });

    it('lists quizzes due to close, prunes old ones, exports and forgets a member and a server', async () => {
      const store = await open(await backend.fresh());
      await store.registerQuiz(quiz('2026-03-01'));
      await store.registerQuiz(quiz('2026-03-01', { channelId: 'c2', guildId: 'g2', closesAt: Date.parse('2026-03-02T05:00:00Z') }));
      expect((await store.dueToClose(Date.parse('2026-03-02T01:00:00Z'), 10)).map((post) => post.channelId)).toEqual(['c1']);
      await store.answerQuiz(answer('2026-03-01', 'u1', true));
      await store.answerQuiz(answer('2026-03-01', 'u1', true, { channelId: 'c2', guildId: 'g2' }));
      await store.saveWord('u1', { date: '2026-03-01', word: 'apple', pos: 'noun' }, 1);
      const exported = await store.exportMember('u1');
      expect(exported.savedWords).toHaveLength(1);
      expect(exported.answers).toHaveLength(2);
      expect(exported.streaks.map((streak) => streak.guildId).sort()).toEqual(['g1', 'g2']);
      expect(await store.forgetServer('g2')).toBeGreaterThanOrEqual(3);
      expect((await store.exportMember('u1')).streaks.map((streak) => streak.guildId)).toEqual(['g1']);
      expect(await store.getQuiz('c2', '2026-03-01')).toBeNull();
      expect(await store.forgetMember('u1')).toBeGreaterThanOrEqual(3);
      expect(await store.exportMember('u1')).toEqual({ savedWords: [], answers: [], streaks: [] });
      expect((await store.leaderboard('g1', 0, 10)).rows).toEqual([]);
      await store.closeQuiz('c1', '2026-03-01');
      await store.answerQuiz(answer('2026-03-01', 'u5', false)).catch(() => undefined);
      expect(await store.pruneQuizzes('2026-03-02')).toBeGreaterThanOrEqual(1);
      expect(await store.getQuiz('c1', '2026-03-01')).toBeNull();
    });

    it('ranks and pages the board as a brute-force sort does, with ties, ended streaks, concurrent answers and forget', async () => {
      const store = await open(await backend.fresh());
      const days = ['2026-04-01', '2026-04-02', '2026-04-03', '2026-04-04', '2026-04-05'];
      const members = Array.from({ length: 23 }, (_, i) => `m${String(i).padStart(2, '0')}`);
      for (const day of days) await store.registerQuiz(quiz(day));
      await store.registerQuiz(quiz(days[0] ?? '', { channelId: 'c2', guildId: 'g2' }));
      await store.answerQuiz(answer(days[0] ?? '', 'm00', true, { channelId: 'c2', guildId: 'g2' }));
      for (const [d, day] of days.entries()) {
        // Right, right, right, wrong or no answer by turns: many ties, and streaks that end when the day closes.
        await Promise.all(
          members.map((userId, i) => ((i * 7 + d * 3) % 5 === 4 ? undefined : store.answerQuiz(answer(day, userId, (i * 7 + d * 3) % 5 < 3)))),
        );
        if (d < days.length - 1) await store.closeQuiz('c1', day);
        // m00 answered day 1 wrong: when it closed, the streak of day 0 ended.
        if (d === 1) expect(await store.streak('g1', 'm00')).toMatchObject({ current: 0, total: 1 });
        await expectBoard(store, 'g1', members);
      }
      await store.forgetMember('m00');
      await store.forgetMember('m05');
      await expectBoard(store, 'g1', members);
      expect(await store.leaderboard('g2', 0, 10)).toEqual({ rows: [], members: 0 });
      await store.answerQuiz(answer(days[4] ?? '', 'm05', true));
      await expectBoard(store, 'g1', members);
      await store.forgetServer('g1');
      expect(await store.leaderboard('g1', 0, 10)).toEqual({ rows: [], members: 0 });
      expect(await store.rankOf('g1', 'm02')).toBeNull();
    });

    it('builds the board of a store written before it, at open', async () => {
      const location = await backend.fresh();
      const members = ['a1', 'a2', 'a3', 'a4', 'a5'];
      const before = await open(location);
      for (const day of ['2026-05-01', '2026-05-02']) {
        await before.registerQuiz(quiz(day));
        for (const [i, userId] of members.entries()) if (i < 4 || day === '2026-05-02') await before.answerQuiz(answer(day, userId, i !== 2));
      }
      await before.closeQuiz('c1', '2026-05-01');
      await asBefore(backend.name, location, 'g1');
      const after = await open(location);
      await expectBoard(after, 'g1', members);
      await after.answerQuiz(answer('2026-05-02', 'a6', true));
      await expectBoard(after, 'g1', [...members, 'a6']);
    });

    if (backend.name === 'SQLite') {
      it('gives a store written before its counting trigger and streak moves view both at open, and counts once from then on', async () => {
        const location = await backend.fresh();
        const before = await open(location);
        for (const day of ['2026-06-01', '2026-06-02']) await before.registerQuiz(quiz(day));
        await before.answerQuiz(answer('2026-06-01', 'u1', true));
        await before.answerQuiz(answer('2026-06-02', 'u2', true));
        const driver = await openSqliteLearningDriver(location.url);
        await driver.query('DROP TRIGGER wotd_learning_answers_counted');
        await driver.query('DROP VIEW wotd_learning_streak_moves');
        await driver.close();
        const after = await open(location);
        for (const [userId, correct] of [['u1', true], ['u3', false], ['u4', true]] as const) await after.answerQuiz(answer('2026-06-02', userId, correct));
        expect(await after.getQuiz('c1', '2026-06-02')).toMatchObject({ answered: 4, right: 3 });
        expect(await after.streak('g1', 'u1')).toMatchObject({ current: 2, best: 2, total: 2, lastDay: '2026-06-02' });
        await expectBoard(after, 'g1', ['u1', 'u2', 'u3', 'u4']);
      });
    }
  });
}
