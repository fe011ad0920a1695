import type { AnswerOutcome, QuizAnswer, Streak } from './learning-store.ts';
import type { SqlBoard } from './sql-board.ts';
import { optionalText, type SqlQuery, type SqlRow, type SqlValue } from './sql-driver.ts';
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
 * answer whatever their number, so a batch costs what one answer does. Each statement is a round trip (on SQLite a
 * turn of libuv's pool), so there are few: the quiz's row (on SQLite with the members' streaks), every answer's
 * insert with the quiz's counts, and the right answers' streaks with the board's counts (sql-board.ts); on
 * PostgreSQL also the board lock and the streaks read after it. The quiz's row is read first and, on PostgreSQL,
 * locked: every batch of a quiz, in any process, takes its turn there, and then the server's board lock (as a lone
 * answer and a quiz's closing do). On SQLite the transaction runs alone on the file, so the streaks read with the
 * quiz's row are the ones the batch writes over; on PostgreSQL a read made in the locking statement could be older
 * than the lock. Each answer gets its own outcome: a member's first answer is recorded unless the store holds one
 * already (the unique key decides), a second in the same batch is told the first.
 */
export async function answerBatch(t: AnswerTables, board: SqlBoard, postgres: boolean, pressed: readonly PressedAnswer[], query: SqlQuery): Promise<AnswerOutcome[]> {
  const answers = pressed.map((press) => press.answer);
  const first = answers[0];
  if (!first) return [];
  const { channelId, day } = first;
  if (answers.some((answer) => answer.channelId !== channelId || answer.day !== day)) throw new Error('learning store: a batch of answers to more than one quiz');
  const lock = postgres ? ' FOR UPDATE' : '';
  const members = [...new Set(answers.map((answer) => answer.userId))];
  // With the server's quiz day before this one, which a right answer's streak needs, and on SQLite the members' streaks.
  const streaksRead = postgres ? '' : `, (${streaksAsJson(t, members)}) AS streaks`;
  const [row] = await query(
    `SELECT p.*, (SELECT MAX(b.day) FROM ${t.posts} b WHERE b.guild_id = p.guild_id AND b.day < p.day) AS previous_day${streaksRead}
     FROM ${t.posts} p WHERE p.channel_id = $1 AND p.day = $2${lock}`,
    postgres ? [channelId, day] : [channelId, day, ...members],
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

  const inserted = await insertAnswers(t, postgres, [...firsts.values()], query);
  const previous = await stored(users.filter((user) => !inserted.has(user)));
  const recorded = [...firsts.values()].filter((answer) => inserted.has(answer.userId));
  const rights = recorded.filter((answer) => answer.correct);
  const streaks = new Map<string, Streak | null>();
  if (recorded.length > 0) {
    let existing: SqlRow[];
    if (postgres) {
      if (rights.length > 0) await board.lock([guildId], query);
      const ids = recorded.map((answer) => answer.userId);
      existing = await query(`SELECT * FROM ${t.streaks} WHERE guild_id = $1 AND user_id IN (${placeholders(2, ids.length)})${rights.length > 0 ? lock : ''}`, [guildId, ...ids]);
    } else existing = JSON.parse(optionalText(row ?? {}, 'streaks') ?? '[]') as SqlRow[];
    for (const found of existing) streaks.set(streak(found).userId, streak(found));
    if (rights.length > 0) await countRightAnswers(board, guildId, day, row ? optionalText(row, 'previous_day') : null, rights, streaks, query);
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

/** SQLite: the members' streak rows in the quiz's server, as one JSON array (parameters from $3). */
function streaksAsJson(t: AnswerTables, members: readonly string[]): string {
  const fields = ['guild_id', 'user_id', 'run', 'current', 'best', 'total', 'last_day'].map((column) => `'${column}', s.${column}`).join(', ');
  return `SELECT json_group_array(json_object(${fields})) FROM ${t.streaks} s WHERE s.guild_id = p.guild_id AND s.user_id IN (${placeholders(3, members.length)})`;
}

/**
 * Inserts the answers, each unless the member's is there already, and adds the written ones to the quiz's counts, in
 * one statement: on SQLite the answers table's trigger counts them, on PostgreSQL the statement's second part.
 * Returns the members whose answer was written.
 */
async function insertAnswers(t: AnswerTables, postgres: boolean, answers: readonly QuizAnswer[], query: SqlQuery): Promise<Set<string>> {
  const first = answers[0];
  if (!first) return new Set();
  // PostgreSQL's second part names the quiz as $1 and $2.
  const values: SqlValue[] = postgres ? [first.channelId, first.day] : [];
  const rows = answers.map((answer) => {
    const at = values.push(answer.channelId, answer.day, answer.userId, answer.guildId, answer.choice, answer.correct ? 1 : 0, answer.answeredAt) - 6;
    return `(${placeholders(at, 7)})`;
  });
  const insert = `INSERT INTO ${t.answers} (channel_id, day, user_id, guild_id, choice, correct, answered_at) VALUES ${rows.join(', ')}
     ON CONFLICT (channel_id, day, user_id) DO NOTHING RETURNING user_id, correct`;
  const written = await query(
    postgres
      ? `WITH ins AS (${insert}), counted AS (UPDATE ${t.posts} SET answered = answered + (SELECT COUNT(*) FROM ins),
           right_answers = right_answers + (SELECT COUNT(*) FROM ins WHERE correct = 1) WHERE channel_id = $1 AND day = $2 AND EXISTS (SELECT 1 FROM ins))
         SELECT user_id FROM ins`
      : insert,
    values,
  );
  return new Set(written.map((row) => String(row.user_id)));
}

/** The right answers' streaks move on (in `streaks`) from the server's quiz day before (`previousDay`), written with the board's counts. */
async function countRightAnswers(
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
  await board.writeMoves(guildId, moves, query);
}
