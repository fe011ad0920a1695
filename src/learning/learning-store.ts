import type { IsoDate } from '../wotd/dates.ts';

/**
 * What the learning loop keeps, behind one interface with a SQLite, a PostgreSQL and a Redis implementation
 * (sql-learning-store.ts over either SQL driver, redis-learning-store.ts). Every id is a Discord snowflake as text.
 *
 * Saved words and their review state belong to a member (across servers and DMs); quiz answers belong to a member
 * and a quiz (a channel's post of one service day); streaks to a member in one server.
 */

/** Words a member may keep, so a member's list (and the store) stays bounded. */
export const MAX_SAVED_WORDS = 1_000;

export interface SavedWordInput {
  date: IsoDate;
  word: string;
  pos: string;
}

export interface SavedWord extends SavedWordInput {
  /** When it was saved (ms since the epoch). */
  savedAt: number;
  /** When it is next due for review (ms): the moment it was saved, until it is first reviewed. */
  due: number;
  /** The spaced-review card (ts-fsrs, JSON), null until the first review. */
  card: string | null;
}

export type SaveOutcome = 'saved' | 'already' | 'full';

/** A daily quiz: one channel's post of one service day, and the answer that is right. */
export interface QuizPost {
  channelId: string;
  day: IsoDate;
  guildId: string;
  /** The post's message; empty while the quiz is recorded but not yet posted (no button answers it then). */
  messageId: string;
  /** The entry asked about (the post's word). */
  entryDate: IsoDate;
  /** The choice (0–3) that holds the real definition. */
  correct: number;
  /**
   * The dates of the entries whose definitions are the four choices, in the order shown: kept from the first attempt
   * at the post, so a later one shows the same four whatever the word list holds by then. Null on a quiz recorded
   * before they were kept.
   */
  choices: IsoDate[] | null;
  /** When the quiz closes and its post is edited to reveal the answer (ms). */
  closesAt: number;
  /** The quiz takes no more answers: its counts are final. */
  closed: boolean;
  /** The post was edited to reveal the answer and the final counts (a closed quiz is revealed right after). */
  revealed: boolean;
  answered: number;
  right: number;
  /** The post's language (the subscription's), for the reveal. */
  language: string | null;
}

/** What registerQuiz records: the quiz without its state (its choices, when kept). */
export type QuizRecord = Omit<QuizPost, 'closed' | 'revealed' | 'answered' | 'right' | 'choices'> & { choices?: IsoDate[] | null };

export interface QuizAnswer {
  channelId: string;
  day: IsoDate;
  guildId: string;
  userId: string;
  choice: number;
  correct: boolean;
  answeredAt: number;
}

export type AnswerOutcome =
  | { kind: 'recorded'; streak: Streak | null }
  | { kind: 'already'; previous: QuizAnswer }
  | { kind: 'no-quiz' }
  | { kind: 'closed' };

export interface Streak {
  guildId: string;
  userId: string;
  /** Consecutive quiz days answered correctly, as of `lastDay`. */
  run: number;
  /** The run while it still counts (0 once a quiz day passed without a right answer). */
  current: number;
  best: number;
  total: number;
  lastDay: IsoDate;
}

/**
 * A member's place on the board: 1 + the members with a higher current streak, or the same streak and a higher
 * total. Members with the same streak and total are tied and share it ("1, 2, 2, 4"), listed by id.
 */
export interface BoardRow extends Streak {
  rank: number;
}

export interface LeaderboardPage {
  rows: BoardRow[];
  /** Members with a streak record in the server. */
  members: number;
}

export interface MemberLearningData {
  savedWords: SavedWord[];
  answers: QuizAnswer[];
  streaks: Streak[];
}

export interface LearningStore {
  /** A member's saved word; 'full' past MAX_SAVED_WORDS. */
  saveWord(userId: string, word: SavedWordInput, now: number): Promise<SaveOutcome>;
  /** False when it was not saved. */
  removeWord(userId: string, date: IsoDate): Promise<boolean>;
  /** Newest first. */
  listWords(userId: string, offset: number, limit: number): Promise<{ words: SavedWord[]; total: number }>;
  getWord(userId: string, date: IsoDate): Promise<SavedWord | null>;
  /** The member's saved word due first, if one is due at `now`, and how many are due. */
  nextDue(userId: string, now: number): Promise<{ word: SavedWord | null; due: number }>;
  /** How many of the member's saved words are due at `now`: a count over the index by member and due time. */
  countDue(userId: string, now: number): Promise<number>;
  /** Stores a review's outcome; false when the word is no longer saved. */
  recordReview(userId: string, date: IsoDate, card: string, due: number): Promise<boolean>;

  /**
   * Records a daily quiz before its post is made (no message id yet) and when it is made (again: replaced, the
   * answers kept).
   */
  registerQuiz(post: QuizRecord): Promise<void>;
  getQuiz(channelId: string, day: IsoDate): Promise<QuizPost | null>;
  /**
   * One answer per member per quiz, whatever happens: the answer, the quiz's counts and the member's streak are one
   * write. A second call for the same member and quiz returns the first answer. With `messageId` (the post whose
   * button was pressed), a quiz whose post is another message is no quiz ('no-quiz'), checked in the same write.
   */
  answerQuiz(answer: QuizAnswer, messageId?: string): Promise<AnswerOutcome>;
  /** Quizzes open at `now` whose closing time has passed, and closed ones not yet revealed; oldest first. */
  dueToClose(now: number, limit: number): Promise<QuizPost[]>;
  /**
   * Marks a quiz closed (once: false when it already was): from then on it takes no answer, so its counts are final,
   * and its reveal is due. Ends the current streaks in its server of members who answered no quiz of that day
   * correctly.
   */
  closeQuiz(channelId: string, day: IsoDate): Promise<boolean>;
  /** Marks a closed quiz's post revealed (its edit made): it is no longer due. */
  markRevealed(channelId: string, day: IsoDate): Promise<void>;
  /** Erases closed quizzes of days before `day`, with their answers (streaks keep their counts); returns how many. */
  pruneQuizzes(day: IsoDate): Promise<number>;

  streak(guildId: string, userId: string): Promise<Streak | null>;
  /** By current streak, then total, then id: rows [offset, offset + limit), each with its rank. */
  leaderboard(guildId: string, offset: number, limit: number): Promise<LeaderboardPage>;
  /** The member's rank (BoardRow's), null without a streak record. */
  rankOf(guildId: string, userId: string): Promise<number | null>;

  exportMember(userId: string): Promise<MemberLearningData>;
  /** Erases the member's saved words, answers and streaks; returns how many records went. */
  forgetMember(userId: string): Promise<number>;
  /** Erases a server's quizzes, answers and streaks; returns how many records went. */
  forgetServer(guildId: string): Promise<number>;
  close(): Promise<void>;
}

/** The leaderboard's order as one number: current streak first, then total (each below 10^7). */
export function boardScore(current: number, total: number): number {
  return Math.min(current, 9_999_999) * 10_000_000 + Math.min(total, 9_999_999);
}
