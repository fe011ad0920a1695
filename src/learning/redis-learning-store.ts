import type { ChainableCommander, Redis } from 'ioredis';
import { openRedisConnection } from '../store/redis-connection.ts';
import type { Logger } from '../config/logger.ts';
import type { IsoDate } from '../wotd/dates.ts';
import {
  MAX_SAVED_WORDS,
  type AnswerOutcome,
  type BoardRow,
  type LeaderboardPage,
  type LearningStore,
  type MemberLearningData,
  type QuizAnswer,
  type QuizPost,
  type QuizRecord,
  type SavedWord,
  type SavedWordInput,
  type SaveOutcome,
  type Streak,
} from './learning-store.ts';
import { answerSchema, parsed, quizFromFields, savedWordSchema, streakSchema } from './redis-learning-schemas.ts';
import { dayNumber, RedisLearningKeys } from './redis-learning-keys.ts';
import { ANSWER_SCRIPT, BOARD_PAGE_SCRIPT, BOARD_RANK_SCRIPT, CLOSE_SCRIPT, REVEALED_SCRIPT } from './redis-learning-scripts.ts';

/**
 * The learning store on Redis, in hashes and sorted sets under `<prefix>learning:`:
 * a member's saved words (hash by date, plus zsets by saved time and by due time), each quiz (hash) and its
 * answers (hash by member), a server's streaks (hash) and its leaderboard (the rank zset, ordered by current streak,
 * total and id), so any page and a rank are a range and a rank read, never a scan. The steps that must be atomic are
 * Lua scripts (redis-learning-scripts.ts).
 */

/** A MULTI's replies; a command that failed inside it fails the call (ioredis reports it only in the replies). */
export async function committed(multi: ChainableCommander): Promise<unknown[]> {
  const replies = await multi.exec();
  if (!replies) throw new Error('learning store: a Redis transaction was discarded');
  return replies.map(([error, reply]) => {
    if (error) throw error;
    return reply;
  });
}


export class RedisLearningStore implements LearningStore {
  private readonly keys: RedisLearningKeys;

  private constructor(
    private readonly redis: Redis,
    keyPrefix: string,
  ) {
    this.keys = new RedisLearningKeys(keyPrefix);
  }

  static async open(url: string, keyPrefix: string, logger?: Logger): Promise<RedisLearningStore> {
    const redis = await openRedisConnection(url, {
      purpose: 'learning',
      ...(logger ? { logger } : {}),
      whileDown: 'Redis is unreachable: quizzes, streaks and saved words are unavailable until it is back',
      whenBack: 'Redis is reachable again: quizzes, streaks and saved words are back',
    });
    return new RedisLearningStore(redis, keyPrefix);
  }

  async saveWord(userId: string, word: SavedWordInput, now: number): Promise<SaveOutcome> {
    const record: SavedWord = { ...word, savedAt: now, due: now, card: null };
    const outcome = (await this.redis.eval(
      `if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 'already' end
       if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then return 'full' end
       redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
       redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
       redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
       return 'saved'`,
      3,
      this.keys.key('saved', userId),
      this.keys.key('saved-at', userId),
      this.keys.key('due', userId),
      word.date,
      JSON.stringify(record),
      now,
      MAX_SAVED_WORDS,
    )) as SaveOutcome;
    return outcome;
  }

  async removeWord(userId: string, date: IsoDate): Promise<boolean> {
    const [removed] = await committed(
      this.redis.multi().hdel(this.keys.key('saved', userId), date).zrem(this.keys.key('saved-at', userId), date).zrem(this.keys.key('due', userId), date),
    );
    return Number(removed) > 0;
  }

  private async words(userId: string, dates: string[]): Promise<SavedWord[]> {
    if (dates.length === 0) return [];
    const values = await this.redis.hmget(this.keys.key('saved', userId), ...dates);
    return values.flatMap((value) => (value === null ? [] : [parsed(savedWordSchema, value, 'saved word')]));
  }

  async listWords(userId: string, offset: number, limit: number): Promise<{ words: SavedWord[]; total: number }> {
    const [dates, total] = await Promise.all([
      this.redis.zrevrange(this.keys.key('saved-at', userId), offset, offset + limit - 1),
      this.redis.hlen(this.keys.key('saved', userId)),
    ]);
    return { words: await this.words(userId, dates), total };
  }

  async getWord(userId: string, date: IsoDate): Promise<SavedWord | null> {
    const value = await this.redis.hget(this.keys.key('saved', userId), date);
    return value === null ? null : parsed(savedWordSchema, value, 'saved word');
  }

  async nextDue(userId: string, now: number): Promise<{ word: SavedWord | null; due: number }> {
    const [dates, due] = await Promise.all([
      this.redis.zrangebyscore(this.keys.key('due', userId), '-inf', now, 'LIMIT', 0, 1),
      this.countDue(userId, now),
    ]);
    const [word = null] = await this.words(userId, dates);
    return { word, due };
  }

