import type { QuizAnswer, QuizPost, SavedWord, Streak } from './learning-store.ts';
import { integer, optionalText, text, type SqlRow } from './sql-driver.ts';

/** The SQL learning store's tables and its rows as the store's records. */

/** The quizzes' `closed` column: open, closed with its post revealed, closed with its reveal still to make. */
export const OPEN = 0;
export const CLOSED_REVEALED = 1;
export const CLOSED_UNREVEALED = 2;

export const TABLES = { saved: 'wotd_learning_saved', posts: 'wotd_learning_quizzes', answers: 'wotd_learning_answers', streaks: 'wotd_learning_streaks' };

export function savedWord(row: SqlRow): SavedWord {
  return {
    date: text(row, 'date'),
    word: text(row, 'word'),
    pos: text(row, 'pos'),
    savedAt: integer(row, 'saved_at'),
    due: integer(row, 'due'),
    card: optionalText(row, 'card'),
  };
}

export function quizPost(row: SqlRow): QuizPost {
  return {
    channelId: text(row, 'channel_id'),
    day: text(row, 'day'),
    guildId: text(row, 'guild_id'),
    messageId: text(row, 'message_id'),
    entryDate: text(row, 'entry_date'),
    correct: integer(row, 'correct'),
    closesAt: integer(row, 'closes_at'),
    closed: integer(row, 'closed') !== 0,
    revealed: integer(row, 'closed') === CLOSED_REVEALED,
    answered: integer(row, 'answered'),
    right: integer(row, 'right_answers'),
    language: optionalText(row, 'language'),
    choices: choiceDates(optionalText(row, 'choices')),
  };
}

/** The stored choices (a JSON list of four dates); anything else is none, and the quiz's choices are made again. */
function choiceDates(stored: string | null): string[] | null {
  if (stored === null) return null;
  try {
    const dates: unknown = JSON.parse(stored);
    return Array.isArray(dates) && dates.length === 4 && dates.every((date) => typeof date === 'string') ? (dates as string[]) : null;
  } catch {
    return null;
  }
}

export function quizAnswer(row: SqlRow): QuizAnswer {
  return {
    channelId: text(row, 'channel_id'),
    day: text(row, 'day'),
    guildId: text(row, 'guild_id'),
    userId: text(row, 'user_id'),
    choice: integer(row, 'choice'),
    correct: integer(row, 'correct') !== 0,
    answeredAt: integer(row, 'answered_at'),
  };
}

export function streak(row: SqlRow): Streak {
  return {
    guildId: text(row, 'guild_id'),
    userId: text(row, 'user_id'),
    run: integer(row, 'run'),
    current: integer(row, 'current'),
    best: integer(row, 'best'),
    total: integer(row, 'total'),
    lastDay: text(row, 'last_day'),
  };
}

