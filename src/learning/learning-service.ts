import type { Entry } from '../wotd/entry.ts';
import type { IsoDate } from '../wotd/dates.ts';
import type { Priority } from '../wotd/lookup.ts';
import type { LearningStore, SavedWord, SaveOutcome } from './learning-store.ts';
import { quizChoices, type QuizChoices } from './quiz-choices.ts';
import { reviewed, type ReviewGrade } from './review.ts';
import type { WordList } from './word-list.ts';

/** Saved words shown on one page of /wotd-words: each has its Remove button, beside Newer and Older in one row of five. */
export const WORDS_PAGE_SIZE = 3;
/** Rows on one page of /wotd-leaderboard. */
export const BOARD_PAGE_SIZE = 10;

/**
 * The learning loop as the commands see it: saved words, their review, quizzes and streaks, over one store, knowing
 * nothing of Discord. Time comes from `now`, so tests and benches can move it.
 */
export class LearningService {
  constructor(
    readonly store: LearningStore,
    private readonly words: WordList,
    readonly now: () => number = Date.now,
    private readonly fuzz = true,
  ) {}

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

  close(): Promise<void> {
    return this.store.close();
  }
}

/** A page number from a button or option: a whole number from 0 to 10,000. */
export function clampPage(page: number): number {
  return Number.isSafeInteger(page) ? Math.min(Math.max(page, 0), 10_000) : 0;
}
