import type { AnswerOutcome, QuizAnswer, Streak } from './learning-store.ts';
import type { SqlBoard } from './sql-board.ts';
import { optionalText, type SqlQuery, type SqlValue } from './sql-driver.ts';
import { quizAnswer, quizPost, streak } from './sql-learning-rows.ts';
import { streakAfterRightAnswer } from './streak-rule.ts';

/** Answers written in one transaction at most: their insert's parameters stay far below either database's limit. */
export const MAX_ANSWERS_PER_BATCH = 100;

export interface AnswerTables {
  posts: string;
  answers: string;
  streaks: string;
}

/** An answer as the store was asked for it: with the post whose button was pressed, when known. */
export interface PressedAnswer {
  answer: QuizAnswer;
  messageId?: string;
}

/** `$first, $first+1, …` for `count` parameters. */
function placeholders(first: number, count: number): string {
  return Array.from({ length: count }, (_, i) => `$${first + i}`).join(', ');
}

/**
 * Answers to one quiz (one channel and day), inside the caller's transaction, as one: the same statements as a lone
 * answer whatever their number (the quiz's row, every answer's insert, the counts, the streaks read and written,
 * the board's counts), so a batch costs what one answer does. The quiz's row is read first and, on PostgreSQL,
 * locked: every batch of a quiz, in any process, takes its turn there, and then the server's board lock (as a lone
 * answer and a quiz's closing do). Each answer gets its own outcome: a member's first answer is recorded unless the
 * store holds one already (the unique key decides), a second in the same batch is told the first.
 */
