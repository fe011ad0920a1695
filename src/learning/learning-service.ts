import type { Entry } from '../wotd/entry.ts';
import type { IsoDate } from '../wotd/dates.ts';
import type { Priority } from '../wotd/lookup.ts';
import type { LearningStore, QuizPost, QuizRecord, SavedWord, SaveOutcome, Streak } from './learning-store.ts';
import { QuizRecords } from './quiz-records.ts';
import { quizChoices, type QuizChoices } from './quiz-choices.ts';
import { reviewed, type ReviewGrade } from './review.ts';
import type { WordList } from './word-list.ts';

/** Saved words shown on one page of /wotd-words: each with its Remove button, after Newer and Older (two rows). */
export const WORDS_PAGE_SIZE = 5;
/** Rows on one page of /wotd-leaderboard. */
export const BOARD_PAGE_SIZE = 10;

/**
 * The learning loop as the commands see it: saved words, their review, quizzes and streaks, over one store, knowing
 * nothing of Discord. Time comes from `now`, so tests and benches can move it.
 */
export interface LearningOptions {
  now?: () => number;
  /** Spread review dates a little (ts-fsrs's fuzz); off in tests, for exact dates. */
  fuzz?: boolean;
  /**
   * Whether a channel's subscription still asks for a quiz: a removed one's quiz answers no more. The bot's is
   * SubscriptionStore.quizOn, kept a few seconds: a removal by another process shows within that time.
   */
  quizChannel?: (channelId: string) => Promise<boolean>;
}

export interface DailyAnswerRequest {
  channelId: string;
  guildId: string;
  userId: string;
  /** The message the button sits on: it must be the quiz's own post. */
  messageId: string;
  day: IsoDate;
  choice: number;
}

export type DailyAnswer =
  | { kind: 'gone' }
  | { kind: 'closed'; entryDate: IsoDate }
  | { kind: 'already'; right: boolean }
  | { kind: 'recorded'; right: boolean; entryDate: IsoDate; streak: Streak | null };

export class LearningService {
  readonly now: () => number;
  private readonly fuzz: boolean;
  private readonly quizzes: QuizRecords;
  /** Daily answers being written by this process, by quiz and member (see answerDaily). */
  private readonly writing = new Map<string, Promise<DailyAnswer>>();

  constructor(
    readonly store: LearningStore,
    private readonly words: WordList,
    private readonly options: LearningOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.fuzz = options.fuzz ?? true;
    this.quizzes = new QuizRecords((channelId, day) => store.getQuiz(channelId, day));
  }

  /** Records a daily quiz (see LearningStore.registerQuiz); this process's presses read it again. */
  async registerQuiz(record: QuizRecord): Promise<void> {
    try {
      await this.store.registerQuiz(record);
    } finally {
      this.quizzes.forget(record.channelId, record.day);
    }
  }

  /**
   * A member's answer to a channel's daily quiz. Everything that says which quiz it is comes from the interaction
   * (its channel, server, member and message), checked against the quiz's record: only the day and the choice come
   * from the button, and a day whose post is not this message is no quiz. The quiz's record comes from QuizRecords
   * (kept a minute, read again for another message): the answer's write checks it again in its transaction.
   */
  async answerDaily(request: DailyAnswerRequest): Promise<DailyAnswer> {
    if (!Number.isSafeInteger(request.choice) || request.choice < 0 || request.choice > 3) return { kind: 'gone' };
    // The subscription is asked beside the quiz (both kept a while after a read, see quizChannel): a press of a busy
    // quiz waits for neither, and for at most one round trip when both are read.
    const asked = this.options.quizChannel?.(request.channelId);
    asked?.catch(() => undefined);
    const quiz = await this.quizzes.get(request.channelId, request.day, request.messageId);
    // A quiz recorded before its post (no message yet) takes no answer.
    if (!quiz || quiz.messageId === '' || quiz.messageId !== request.messageId || quiz.guildId !== request.guildId) return { kind: 'gone' };
    if (quiz.closed) return { kind: 'closed', entryDate: quiz.entryDate };
    if (asked && !(await asked)) return { kind: 'gone' };
    // A member's press while their first is being written (a double click) is told the first's outcome once it is
    // committed, as the store would tell it, without a write of its own; if the first fails, it writes its own.
    const key = `${request.channelId}\n${request.day}\n${request.userId}`;
    const earlier = this.writing.get(key);
    const first = earlier ? await earlier.catch(() => null) : null;
    if (first) return first.kind === 'recorded' ? { kind: 'already', right: first.right } : first;
    const written = this.write(request, quiz);
    this.writing.set(key, written);
    try {
      return await written;
    } finally {
      if (this.writing.get(key) === written) this.writing.delete(key);
    }
  }

