import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LearningStore, QuizAnswer, QuizRecord, Streak } from '../../src/learning/learning-store.ts';
import { openLearningStore } from '../../src/learning/open-learning-store.ts';
import { openPostgresLearningDriver } from '../../src/learning/postgres-learning-driver.ts';
import { BOARD_TABLE_NAMES } from '../../src/learning/sql-board.ts';
import { TABLES } from '../../src/learning/sql-learning-rows.ts';
import { openSqliteLearningDriver } from '../../src/learning/sqlite-learning-driver.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { isRedisStore, type StoreLocation } from '../../src/store/open-store.ts';
import { makeSubscription } from '../schedule/helpers.ts';
import { postgresAdmin, postgresTestUrl } from '../support/postgres.ts';
import { keysUnder, redisClient, redisTestUrl } from '../support/redis.ts';
import { postgresBackend, redisBackend, schemaOf, sqliteBackend } from '../support/store-backends.ts';
import { migrateHere } from './migrate-here.ts';

afterEach(() => {
  vi.unstubAllEnvs();
});

const NOW = Date.parse('2025-03-10T12:00:00Z');
const MEMBERS = ['u1', 'u2', 'u3', 'u4'];
const QUIZZES = [
  ['c1', '2025-03-01'],
  ['c1', '2025-03-02'],
  ['c1', '2025-03-03'],
  ['c2', '2025-03-01'],
] as const;

