import type { Redis } from 'ioredis';
import { openRedisConnection } from '../store/redis-connection.ts';
import { boardScore, type QuizAnswer, type QuizPost, type SavedWord, type Streak } from './learning-store.ts';
import {
  LEARNING_PAGE_SIZE,
  type LearningRecordKind,
  type LearningRecordOf,
  type LearningRecordSource,
  type LearningRecordTarget,
  type MemberSavedWord,
} from './learning-records.ts';
import { answerSchema, parsed, quizFromFields, savedWordSchema, streakSchema } from './redis-learning-schemas.ts';
import { dayNumber, RedisLearningKeys } from './redis-learning-keys.ts';
import { committed } from './redis-learning-store.ts';

/**
 * The Redis learning store's records (keys as redis-learning-store.ts writes them), read by a SCAN of each kind's
 * keys and written as they are, with the sets that list and order them: a member's words by saved and due time, the
 * open, all and per-server quiz sets, a member's answered quizzes and servers, a server's rank and active-streak sets.
 */

/** Keys read at once while scanning. */
const KEYS_PER_READ = 50;

/** `*`, `?`, `[` and `\` in a key prefix match themselves in a SCAN pattern. */
function literal(pattern: string): string {
  return pattern.replace(/[*?[\]\\]/g, '\\$&');
}

/** A read's failure, naming the key it read. */
async function named<R>(key: string, reading: Promise<R>): Promise<R> {
  try {
    return await reading;
  } catch (error) {
    throw new Error(`${key}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export class RedisLearningRecords implements LearningRecordSource, LearningRecordTarget {
  private readonly keys: RedisLearningKeys;

  private constructor(
    private readonly redis: Redis,
    keyPrefix: string,
  ) {
    this.keys = new RedisLearningKeys(keyPrefix);
  }

  static async open(url: string, keyPrefix: string): Promise<RedisLearningRecords> {
    const redis = await openRedisConnection(url, {
      purpose: 'migrate-learning',
      whileDown: 'Redis is unreachable: the learning records are not copied',
      whenBack: 'Redis is reachable again',
    });
    return new RedisLearningRecords(redis, keyPrefix);
  }

  pages<K extends LearningRecordKind>(kind: K): AsyncGenerator<Array<LearningRecordOf[K]>>;
  pages(kind: LearningRecordKind): AsyncGenerator<Array<LearningRecordOf[LearningRecordKind]>> {
    switch (kind) {
      case 'saved_words':
        return this.scan('saved', async (key, userId) =>
          (await this.redis.hvals(key)).map((value): MemberSavedWord => ({ userId, ...parsed(savedWordSchema, value, 'saved word') })),
        );
      case 'quiz_posts':
        return this.scan('quiz', async (key) => {
          const post = quizFromFields(await this.redis.hgetall(key));
          return post ? [post] : [];
        });
      case 'quiz_answers':
        return this.scan('answers', async (key) => (await this.redis.hvals(key)).map((value) => parsed(answerSchema, value, 'quiz answer')));
      case 'streaks':
        return this.scan('streaks', async (key) => (await this.redis.hvals(key)).map((value) => parsed(streakSchema, value, 'streak')));
    }
  }

  /** The records of every `<prefix>learning:<kind>:…` key, in pages; `id` is the key past that. */
  private async *scan<R>(kind: string, read: (key: string, id: string) => Promise<R[]>): AsyncGenerator<R[]> {
    const start = this.keys.key(kind, '');
    // SCAN may name a key twice; each is read once.
    const seen = new Set<string>();
    let page: R[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${literal(start)}*`, 'COUNT', LEARNING_PAGE_SIZE);
      cursor = next;
      const fresh = keys.filter((key) => !seen.has(key));
      for (const key of fresh) seen.add(key);
      for (let i = 0; i < fresh.length; i += KEYS_PER_READ) {
        const records = await Promise.all(fresh.slice(i, i + KEYS_PER_READ).map((key) => named(key, read(key, key.slice(start.length)))));
        page.push(...records.flat());
        if (page.length >= LEARNING_PAGE_SIZE) {
          yield page;
          page = [];
        }
      }
    } while (cursor !== '0');
    if (page.length > 0) yield page;
  }

  async write<K extends LearningRecordKind>(kind: K, records: ReadonlyArray<LearningRecordOf[K]>): Promise<void> {
    if (records.length === 0) return;
    const multi = this.redis.multi();
    for (const record of records as ReadonlyArray<LearningRecordOf[LearningRecordKind]>) {
      if (kind === 'saved_words') {
        const { userId, ...word } = record as MemberSavedWord;
        const stored: SavedWord = word;
        multi
          .hset(this.keys.key('saved', userId), word.date, JSON.stringify(stored))
          .zadd(this.keys.key('saved-at', userId), word.savedAt, word.date)
          .zadd(this.keys.key('due', userId), word.due, word.date);
      } else if (kind === 'quiz_answers') {
        const answer = record as QuizAnswer;
        multi
          .hset(this.keys.key('answers', answer.channelId, answer.day), answer.userId, JSON.stringify(answer))
          .sadd(this.keys.key('answered', answer.userId), this.keys.quiz(answer.channelId, answer.day).entry);
      } else if (kind === 'quiz_posts') {
        const { closed, revealed, answered, right, ...post } = record as QuizPost;
        // 'closed' as the scripts keep it: '0' open, '2' closed with its reveal to make, '1' revealed.
        multi.hset(this.keys.quiz(post.channelId, post.day).post, 'json', JSON.stringify(post), 'answered', answered, 'right', right, 'closed', revealed ? '1' : closed ? '2' : '0');
        // The open set holds every quiz whose reveal is still to make (dueToClose).
        this.keys.listQuiz(multi, post, !revealed);
      } else {
        const streak = record as Streak;
        multi
          .hset(this.keys.key('streaks', streak.guildId), streak.userId, JSON.stringify(streak))
          .zadd(this.keys.key('rank', streak.guildId), String(-boardScore(streak.current, streak.total)), streak.userId)
          .sadd(this.keys.key('guilds', streak.userId), streak.guildId);
        // A current streak is active until a quiz day passes without a right answer (CLOSE_SCRIPT ends it).
        if (streak.current > 0) multi.zadd(this.keys.key('active', streak.guildId), dayNumber(streak.lastDay), streak.userId);
        else multi.zrem(this.keys.key('active', streak.guildId), streak.userId);
      }
    }
    await committed(multi);
  }

  /** Every write was whole: nothing follows. */
  async finish(): Promise<void> {}

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