  private async write(request: DailyAnswerRequest, quiz: QuizPost): Promise<DailyAnswer> {
    const right = request.choice === quiz.correct;
    const outcome = await this.store.answerQuiz(
      {
        channelId: request.channelId,
        day: request.day,
        guildId: request.guildId,
        userId: request.userId,
        choice: request.choice,
        correct: right,
        answeredAt: this.now(),
      },
      request.messageId,
    );
    switch (outcome.kind) {
      case 'recorded':
        return { kind: 'recorded', right, entryDate: quiz.entryDate, streak: outcome.streak };
      case 'already':
        return { kind: 'already', right: outcome.previous.correct };
      case 'closed':
        this.quizzes.closed(request.channelId, request.day);
        return { kind: 'closed', entryDate: quiz.entryDate };
      case 'no-quiz':
        this.quizzes.forget(request.channelId, request.day);
        return { kind: 'gone' };
    }
  }

  save(userId: string, entry: Entry): Promise<SaveOutcome> {
    return this.store.saveWord(userId, { date: entry.date, word: entry.word, pos: entry.pos }, this.now());
  }

  /** One page of saved words, newest first; the page is clamped to the last one there is. */
  async wordsPage(userId: string, page: number): Promise<{ words: SavedWord[]; total: number; page: number; pages: number }> {
    const first = await this.store.listWords(userId, clampPage(page) * WORDS_PAGE_SIZE, WORDS_PAGE_SIZE);
    const pages = Math.max(1, Math.ceil(first.total / WORDS_PAGE_SIZE));
    const wanted = Math.min(clampPage(page), pages - 1);
    if (wanted === clampPage(page)) return { ...first, page: wanted, pages };
    const last = await this.store.listWords(userId, wanted * WORDS_PAGE_SIZE, WORDS_PAGE_SIZE);
    return { ...last, page: wanted, pages: Math.max(1, Math.ceil(last.total / WORDS_PAGE_SIZE)) };
  }

  nextReview(userId: string): Promise<{ word: SavedWord | null; due: number }> {
    return this.store.nextDue(userId, this.now());
  }

  /** Grades a review; null when the word is no longer saved. */
  async grade(userId: string, date: IsoDate, grade: ReviewGrade): Promise<{ due: number } | null> {
    const word = await this.store.getWord(userId, date);
    if (!word) return null;
    const next = reviewed(word.card, grade, new Date(this.now()), this.fuzz);
    return (await this.store.recordReview(userId, date, next.card, next.due)) ? { due: next.due } : null;
  }

  /** The four choices for `entry`, the same for every `seed` (a channel and day). */
  async quiz(entry: Entry, seed: string, priority: Priority): Promise<QuizChoices> {
    return quizChoices(entry, await this.words.candidatesFor(entry, priority), seed);
  }

  /** One page of a server's leaderboard (clamped to the last), and the member's own rank, read side by side. */
  async leaderboardPage(guildId: string, userId: string, page: number) {
    const wanted = clampPage(page);
    const [first, ownRank] = await Promise.all([this.store.leaderboard(guildId, wanted * BOARD_PAGE_SIZE, BOARD_PAGE_SIZE), this.store.rankOf(guildId, userId)]);
    let board = first;
    const pages = Math.max(1, Math.ceil(board.members / BOARD_PAGE_SIZE));
    const shown = Math.min(wanted, pages - 1);
    if (shown !== wanted) board = await this.store.leaderboard(guildId, shown * BOARD_PAGE_SIZE, BOARD_PAGE_SIZE);
    return { ...board, page: shown, pages, ownRank };
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/** A page number from a button or option: a whole number from 0 to 10,000. */
export function clampPage(page: number): number {
  return Number.isSafeInteger(page) ? Math.min(Math.max(page, 0), 10_000) : 0;
}