  countDue(userId: string, now: number): Promise<number> {
    return this.redis.zcount(this.keys.key('due', userId), '-inf', now);
  }

  async recordReview(userId: string, date: IsoDate, card: string, due: number): Promise<boolean> {
    const updated = await this.redis.eval(
      `local stored = redis.call('HGET', KEYS[1], ARGV[1])
       if not stored then return 0 end
       local word = cjson.decode(stored)
       word.card = ARGV[2]
       word.due = tonumber(ARGV[3])
       redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(word))
       redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
       return 1`,
      2,
      this.keys.key('saved', userId),
      this.keys.key('due', userId),
      date,
      card,
      due,
    );
    return updated === 1;
  }

  async registerQuiz(post: QuizRecord): Promise<void> {
    const key = this.keys.quiz(post.channelId, post.day).post;
    const multi = this.redis.multi().hset(key, 'json', JSON.stringify(post)).hsetnx(key, 'answered', '0').hsetnx(key, 'right', '0').hsetnx(key, 'closed', '0');
    await committed(this.keys.listQuiz(multi, post, true));
  }

  async getQuiz(channelId: string, day: IsoDate): Promise<QuizPost | null> {
    const fields = await this.redis.hgetall(this.keys.quiz(channelId, day).post);
    return quizFromFields(fields);
  }

  async answerQuiz(answer: QuizAnswer, messageId?: string): Promise<AnswerOutcome> {
    const { post, answers, entry } = this.keys.quiz(answer.channelId, answer.day);
    const result = (await this.redis.eval(
      ANSWER_SCRIPT,
      8,
      post,
      answers,
      this.keys.key('answered', answer.userId),
      this.keys.key('streaks', answer.guildId),
      this.keys.key('rank', answer.guildId),
      this.keys.key('active', answer.guildId),
      this.keys.key('quiz-days', answer.guildId),
      this.keys.key('guilds', answer.userId),
      answer.userId,
      JSON.stringify(answer),
      answer.correct ? '1' : '0',
      answer.day,
      answer.guildId,
      entry,
      dayNumber(answer.day),
      messageId ?? '',
    )) as [string, string?];
    const [kind, payload] = result;
    if (kind === 'already') return { kind, previous: parsed(answerSchema, payload ?? '', 'quiz answer') };
    if (kind === 'recorded') return { kind, streak: payload ? parsed(streakSchema, payload, 'streak') : null };
    if (kind === 'closed') return { kind };
    return { kind: 'no-quiz' };
  }

  async dueToClose(now: number, limit: number): Promise<QuizPost[]> {
    const entries = await this.redis.zrangebyscore(this.keys.key('open'), '-inf', now, 'LIMIT', 0, limit);
    const posts = await Promise.all(entries.map((entry) => this.getQuiz(entry.split('|')[0] ?? '', entry.split('|')[1] ?? '')));
    return posts.filter((post): post is QuizPost => post !== null && !post.revealed);
  }

  async closeQuiz(channelId: string, day: IsoDate): Promise<boolean> {
    const quiz = await this.getQuiz(channelId, day);
    const { post, entry } = this.keys.quiz(channelId, day);
    const guildId = quiz?.guildId ?? '';
    const closed = await this.redis.eval(
      CLOSE_SCRIPT,
      5,
      post,
      this.keys.key('open'),
      this.keys.key('active', guildId),
      this.keys.key('streaks', guildId),
      this.keys.key('rank', guildId),
      entry,
      dayNumber(day),
    );
    return closed === 1;
  }

  async markRevealed(channelId: string, day: IsoDate): Promise<void> {
    const { post, entry } = this.keys.quiz(channelId, day);
    await this.redis.eval(REVEALED_SCRIPT, 2, post, this.keys.key('open'), entry);
  }

  async pruneQuizzes(day: IsoDate): Promise<number> {
    const entries = await this.redis.zrangebyscore(this.keys.key('quizzes'), '-inf', `(${dayNumber(day)}`);
    let erased = 0;
    for (const entry of entries) {
      const [channelId = '', quizDay = ''] = entry.split('|');
      const quiz = await this.getQuiz(channelId, quizDay);
      if (quiz && !quiz.closed) continue;
      const { post, answers } = this.keys.quiz(channelId, quizDay);
      const members = await this.redis.hkeys(answers);
      const pipeline = this.redis.multi().del(post, answers).zrem(this.keys.key('quizzes'), entry).zrem(this.keys.key('open'), entry);
      if (quiz) pipeline.srem(this.keys.key('guild-quizzes', quiz.guildId), entry);
      for (const member of members) pipeline.srem(this.keys.key('answered', member), entry);
      await committed(pipeline);
      erased += 1 + members.length;
    }
    return erased;
  }