async function withLearning<T>(location: StoreLocation, work: (store: LearningStore) => Promise<T>): Promise<T> {
  const store = await openLearningStore(location);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

function quiz(channelId: string, day: string, overrides: Partial<QuizRecord> = {}): QuizRecord {
  const guildId = channelId === 'c1' ? 'g1' : 'g2';
  return { channelId, day, guildId, messageId: `m-${channelId}-${day}`, entryDate: day, correct: 2, closesAt: Date.parse(`${day}T23:59:59Z`), language: 'de', ...overrides };
}

function answer(channelId: string, day: string, userId: string, correct: boolean): QuizAnswer {
  const at = Date.parse(`${day}T12:00:00Z`) + Number(userId.slice(1)) * 1000 + (channelId === 'c1' ? 0 : 60_000);
  return { channelId, day, guildId: channelId === 'c1' ? 'g1' : 'g2', userId, choice: correct ? 2 : 1, correct, answeredAt: at };
}

/**
 * A store as members leave it: saved words (u1's first due for review, its second reviewed and due later), three
 * quiz days in g1 (two closed, the first revealed, the third open) and one in g2, and the streaks they made.
 */
async function seedLearning(location: StoreLocation): Promise<void> {
  const subscriptions = await SubscriptionStore.open(location);
  await subscriptions.upsert('g1', 'c1', 5, () => makeSubscription({ guildId: 'g1', channelId: 'c1' }));
  await subscriptions.close();
  await withLearning(location, async (store) => {
    await store.saveWord('u1', { date: '2025-02-01', word: 'Haus', pos: 'noun' }, NOW - 5 * 86_400_000);
    await store.saveWord('u1', { date: '2025-02-02', word: 'laufen', pos: 'verb' }, NOW - 4 * 86_400_000);
    await store.recordReview('u1', '2025-02-02', '{"stability":3.2,"reps":1}', NOW + 3 * 86_400_000);
    await store.saveWord('u2', { date: '2025-02-03', word: 'schnell', pos: 'adjective' }, NOW - 86_400_000);
    for (const [channelId, day] of QUIZZES) await store.registerQuiz(quiz(channelId, day, day === '2025-03-02' ? { choices: ['2025-03-02', '2024-01-01', '2024-01-02', '2024-01-03'] } : {}));
    const day = async (channelId: string, date: string, right: Record<string, boolean>, close: boolean) => {
      for (const [userId, correct] of Object.entries(right)) expect((await store.answerQuiz(answer(channelId, date, userId, correct))).kind).toBe('recorded');
      if (close) expect(await store.closeQuiz(channelId, date)).toBe(true);
    };
    await day('c1', '2025-03-01', { u1: true, u2: true, u3: true, u4: true }, true);
    await store.markRevealed('c1', '2025-03-01');
    await day('c1', '2025-03-02', { u1: true, u2: false }, true);
    await day('c1', '2025-03-03', { u1: true, u2: true }, false);
    await day('c2', '2025-03-01', { u4: true }, false);
  });
}

/** Everything the commands read of the members, quizzes and boards. */
async function view(location: StoreLocation) {
  return withLearning(location, async (store) => ({
    members: await Promise.all(
      MEMBERS.map(async (userId) => {
        const exported = await store.exportMember(userId);
        return {
          words: await store.listWords(userId, 0, 10),
          next: await store.nextDue(userId, NOW),
          due: await store.countDue(userId, NOW + 10 * 86_400_000),
          exported: { ...exported, streaks: [...exported.streaks].sort((a, b) => (a.guildId < b.guildId ? -1 : 1)) },
          ranks: await Promise.all(['g1', 'g2'].map((guildId) => store.rankOf(guildId, userId))),
        };
      }),
    ),
    quizzes: await Promise.all(QUIZZES.map(([channelId, day]) => store.getQuiz(channelId, day))),
    toClose: await store.dueToClose(Date.parse('2025-04-01T00:00:00Z'), 10),
    boards: await Promise.all(['g1', 'g2'].map((guildId) => store.leaderboard(guildId, 0, 10))),
    secondPage: await store.leaderboard('g1', 2, 10),
  }));
}

/** Every learning record as stored, with the board's structures: a second run must leave it as the first did. */
async function raw(location: StoreLocation): Promise<unknown> {
  if (isRedisStore(location)) {
    const redis = await redisClient();
    const keys = (await keysUnder(`${location.keyPrefix ?? ''}learning:`)).sort();
    return Promise.all(
      keys.map(async (key) => {
        const type = await redis.type(key);
        if (type === 'hash') return [key, Object.entries(await redis.hGetAll(key)).sort()];
        if (type === 'zset') return [key, await redis.zRangeWithScores(key, 0, -1)];
        if (type === 'set') return [key, (await redis.sMembers(key)).sort()];
        return [key, type];
      }),
    );
  }
  const driver = location.url.startsWith('sqlite') ? await openSqliteLearningDriver(location.url) : await openPostgresLearningDriver(location.url);
  try {
    const tables = [...Object.values(TABLES), ...Object.values(BOARD_TABLE_NAMES)];
    return await Promise.all(tables.map(async (table) => [table, await driver.query(`SELECT * FROM ${driver.table(table)} ORDER BY 1, 2, 3`)]));
  } finally {
    await driver.close();
  }
}

const COPIED = 'migrated subscriptions=1 deliveries=0 saved_words=3 quiz_posts=4 quiz_answers=9 streaks=5\n';

describe.skipIf(redisTestUrl === null || postgresTestUrl === null)('wotd-bot migrate-store: the learning records', () => {
  it('SQLite → PostgreSQL → Redis → SQLite: saved words, quizzes, answers, streaks and boards read the same; a second run and the source stay as they were', async () => {
    const [sqliteA, postgres, redis, sqliteB] = await Promise.all([sqliteBackend.fresh(), postgresBackend.fresh(), redisBackend.fresh(), sqliteBackend.fresh()]);
    await seedLearning(sqliteA);
    const original = await view(sqliteA);
    const u1 = original.members[0];
    expect(u1?.next.word).toMatchObject({ date: '2025-02-01', card: null });
    expect(u1?.next.due).toBe(1);
    expect(u1?.words.words[0]).toMatchObject({ date: '2025-02-02', card: '{"stability":3.2,"reps":1}', due: NOW + 3 * 86_400_000 });
    expect(original.quizzes.map((q) => q && [q.closed, q.revealed, q.answered, q.right])).toEqual([
      [true, true, 4, 4],
      [true, false, 2, 1],
      [false, false, 2, 2],
      [false, false, 1, 1],
    ]);
    expect(original.boards[0]?.rows.map((row) => [row.userId, row.current, row.total, row.rank])).toEqual([
      ['u1', 3, 3, 1],
      ['u2', 1, 2, 2],
      ['u3', 0, 1, 3],
      ['u4', 0, 1, 3],
    ]);

    // The PostgreSQL target already holds older versions of two records: they are replaced, not added to.
    await withLearning(postgres, async (store) => {
      await store.saveWord('u1', { date: '2025-02-01', word: 'Haus', pos: 'noun' }, NOW - 86_400_000);
      await store.registerQuiz(quiz('c1', '2025-03-01', { messageId: 'm-old' }));
    });
    // A trigger that adds each inserted answer to its quiz's counts (as one may on SQLite) changes nothing copied.
    await withLearning(sqliteB, async () => undefined);
    const sqliteDriver = await openSqliteLearningDriver(sqliteB.url);
    await sqliteDriver.query(
      `CREATE TRIGGER add_answer AFTER INSERT ON ${TABLES.answers} BEGIN
         UPDATE ${TABLES.posts} SET answered = answered + 1, right_answers = right_answers + NEW.correct WHERE channel_id = NEW.channel_id AND day = NEW.day;
       END`,
    );
    await sqliteDriver.close();

    const steps: Array<[StoreLocation, StoreLocation]> = [
      [sqliteA, postgres],
      [postgres, redis],
      [redis, sqliteB],
    ];
    for (const [from, to] of steps) {
      const label = `${from.url} → ${to.url}`;
      vi.stubEnv('REDIS_KEY_PREFIX', from.keyPrefix ?? to.keyPrefix ?? '');
      const sourceBefore = await raw(from);
      expect(await migrateHere('--from', from.url, '--to', to.url), label).toEqual({ code: 0, stdout: COPIED, stderr: '' });
      const afterFirst = await raw(to);
      expect(await view(to), label).toEqual(original);
      expect(await migrateHere('--from', from.url, '--to', to.url), label).toEqual({ code: 0, stdout: COPIED, stderr: '' });
      expect(await raw(to), label).toEqual(afterFirst);
      expect(await raw(from), label).toEqual(sourceBefore);
    }
    expect(await view(sqliteA)).toEqual(original);
  });
});

describe.skipIf(redisTestUrl === null || postgresTestUrl === null)('wotd-bot migrate-store: learning records it cannot copy, and none', () => {
  it('a damaged record fails the run naming its kind and key, after what was copied; running it again after the repair copies all', async () => {
    const [redis, sqlite] = await Promise.all([redisBackend.fresh(), sqliteBackend.fresh()]);
    await seedLearning(redis);
    const key = `${redis.keyPrefix ?? ''}learning:streaks:g2`;
    const client = await redisClient();
    const good = await client.hGet(key, 'u4');
    await client.hSet(key, 'u4', '{"guildId":"g2"}');
    vi.stubEnv('REDIS_KEY_PREFIX', redis.keyPrefix ?? '');
    const run = await migrateHere('--from', redis.url, '--to', sqlite.url);
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr:
        `wotd-bot migrate-store: streaks: ${key}: learning store: a damaged streak record ` +
        '(after subscriptions=1 deliveries=0 saved_words=3 quiz_posts=4 quiz_answers=9 streaks=0; running it again is safe)\n',
    });
    await client.hSet(key, 'u4', good ?? '');
    expect(await migrateHere('--from', redis.url, '--to', sqlite.url)).toEqual({ code: 0, stdout: COPIED, stderr: '' });
    expect(await view(sqlite)).toEqual(await view(redis));
  });

  it('a PostgreSQL source the learning features never opened has nothing to copy and gets no learning table', async () => {
    const [postgres, sqlite] = await Promise.all([postgresBackend.fresh(), sqliteBackend.fresh()]);
    const subscriptions = await SubscriptionStore.open(postgres);
    await subscriptions.upsert('g1', 'c1', 5, () => makeSubscription({ guildId: 'g1', channelId: 'c1' }));
    await subscriptions.close();
    const tables = async () =>
      (await postgresAdmin().query('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1', [schemaOf(postgres)])).rows;
    const before = await tables();
    const run = await migrateHere('--from', postgres.url, '--to', sqlite.url);
    expect(run).toEqual({ code: 0, stdout: 'migrated subscriptions=1 deliveries=0 saved_words=0 quiz_posts=0 quiz_answers=0 streaks=0\n', stderr: '' });
    expect(await tables()).toEqual(before);
    expect(JSON.stringify(before)).not.toContain('wotd_learning');
  });
});

