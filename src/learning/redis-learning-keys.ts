import type { ChainableCommander } from 'ioredis';
import type { IsoDate } from '../wotd/dates.ts';
import type { QuizRecord } from './learning-store.ts';

/** A day as a number (days since 1970-01-01), for scores. */
export function dayNumber(day: IsoDate): number {
  return Math.floor(Date.parse(`${day}T00:00:00Z`) / 86_400_000);
}

/**
 * Where the Redis learning store keeps its records and the sets that list them, under `<prefix>learning:`: one
 * layout for the store (redis-learning-store.ts) and the copier of its records (redis-learning-records.ts).
 */
export class RedisLearningKeys {
  private readonly prefix: string;

  constructor(keyPrefix: string) {
    this.prefix = `${keyPrefix}learning:`;
  }

  key(...parts: string[]): string {
    return `${this.prefix}${parts.join(':')}`;
  }

  /** A quiz's record, its answers, and its entry in the sets that list quizzes (`<channel>|<day>`). */
  quiz(channelId: string, day: IsoDate): { post: string; answers: string; entry: string } {
    return { post: this.key('quiz', channelId, day), answers: this.key('answers', channelId, day), entry: `${channelId}|${day}` };
  }

  /**
   * Lists a quiz in every set that finds it: all quizzes by day, its server's quiz days and quizzes, and, while its
   * reveal is still to make (`open`), the open ones by closing time.
   */
  listQuiz(multi: ChainableCommander, post: Pick<QuizRecord, 'channelId' | 'day' | 'guildId' | 'closesAt'>, open: boolean): ChainableCommander {
    const { entry } = this.quiz(post.channelId, post.day);
    if (open) multi.zadd(this.key('open'), post.closesAt, entry);
    else multi.zrem(this.key('open'), entry);
    return multi
      .zadd(this.key('quizzes'), dayNumber(post.day), entry)
      .zadd(this.key('quiz-days', post.guildId), 0, post.day)
      .sadd(this.key('guild-quizzes', post.guildId), entry);
  }
}