  async streak(guildId: string, userId: string): Promise<Streak | null> {
    const value = await this.redis.hget(this.keys.key('streaks', guildId), userId);
    return value === null ? null : parsed(streakSchema, value, 'streak');
  }

  /** The keys of a server's board, for BOARD_PAGE_SCRIPT and BOARD_RANK_SCRIPT. */
  private boardKeys(guildId: string): [string, string, string] {
    return [this.keys.key('streaks', guildId), this.keys.key('rank', guildId), this.keys.key('board', guildId)];
  }

  async leaderboard(guildId: string, offset: number, limit: number): Promise<LeaderboardPage> {
    const [count, ...values] = (await this.redis.eval(BOARD_PAGE_SCRIPT, 3, ...this.boardKeys(guildId), offset, limit)) as [number, ...Array<string | number>];
    const rows: BoardRow[] = [];
    for (let i = 0; i + 1 < values.length; i += 2) rows.push({ ...parsed(streakSchema, String(values[i]), 'streak'), rank: Number(values[i + 1]) });
    return { rows, members: count };
  }

  async rankOf(guildId: string, userId: string): Promise<number | null> {
    const rank = (await this.redis.eval(BOARD_RANK_SCRIPT, 3, ...this.boardKeys(guildId), userId)) as number | null;
    return rank;
  }

  async exportMember(userId: string): Promise<MemberLearningData> {
    const [saved, answered, guilds] = await Promise.all([
      this.redis.hvals(this.keys.key('saved', userId)),
      this.redis.smembers(this.keys.key('answered', userId)),
      this.redis.smembers(this.keys.key('guilds', userId)),
    ]);
    const answers = await Promise.all(
      answered.map((entry) => {
        const [channelId = '', day = ''] = entry.split('|');
        return this.redis.hget(this.keys.quiz(channelId, day).answers, userId);
      }),
    );
    const streaks = await Promise.all(guilds.map((guildId) => this.streak(guildId, userId)));
    return {
      savedWords: saved.map((value) => parsed(savedWordSchema, value, 'saved word')).sort((a, b) => b.savedAt - a.savedAt),
      answers: answers.flatMap((value) => (value === null ? [] : [parsed(answerSchema, value, 'quiz answer')])).sort((a, b) => a.answeredAt - b.answeredAt),
      streaks: streaks.filter((streak): streak is Streak => streak !== null),
    };
  }

  async forgetMember(userId: string): Promise<number> {
    const [saved, answered, guilds] = await Promise.all([
      this.redis.hlen(this.keys.key('saved', userId)),
      this.redis.smembers(this.keys.key('answered', userId)),
      this.redis.smembers(this.keys.key('guilds', userId)),
    ]);
    const pipeline = this.redis.multi().del(this.keys.key('saved', userId), this.keys.key('saved-at', userId), this.keys.key('due', userId));
    for (const entry of answered) {
      const [channelId = '', day = ''] = entry.split('|');
      pipeline.hdel(this.keys.quiz(channelId, day).answers, userId);
    }
    for (const guildId of guilds) {
      pipeline.hdel(this.keys.key('streaks', guildId), userId).zrem(this.keys.key('active', guildId), userId);
      for (const key of this.boardKeys(guildId).slice(1)) pipeline.zrem(key, userId);
    }
    pipeline.del(this.keys.key('answered', userId), this.keys.key('guilds', userId));
    await committed(pipeline);
    return saved + answered.length + guilds.length;
  }

  async forgetServer(guildId: string): Promise<number> {
    const [entries, members] = await Promise.all([this.redis.smembers(this.keys.key('guild-quizzes', guildId)), this.redis.hkeys(this.keys.key('streaks', guildId))]);
    let erased = members.length;
    for (const entry of entries) {
      const [channelId = '', day = ''] = entry.split('|');
      const { post, answers } = this.keys.quiz(channelId, day);
      const answerers = await this.redis.hkeys(answers);
      const pipeline = this.redis.multi().del(post, answers).zrem(this.keys.key('open'), entry).zrem(this.keys.key('quizzes'), entry);
      for (const member of answerers) pipeline.srem(this.keys.key('answered', member), entry);
      await committed(pipeline);
      erased += 1 + answerers.length;
    }
    const pipeline = this.redis.multi();
    for (const member of members) pipeline.srem(this.keys.key('guilds', member), guildId);
    pipeline.del(
      ...this.boardKeys(guildId),
      this.keys.key('active', guildId),
      this.keys.key('quiz-days', guildId),
      this.keys.key('guild-quizzes', guildId),
    );
    await committed(pipeline);
    return erased;
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
