import sqlite3 from 'sqlite3';
import { afterEach, expect, it } from 'vitest';
import { LearningService } from '../../src/learning/learning-service.ts';
import { openLearningStore } from '../../src/learning/open-learning-store.ts';
import { startQuizCloseJob } from '../../src/learning/quiz-close-job.ts';
import { quizPoster } from '../../src/learning/quiz-poster.ts';
import type { WordList } from '../../src/learning/word-list.ts';
import { quizRendering } from '../../src/replies/learning-replies.ts';
import type { ChannelPoster, DailyMessage } from '../../src/schedule/poster.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { captureLogger, makeSubscription, tempStore } from '../schedule/helpers.ts';

/**
 * A daily quiz's four choices are fixed when they are first made for a channel's day: an attempt at the post that
 * comes again (a retry after a crash, finding the earlier post or posting anew) shows and records the same four in
 * the same order, with the same right one, whatever the word list holds by then (a mirror refresh, the mirror off).
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const DAY = '2026-03-10';
const word = (date: string, pos = 'noun'): Entry => ({ date, word: `w${date}`, pos, ipa: '/w/', definition: `Meaning of ${date}.` });
const DATES = [DAY, ...Array.from({ length: 9 }, (_, i) => `2026-02-${String(10 + i).padStart(2, '0')}`)];

async function world() {
  const temp = tempStore();
  cleanups.push(temp.cleanup);
  const store = await openLearningStore({ url: temp.url });
  cleanups.push(() => store.close());
  const entries = new Map(DATES.map((date) => [date, word(date)]));
  const list = { entries: [...entries.values()], known: entries };
  const words: WordList = { candidatesFor: async () => list.entries };
  const learning = new LearningService(store, words, { now: () => Date.parse(`${DAY}T08:00:00Z`) });
  const lookup = {
    getEntry: async (date?: string) => {
      const entry = entries.get(date ?? '');
      if (!entry) throw new Error(`no entry for ${date}`);
      return { value: entry, stale: false, fromCache: false };
    },
  };
  const subscription = makeSubscription({ guildId: 'g1', channelId: 'c1', quiz: true });
  const posted: Array<DailyMessage & { id: string }> = [];
  const inner: ChannelPoster & { dieAfterPost: boolean } = {
    dieAfterPost: false,
    async post(message) {
      posted.push({ ...message, id: `m${posted.length + 1}` });
      // Discord made the message; the process dies before it hears so.
      if (inner.dieAfterPost) throw new Error('killed after the post');
      return { messageId: `m${posted.length}` };
    },
    async findEarlierPost(message) {
      // As the channel poster does: the bot's post with the same title and footer.
      const found = posted.find((earlier) => earlier.embeds[0]?.title === message.embeds[0]?.title && earlier.embeds[0]?.footer?.text === message.embeds[0]?.footer?.text);
      return found ? { messageId: found.id } : null;
    },
  };
  const rendering = quizRendering('https://wotd.site');
  const poster = quizPoster(inner, { learning, lookup, rendering, logger: captureLogger().logger, subscriptionOf: async () => subscription });
  const message: DailyMessage = { channelId: 'c1', day: DAY, embeds: [{ title: 'plain' }], mentionRoleId: null, nonce: 'n1' };
  return { store, list, inner, poster, posted, message, lookup, rendering };
}

/** The refresh: two of the three other definitions first offered are gone from the list, and newer words came in. */
function refresh(list: { entries: Entry[]; known: Map<string, Entry> }, offered: string): void {
  const shown = list.entries.filter((entry) => entry.date !== DAY && offered.includes(entry.definition)).slice(0, 2);
  list.entries = [...list.entries.filter((entry) => !shown.includes(entry)), word('2026-03-01'), word('2026-03-02'), word('2026-03-03')];
  for (const entry of list.entries) list.known.set(entry.date, entry);
}

