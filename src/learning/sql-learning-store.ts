import type { IsoDate } from '../wotd/dates.ts';
import { createdElsewhere } from '../store/postgres-created-elsewhere.ts';
import {
  MAX_SAVED_WORDS,
  type AnswerOutcome,
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
import { BOARD_TABLE_NAMES, SqlBoard } from './sql-board.ts';
import { GroupCommit } from './group-commit.ts';
import { answerBatch, MAX_ANSWERS_PER_BATCH, type PressedAnswer } from './sql-answer-batch.ts';
import { integer, text, type SqlDriver, type SqlQuery, type SqlRow } from './sql-driver.ts';
import { CLOSED_REVEALED, CLOSED_UNREVEALED, OPEN, quizAnswer, quizPost, savedWord, streak, TABLES } from './sql-learning-rows.ts';

/**
 * The learning store in SQL tables beside Keyv's, in the same SQLite file or PostgreSQL schema. Every read a
 * command makes goes through an index: a member's words by (member, saved time) and (member, due time), a server's
 * leaderboard by (server, current streak, total, member), with the counts of sql-board.ts, so the top ten, any page
 * and a rank do not read the whole server.
 */

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS {saved} (user_id TEXT NOT NULL, date TEXT NOT NULL, word TEXT NOT NULL, pos TEXT NOT NULL,
     saved_at BIGINT NOT NULL, due BIGINT NOT NULL, card TEXT, PRIMARY KEY (user_id, date))`,
  `CREATE INDEX IF NOT EXISTS wotd_learning_saved_newest ON {saved} (user_id, saved_at)`,
  `CREATE INDEX IF NOT EXISTS wotd_learning_saved_due ON {saved} (user_id, due)`,
  `CREATE TABLE IF NOT EXISTS {posts} (channel_id TEXT NOT NULL, day TEXT NOT NULL, guild_id TEXT NOT NULL, message_id TEXT NOT NULL,
     entry_date TEXT NOT NULL, correct INTEGER NOT NULL, closes_at BIGINT NOT NULL, closed INTEGER NOT NULL DEFAULT 0,
     answered INTEGER NOT NULL DEFAULT 0, right_answers INTEGER NOT NULL DEFAULT 0, language TEXT, choices TEXT, PRIMARY KEY (channel_id, day))`,
  `CREATE INDEX IF NOT EXISTS wotd_learning_posts_open ON {posts} (closed, closes_at)`,
  `CREATE INDEX IF NOT EXISTS wotd_learning_posts_guild ON {posts} (guild_id, day)`,
  `CREATE TABLE IF NOT EXISTS {answers} (channel_id TEXT NOT NULL, day TEXT NOT NULL, user_id TEXT NOT NULL, guild_id TEXT NOT NULL,
     choice INTEGER NOT NULL, correct INTEGER NOT NULL, answered_at BIGINT NOT NULL, PRIMARY KEY (channel_id, day, user_id))`,
  `CREATE INDEX IF NOT EXISTS wotd_learning_answers_user ON {answers} (user_id)`,
  `CREATE INDEX IF NOT EXISTS wotd_learning_answers_guild ON {answers} (guild_id)`,
  `CREATE INDEX IF NOT EXISTS wotd_learning_answers_day ON {answers} (day)`,
  `CREATE INDEX IF NOT EXISTS wotd_learning_posts_day ON {posts} (day)`,
  `CREATE TABLE IF NOT EXISTS {streaks} (guild_id TEXT NOT NULL, user_id TEXT NOT NULL, run INTEGER NOT NULL, current INTEGER NOT NULL,
     best INTEGER NOT NULL, total INTEGER NOT NULL, last_day TEXT NOT NULL, PRIMARY KEY (guild_id, user_id))`,
  `CREATE INDEX IF NOT EXISTS wotd_learning_streaks_board ON {streaks} (guild_id, current DESC, total DESC, user_id)`,
  `CREATE INDEX IF NOT EXISTS wotd_learning_streaks_active ON {streaks} (guild_id, last_day) WHERE current > 0`,
  `CREATE INDEX IF NOT EXISTS wotd_learning_streaks_user ON {streaks} (user_id)`,
];

/**
 * SQLite: an answer written counts itself in its quiz's row, in the answer's own statement (one round trip fewer per
 * batch; PostgreSQL's answer statement counts them in a second part, sql-answer-batch.ts). Made on every opening, so a
 * store written before gets it too; its counts were kept by the statement this replaces, and go on from there.
 */
const SQLITE_SCHEMA = [
  `CREATE TRIGGER IF NOT EXISTS wotd_learning_answers_counted AFTER INSERT ON {answers} BEGIN
     UPDATE {posts} SET answered = answered + 1, right_answers = right_answers + NEW.correct WHERE channel_id = NEW.channel_id AND day = NEW.day;
   END`,
];

export class SqlLearningStore implements LearningStore {
  private readonly t: typeof TABLES;
  private readonly board: SqlBoard;
  private readonly answers = new GroupCommit<PressedAnswer, AnswerOutcome>(
    (_key, batch) => this.db.transaction((query) => answerBatch(this.t, this.board, this.db.dialect === 'postgres', batch, query)),
    MAX_ANSWERS_PER_BATCH,
  );

  private constructor(private readonly db: SqlDriver) {
    this.t = { saved: db.table(TABLES.saved), posts: db.table(TABLES.posts), answers: db.table(TABLES.answers), streaks: db.table(TABLES.streaks) };
    this.board = new SqlBoard(db, { streaks: this.t.streaks, levels: db.table(BOARD_TABLE_NAMES.levels), ties: db.table(BOARD_TABLE_NAMES.ties) });
  }

  static async open(db: SqlDriver): Promise<SqlLearningStore> {
    const store = new SqlLearningStore(db);
    try {
      const schema = [...SCHEMA, ...(db.dialect === 'sqlite' ? SQLITE_SCHEMA : [])];
      for (const statement of [...schema.map((text) => store.sql(text)), ...store.board.schema()]) {
        try {
          await db.query(statement);
        } catch (error) {
          // Two processes starting at once on one PostgreSQL (cluster mode) race CREATE … IF NOT EXISTS: the one
          // refused finds the other's table there.
          if (!(db.dialect === 'postgres' && createdElsewhere(error))) throw error;
        }
      }
      await store.addChoicesColumn();
      await store.board.upgrade();
    } catch (error) {
      await db.close();
      throw error;
    }
    return store;
  }

  /** Quiz tables made before the choices were kept get their column. */
  private async addChoicesColumn(): Promise<void> {
    if (this.db.dialect === 'postgres') {
      await this.run('ALTER TABLE {posts} ADD COLUMN IF NOT EXISTS choices TEXT').catch((error: unknown) => {
        // Two cluster members adding it at once: the one refused finds it there.
        if (!createdElsewhere(error) && (error as { code?: unknown }).code !== '42701') throw error;
      });
      return;
    }
    const columns = await this.run(`SELECT name FROM pragma_table_info('${TABLES.posts}')`);
    if (!columns.some((column) => column.name === 'choices')) await this.run('ALTER TABLE {posts} ADD COLUMN choices TEXT');
  }

  /** `{saved}` and the like → the quoted table names. */
  private sql(statement: string): string {
    return statement.replace(/\{(saved|posts|answers|streaks)\}/g, (_, name: keyof typeof TABLES) => this.t[name]);
  }

  private run(statement: string, parameters: ReadonlyArray<string | number | null> = [], query: SqlQuery = this.db.query): Promise<SqlRow[]> {
    return query(this.sql(statement), parameters);
  }

  async saveWord(userId: string, word: SavedWordInput, now: number): Promise<SaveOutcome> {
    // One statement (on PostgreSQL after the member's lock, as its snapshot would let two saves count the same
    // rows): the cap holds however many saves run at once.
    const rows = await this.db.transaction(async (query) => {
      if (this.db.dialect === 'postgres') await query("SELECT pg_advisory_xact_lock(hashtextextended('wotd-saved:' || $1, 0))", [userId]);
      return this.run(
      `INSERT INTO {saved} (user_id, date, word, pos, saved_at, due, card)
         SELECT $1, $2, $3, $4, $5, $5, NULL WHERE (SELECT COUNT(*) FROM {saved} WHERE user_id = $1) < $6
       ON CONFLICT (user_id, date) DO NOTHING RETURNING date`,
      [userId, word.date, word.word, word.pos, now, MAX_SAVED_WORDS],
      query,
    );
    });
    if (rows.length > 0) return 'saved';
    return (await this.getWord(userId, word.date)) ? 'already' : 'full';
  }

  async removeWord(userId: string, date: IsoDate): Promise<boolean> {
    return (await this.run('DELETE FROM {saved} WHERE user_id = $1 AND date = $2 RETURNING date', [userId, date])).length > 0;
  }

  async listWords(userId: string, offset: number, limit: number): Promise<{ words: SavedWord[]; total: number }> {
    const rows = await this.run('SELECT * FROM {saved} WHERE user_id = $1 ORDER BY saved_at DESC, date DESC LIMIT $2 OFFSET $3', [userId, limit, offset]);
    const count = await this.run('SELECT COUNT(*) AS n FROM {saved} WHERE user_id = $1', [userId]);
    return { words: rows.map(savedWord), total: count[0] ? integer(count[0], 'n') : 0 };
  }

  async getWord(userId: string, date: IsoDate): Promise<SavedWord | null> {
    const rows = await this.run('SELECT * FROM {saved} WHERE user_id = $1 AND date = $2', [userId, date]);
    return rows[0] ? savedWord(rows[0]) : null;
  }

  async nextDue(userId: string, now: number): Promise<{ word: SavedWord | null; due: number }> {
    const rows = await this.run('SELECT * FROM {saved} WHERE user_id = $1 AND due <= $2 ORDER BY due, date LIMIT 1', [userId, now]);
    return { word: rows[0] ? savedWord(rows[0]) : null, due: await this.countDue(userId, now) };
  }

  async countDue(userId: string, now: number): Promise<number> {
    const count = await this.run('SELECT COUNT(*) AS n FROM {saved} WHERE user_id = $1 AND due <= $2', [userId, now]);
    return count[0] ? integer(count[0], 'n') : 0;
  }

  async recordReview(userId: string, date: IsoDate, card: string, due: number): Promise<boolean> {
    return (await this.run('UPDATE {saved} SET card = $3, due = $4 WHERE user_id = $1 AND date = $2 RETURNING date', [userId, date, card, due])).length > 0;
  }

  async registerQuiz(post: QuizRecord): Promise<void> {
    await this.run(
      `INSERT INTO {posts} (channel_id, day, guild_id, message_id, entry_date, correct, closes_at, language, choices)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (channel_id, day) DO UPDATE SET message_id = excluded.message_id, entry_date = excluded.entry_date,
         correct = excluded.correct, closes_at = excluded.closes_at, language = excluded.language, choices = excluded.choices`,
      [post.channelId, post.day, post.guildId, post.messageId, post.entryDate, post.correct, post.closesAt, post.language, post.choices ? JSON.stringify(post.choices) : null],
    );
  }

  async getQuiz(channelId: string, day: IsoDate): Promise<QuizPost | null> {
    const rows = await this.run('SELECT * FROM {posts} WHERE channel_id = $1 AND day = $2', [channelId, day]);
    return rows[0] ? quizPost(rows[0]) : null;
  }

  /** Answers to one quiz arriving together are written together (group-commit.ts), each told its own outcome. */
  answerQuiz(answer: QuizAnswer, messageId?: string): Promise<AnswerOutcome> {
    return this.answers.submit(`${answer.channelId}\n${answer.day}`, messageId === undefined ? { answer } : { answer, messageId });
  }

  private readStreak(guildId: string, userId: string, query: SqlQuery): Promise<Streak | null> {
    return this.run('SELECT * FROM {streaks} WHERE guild_id = $1 AND user_id = $2', [guildId, userId], query).then((rows) => (rows[0] ? streak(rows[0]) : null));
  }

  async dueToClose(now: number, limit: number): Promise<QuizPost[]> {
    const rows = await this.run(`SELECT * FROM {posts} WHERE (closed = ${OPEN} AND closes_at <= $1) OR closed = ${CLOSED_UNREVEALED} ORDER BY closes_at LIMIT $2`, [now, limit]);
    return rows.map(quizPost);
  }

  closeQuiz(channelId: string, day: IsoDate): Promise<boolean> {
    return this.db.transaction(async (query) => {
      const closed = await this.run(
        `UPDATE {posts} SET closed = ${CLOSED_UNREVEALED} WHERE channel_id = $1 AND day = $2 AND closed = ${OPEN} RETURNING guild_id`,
        [channelId, day],
        query,
      );
      const row = closed[0];
      if (!row) return false;
      await this.board.lock([text(row, 'guild_id')], query);
      await this.board.lapse(text(row, 'guild_id'), day, query);
      return true;
    });
  }

  async markRevealed(channelId: string, day: IsoDate): Promise<void> {
    await this.run(`UPDATE {posts} SET closed = ${CLOSED_REVEALED} WHERE channel_id = $1 AND day = $2 AND closed = ${CLOSED_UNREVEALED}`, [channelId, day]);
  }

  pruneQuizzes(day: IsoDate): Promise<number> {
    return this.db.transaction(async (query) => {
      const answers = await this.run('DELETE FROM {answers} WHERE day < $1 RETURNING day', [day], query);
      const posts = await this.run(`DELETE FROM {posts} WHERE day < $1 AND closed <> ${OPEN} RETURNING day`, [day], query);
      return answers.length + posts.length;
    });
  }

  async streak(guildId: string, userId: string): Promise<Streak | null> {
    return this.readStreak(guildId, userId, this.db.query);
  }

  async leaderboard(guildId: string, offset: number, limit: number): Promise<LeaderboardPage> {
    const { rows, members } = await this.board.page(guildId, offset, limit);
    return { rows: rows.map((row) => ({ ...streak(row), rank: integer(row, 'rank') })), members };
  }

  rankOf(guildId: string, userId: string): Promise<number | null> {
    return this.board.rank(guildId, userId);
  }

  async exportMember(userId: string): Promise<MemberLearningData> {
    const [saved, answers, streaks] = await Promise.all([
      this.run('SELECT * FROM {saved} WHERE user_id = $1 ORDER BY saved_at DESC', [userId]),
      this.run('SELECT * FROM {answers} WHERE user_id = $1 ORDER BY answered_at', [userId]),
      this.run('SELECT * FROM {streaks} WHERE user_id = $1 ORDER BY guild_id', [userId]),
    ]);
    return { savedWords: saved.map(savedWord), answers: answers.map(quizAnswer), streaks: streaks.map(streak) };
  }

  forgetMember(userId: string): Promise<number> {
    return this.db.transaction(async (query) => {
      let erased = 0;
      for (const table of ['saved', 'answers'] as const) {
        erased += (await this.run(`DELETE FROM {${table}} WHERE user_id = $1 RETURNING user_id`, [userId], query)).length;
      }
      return erased + (await this.board.forgetMember(userId, query));
    });
  }

  forgetServer(guildId: string): Promise<number> {
    return this.db.transaction(async (query) => {
      let erased = 0;
      for (const table of ['posts', 'answers'] as const) {
        erased += (await this.run(`DELETE FROM {${table}} WHERE guild_id = $1 RETURNING guild_id`, [guildId], query)).length;
      }
      // After the posts: an answer holds its post, then the server's lock; this takes them in the same order.
      return erased + (await this.board.forgetServer(guildId, query));
    });
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