describe.skipIf(postgresTestUrl === null)('wotd-bot migrate-store: a server whose streaks fill several pages', () => {
  it('ranks and pages its board in the target as a sort of its streaks does', async () => {
    const [sqlite, postgres] = await Promise.all([sqliteBackend.fresh(), postgresBackend.fresh()]);
    const subscriptions = await SubscriptionStore.open(sqlite);
    await subscriptions.close();
    await withLearning(sqlite, async () => undefined);
    // g1's 993 streaks span two pages of 500 and end the second, between g0's and g2's.
    const streaks: Streak[] = [];
    for (const [guildId, count] of [['g0', 7], ['g1', 993], ['g2', 30]] as const) {
      for (let i = 0; i < count; i += 1) {
        streaks.push({ guildId, userId: `u${String(i).padStart(5, '0')}`, run: i % 6, current: i % 6, best: i % 9, total: (i * 7) % 40, lastDay: '2025-03-01' });
      }
    }
    const driver = await openSqliteLearningDriver(sqlite.url);
    await driver.transaction(async (query) => {
      for (const s of streaks) {
        await query(`INSERT INTO ${TABLES.streaks} VALUES ($1, $2, $3, $4, $5, $6, $7)`, [s.guildId, s.userId, s.run, s.current, s.best, s.total, s.lastDay]);
      }
    });
    await driver.close();

    const run = await migrateHere('--from', sqlite.url, '--to', postgres.url);
    expect(run).toEqual({ code: 0, stdout: 'migrated subscriptions=0 deliveries=0 saved_words=0 quiz_posts=0 quiz_answers=0 streaks=1030\n', stderr: '' });
    await withLearning(postgres, async (store) => {
      for (const guildId of ['g0', 'g1', 'g2']) {
        const sorted = streaks.filter((s) => s.guildId === guildId).sort((a, b) => b.current - a.current || b.total - a.total || (a.userId < b.userId ? -1 : 1));
        const ranked = sorted.map((s) => ({ ...s, rank: 1 + sorted.filter((o) => o.current > s.current || (o.current === s.current && o.total > s.total)).length }));
        for (const offset of [0, 5, 499, 600, 990]) {
          expect(await store.leaderboard(guildId, offset, 6), `${guildId} from ${offset}`).toEqual({ rows: ranked.slice(offset, offset + 6), members: ranked.length });
        }
        for (const row of ranked.filter((_, i) => i % 97 === 0)) expect(await store.rankOf(guildId, row.userId)).toBe(row.rank);
      }
    });
  });
});
