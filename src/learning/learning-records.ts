import type { QuizAnswer, QuizPost, SavedWord, Streak } from './learning-store.ts';

/**
 * Every record of a learning store, read in pages and written into another store as it is (migrate-store): ids,
 * times, counts and review state unchanged. Implemented for SQL (sql-learning-records.ts) and Redis
 * (redis-learning-records.ts), so records go in any direction.
 */

/** A saved word with the member it belongs to. */
export interface MemberSavedWord extends SavedWord {
  userId: string;
}

/** The kinds of record, in the order migrate-store names them. */
export const LEARNING_RECORD_KINDS = ['saved_words', 'quiz_posts', 'quiz_answers', 'streaks'] as const;
export type LearningRecordKind = (typeof LEARNING_RECORD_KINDS)[number];

export interface LearningRecordOf {
  saved_words: MemberSavedWord;
  quiz_posts: QuizPost;
  quiz_answers: QuizAnswer;
  streaks: Streak;
}

/** A store's records, read only: a store without learning tables or keys has none (and gets none created). */
export interface LearningRecordSource {
  pages<K extends LearningRecordKind>(kind: K): AsyncGenerator<Array<LearningRecordOf[K]>>;
  close(): Promise<void>;
}

/**
 * Writes records as they are; one already there (same key) is replaced. Streaks are written with what the
 * leaderboard derives from them (the SQL board's counts, the Redis rank and active-streak sets); the board reads
 * right once `finish` is done. A quiz post is written with its own counts: write posts after their answers, so
 * nothing an answer's write adds to a quiz's counts stays.
 */
export interface LearningRecordTarget {
  write<K extends LearningRecordKind>(kind: K, records: ReadonlyArray<LearningRecordOf[K]>): Promise<void>;
  /** After the last write: what follows from the records and is not written yet (the SQL board's last server). */
  finish(): Promise<void>;
  close(): Promise<void>;
}

/** The order records are written in: answers before the posts whose counts they would otherwise add to. */
export const LEARNING_WRITE_ORDER: readonly LearningRecordKind[] = ['saved_words', 'quiz_answers', 'quiz_posts', 'streaks'];

/** Records read or written at once. */
export const LEARNING_PAGE_SIZE = 500;