it('records the choices of the post an earlier attempt made, though the word list changed before the retry found it', async () => {
  const { store, list, inner, poster, posted, message } = await world();
  inner.dieAfterPost = true;
  await expect(poster.post(message)).rejects.toThrow('killed after the post');
  const first = posted[0];
  if (!first) throw new Error('no post');
  const shown = first.embeds[0]?.description ?? '';
  refresh(list, shown);
  inner.dieAfterPost = false;
  expect(await poster.findEarlierPost(message, new Date(0))).toEqual({ messageId: 'm1' });
  const quiz = await store.getQuiz('c1', DAY);
  expect(quiz).toMatchObject({ messageId: 'm1' });
  // The letter recorded as right is the letter of the real definition on the post members see.
  const letters = [...shown.matchAll(/\*\*([A-D])\.\*\* (.*)/g)].map((match) => ({ letter: match[1], text: match[2] }));
  expect(letters).toHaveLength(4);
  expect(letters[quiz?.correct ?? -1]?.text).toBe(`Meaning of ${DAY}.`);
  expect(quiz?.choices).toHaveLength(4);
  expect(quiz?.choices?.map((date) => `Meaning of ${date}.`)).toEqual(letters.map((letter) => letter.text));
});

it('posts anew the same four in the same order when the first attempt never reached Discord', async () => {
  const { store, list, inner, poster, posted, message } = await world();
  inner.dieAfterPost = true;
  await expect(poster.post(message)).rejects.toThrow();
  const firstShown = posted[0]?.embeds[0]?.description;
  // Discord did not keep it after all: the retry finds nothing and posts again.
  posted.length = 0;
  refresh(list, firstShown ?? '');
  inner.dieAfterPost = false;
  expect(await poster.findEarlierPost(message, new Date(0))).toBeNull();
  expect(await poster.post(message)).toEqual({ messageId: 'm1' });
  expect(posted[0]?.embeds[0]?.description).toBe(firstShown);
  expect(await store.getQuiz('c1', DAY)).toMatchObject({ messageId: 'm1' });
});

it('takes no answer on a quiz recorded before its post, and closes it without an edit if the post never came', async () => {
  const { store, inner, poster, message, lookup, rendering } = await world();
  inner.post = () => Promise.reject(new Error('Discord is down'));
  await expect(poster.post(message)).rejects.toThrow('Discord is down');
  const pending = await store.getQuiz('c1', DAY);
  expect(pending).toMatchObject({ messageId: '', closed: false });
  const learning = new LearningService(store, { candidatesFor: async () => [] });
  expect(await learning.answerDaily({ channelId: 'c1', guildId: 'g1', userId: 'u1', messageId: '', day: DAY, choice: 0 })).toEqual({ kind: 'gone' });
  const edits: string[] = [];
  const job = startQuizCloseJob({
    store,
    poster: { edit: async (_channelId, messageId) => void edits.push(messageId) },
    lookup,
    rendering,
    logger: captureLogger().logger,
    now: () => (pending?.closesAt ?? 0) + 1,
    everyMs: 3_600_000,
  });
  cleanups.push(() => job.stop());
  expect(await job.pass()).toBe(1);
  expect(edits).toEqual([]);
});

it('adds the choices column to a SQLite quiz table made before it, keeping its quizzes', async () => {
  const temp = tempStore();
  cleanups.push(temp.cleanup);
  const file = temp.url.slice('sqlite://'.length);
  await new Promise<void>((done, fail) => {
    const db = new sqlite3.Database(file);
    db.exec(
      `CREATE TABLE wotd_learning_quizzes (channel_id TEXT NOT NULL, day TEXT NOT NULL, guild_id TEXT NOT NULL, message_id TEXT NOT NULL,
         entry_date TEXT NOT NULL, correct INTEGER NOT NULL, closes_at BIGINT NOT NULL, closed INTEGER NOT NULL DEFAULT 0,
         answered INTEGER NOT NULL DEFAULT 0, right_answers INTEGER NOT NULL DEFAULT 0, language TEXT, PRIMARY KEY (channel_id, day));
       INSERT INTO wotd_learning_quizzes (channel_id, day, guild_id, message_id, entry_date, correct, closes_at) VALUES ('c1', '${DAY}', 'g1', 'm1', '${DAY}', 2, 1);`,
      (error) => db.close(() => (error ? fail(error) : done())),
    );
  });
  for (let open = 0; open < 2; open += 1) {
    const store = await openLearningStore({ url: temp.url });
    expect(await store.getQuiz('c1', DAY)).toMatchObject({ messageId: 'm1', correct: 2, choices: null });
    await store.close();
  }
});