export async function answerBatch(t: AnswerTables, board: SqlBoard, postgres: boolean, pressed: readonly PressedAnswer[], query: SqlQuery): Promise<AnswerOutcome[]> {
  const answers = pressed.map((press) => press.answer);
  const first = answers[0];
  if (!first) return [];
  const { channelId, day } = first;
  if (answers.some((answer) => answer.channelId !== channelId || answer.day !== day)) throw new Error('learning store: a batch of answers to more than one quiz');
  const lock = postgres ? ' FOR UPDATE' : '';
  // With the server's quiz day before this one, which a right answer's streak needs: one statement fewer.
  const [row] = await query(
    `SELECT p.*, (SELECT MAX(b.day) FROM ${t.posts} b WHERE b.guild_id = p.guild_id AND b.day < p.day) AS previous_day
     FROM ${t.posts} p WHERE p.channel_id = $1 AND p.day = $2${lock}`,
    [channelId, day],
  );
  const post = row ? quizPost(row) : null;
  const outcomes: AnswerOutcome[] = answers.map(() => ({ kind: 'no-quiz' }));
  if (!post) return outcomes;
  const guildId = post.guildId;
  // An answer from another server, or pressed on another message than the quiz's post, answers no quiz.
  const ofQuiz = (index: number): boolean => {
    const press = pressed[index];
    return press !== undefined && press.answer.guildId === guildId && (press.messageId === undefined || press.messageId === post.messageId);
  };
  // Each member's first answer in the batch; later ones are told it.
  const firsts = new Map<string, QuizAnswer>();
  answers.forEach((answer, index) => {
    if (ofQuiz(index) && !firsts.has(answer.userId)) firsts.set(answer.userId, answer);
  });
  if (firsts.size === 0) return outcomes;
  const users = [...firsts.keys()];

  const stored = async (wanted: string[]): Promise<Map<string, QuizAnswer>> => {
    if (wanted.length === 0) return new Map();
    const rows = await query(`SELECT * FROM ${t.answers} WHERE channel_id = $1 AND day = $2 AND user_id IN (${placeholders(3, wanted.length)})`, [channelId, day, ...wanted]);
    return new Map(rows.map((found) => [quizAnswer(found).userId, quizAnswer(found)]));
  };

  // A closed quiz takes no answer; a member who answered in time is told so.
  if (post.closed) {
    const previous = await stored(users);
    answers.forEach((answer, index) => {
      if (!ofQuiz(index)) return;
      const earlier = previous.get(answer.userId);
      outcomes[index] = earlier ? { kind: 'already', previous: earlier } : { kind: 'closed' };
    });
    return outcomes;
  }

  const values: SqlValue[] = [];
  const rows = [...firsts.values()].map((answer) => {
    const at = values.push(answer.channelId, answer.day, answer.userId, answer.guildId, answer.choice, answer.correct ? 1 : 0, answer.answeredAt) - 6;
    return `(${placeholders(at, 7)})`;
  });
  const inserted = new Set(
    (
      await query(
        `INSERT INTO ${t.answers} (channel_id, day, user_id, guild_id, choice, correct, answered_at) VALUES ${rows.join(', ')}
         ON CONFLICT (channel_id, day, user_id) DO NOTHING RETURNING user_id`,
        values,
      )
    ).map((written) => String(written.user_id)),
  );
  const previous = await stored(users.filter((user) => !inserted.has(user)));
  const recorded = [...firsts.values()].filter((answer) => inserted.has(answer.userId));
  const rights = recorded.filter((answer) => answer.correct);
  const streaks = new Map<string, Streak | null>();
  if (recorded.length > 0) {
    await query(`UPDATE ${t.posts} SET answered = answered + $3, right_answers = right_answers + $4 WHERE channel_id = $1 AND day = $2`, [
      channelId,
      day,
      recorded.length,
      rights.length,
    ]);
    if (rights.length > 0) await board.lock([guildId], query);
    const ids = recorded.map((answer) => answer.userId);
    const existing = await query(`SELECT * FROM ${t.streaks} WHERE guild_id = $1 AND user_id IN (${placeholders(2, ids.length)})${rights.length > 0 ? lock : ''}`, [guildId, ...ids]);
    for (const found of existing) streaks.set(streak(found).userId, streak(found));
    if (rights.length > 0) await countRightAnswers(t, board, guildId, day, row ? optionalText(row, 'previous_day') : null, rights, streaks, query);
  }

  answers.forEach((answer, index) => {
    if (!ofQuiz(index)) return;
    const mine = firsts.get(answer.userId);
    if (mine === answer && inserted.has(answer.userId)) {
      outcomes[index] = { kind: 'recorded', streak: streaks.get(answer.userId) ?? null };
      return;
    }
    const earlier = inserted.has(answer.userId) ? mine : previous.get(answer.userId);
    if (!earlier) throw new Error('learning store: an answer was neither written nor found');
    outcomes[index] = { kind: 'already', previous: earlier };
  });
  return outcomes;
}

/**
 * The right answers' streaks move on (in `streaks`) from the server's quiz day before (`previousDay`), written with
 * the board's counts in one statement each.
 */
async function countRightAnswers(
  t: AnswerTables,
  board: SqlBoard,
  guildId: string,
  day: string,
  previousDay: string | null,
  rights: readonly QuizAnswer[],
  streaks: Map<string, Streak | null>,
  query: SqlQuery,
): Promise<void> {
  const moves: Array<[Streak | null, Streak]> = [];
  for (const answer of rights) {
    const existing = streaks.get(answer.userId) ?? null;
    const next = streakAfterRightAnswer(existing, guildId, answer.userId, day, previousDay);
    if (!next) continue;
    moves.push([existing, next]);
    streaks.set(answer.userId, next);
  }
  if (moves.length === 0) return;
  const values: SqlValue[] = [];
  const rows = moves.map(([, next]) => `(${placeholders(values.push(next.guildId, next.userId, next.run, next.current, next.best, next.total, next.lastDay) - 6, 7)})`);
  await query(
    `INSERT INTO ${t.streaks} (guild_id, user_id, run, current, best, total, last_day) VALUES ${rows.join(', ')}
     ON CONFLICT (guild_id, user_id) DO UPDATE SET run = excluded.run, current = excluded.current, best = excluded.best,
       total = excluded.total, last_day = excluded.last_day`,
    values,
  );
  await board.moveMany(guildId, moves, query);
}
