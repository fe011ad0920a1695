import type { QuizAnswer, QuizPost, Streak } from './learning-store.ts';
import {
  LEARNING_PAGE_SIZE,
  type LearningRecordKind,
  type LearningRecordOf,
  type LearningRecordSource,
  type LearningRecordTarget,
  type MemberSavedWord,
} from './learning-records.ts';
import { BOARD_TABLE_NAMES, SqlBoard } from './sql-board.ts';
import { text, type SqlDriver, type SqlQuery, type SqlRow, type SqlValue } from './sql-driver.ts';
import { CLOSED_REVEALED, CLOSED_UNREVEALED, OPEN, quizAnswer, quizPost, savedWord, streak, TABLES } from './sql-learning-rows.ts';

/** The SQL learning store's records, read by key ranges and written as they are (learning-records.ts). */

interface Layout<R> {
  table: keyof typeof TABLES;
  /** The primary key's columns, in its order: pages are key ranges. */
  key: readonly string[];
  columns: readonly string[];
  read(row: SqlRow): R;
  values(record: R): SqlValue[];
}

const saved: Layout<MemberSavedWord> = {
  table: 'saved',
  key: ['user_id', 'date'],
  columns: ['user_id', 'date', 'word', 'pos', 'saved_at', 'due', 'card'],
  read: (row) => ({ userId: text(row, 'user_id'), ...savedWord(row) }),
  values: (w) => [w.userId, w.date, w.word, w.pos, w.savedAt, w.due, w.card],
};

const posts: Layout<QuizPost> = {
  table: 'posts',
  key: ['channel_id', 'day'],
  columns: ['channel_id', 'day', 'guild_id', 'message_id', 'entry_date', 'correct', 'closes_at', 'closed', 'answered', 'right_answers', 'language', 'choices'],
  read: quizPost,
  values: (p) => [
    p.channelId,
    p.day,
    p.guildId,
    p.messageId,
    p.entryDate,
    p.correct,
    p.closesAt,
    p.revealed ? CLOSED_REVEALED : p.closed ? CLOSED_UNREVEALED : OPEN,
    p.answered,
    p.right,
    p.language,
    p.choices ? JSON.stringify(p.choices) : null,
  ],
};

const answers: Layout<QuizAnswer> = {
  table: 'answers',
  key: ['channel_id', 'day', 'user_id'],
  columns: ['channel_id', 'day', 'user_id', 'guild_id', 'choice', 'correct', 'answered_at'],
  read: quizAnswer,
  values: (a) => [a.channelId, a.day, a.userId, a.guildId, a.choice, a.correct ? 1 : 0, a.answeredAt],
};

const streaks: Layout<Streak> = {
  table: 'streaks',
  key: ['guild_id', 'user_id'],
  columns: ['guild_id', 'user_id', 'run', 'current', 'best', 'total', 'last_day'],
  read: streak,
  values: (s) => [s.guildId, s.userId, s.run, s.current, s.best, s.total, s.lastDay],
};

const LAYOUTS: { [K in LearningRecordKind]: Layout<LearningRecordOf[K]> } = { saved_words: saved, quiz_posts: posts, quiz_answers: answers, streaks };

/** Rows per INSERT: 12 columns × 40 stays far below SQLite's parameter limit. */
const ROWS_PER_STATEMENT = 40;

export class SqlLearningRecords implements LearningRecordSource, LearningRecordTarget {
  private readonly board: SqlBoard;
  /**
   * The server of the last streak written, not counted yet: its streaks may go on in the next page (sources read
   * them by server), and counting a server once per page would read a large one once per page.
   */
  private uncounted: string | null = null;

  /** `close` lets go of what was opened for the records (the driver, or the store that holds it). */
  constructor(
    private readonly db: SqlDriver,
    private readonly release: () => Promise<void>,
  ) {
    this.board = new SqlBoard(db, { streaks: db.table(TABLES.streaks), levels: db.table(BOARD_TABLE_NAMES.levels), ties: db.table(BOARD_TABLE_NAMES.ties) });
  }

  /** Whether the store has the table: a store the learning features never opened has none, and nothing to copy. */
  private async has(table: string): Promise<boolean> {
    const rows =
      this.db.dialect === 'postgres'
        ? await this.db.query('SELECT to_regclass($1) IS NOT NULL AS present', [this.db.table(table)])
        : await this.db.query("SELECT COUNT(*) AS present FROM sqlite_master WHERE type = 'table' AND name = $1", [table]);
    return rows[0]?.present === true || Number(rows[0]?.present) === 1;
  }

  async *pages<K extends LearningRecordKind>(kind: K): AsyncGenerator<Array<LearningRecordOf[K]>> {
    const layout: Layout<LearningRecordOf[K]> = LAYOUTS[kind];
    if (!(await this.has(TABLES[layout.table]))) return;
    const table = this.db.table(TABLES[layout.table]);
    const key = layout.key.join(', ');
    let after: SqlValue[] | null = null;
    for (;;) {
      const parameters: SqlValue[] = after ? [...after, LEARNING_PAGE_SIZE] : [LEARNING_PAGE_SIZE];
      const range = after ? `WHERE (${key}) > (${after.map((_, i) => `$${i + 1}`).join(', ')})` : '';
      const rows = await this.db.query(`SELECT * FROM ${table} ${range} ORDER BY ${key} LIMIT $${parameters.length}`, parameters);
      const last = rows.at(-1);
      if (!last) return;
      yield rows.map((row) => {
        try {
          return layout.read(row);
        } catch (error) {
          const id = layout.key.map((column) => String(row[column])).join(' ');
          throw new Error(`${TABLES[layout.table]} row ${id}: ${error instanceof Error ? error.message : String(error)}`);
        }
      });
      after = layout.key.map((column) => text(last, column));
    }
  }

  async write<K extends LearningRecordKind>(kind: K, records: ReadonlyArray<LearningRecordOf[K]>): Promise<void> {
    if (records.length === 0) return;
    const layout: Layout<LearningRecordOf[K]> = LAYOUTS[kind];
    // Counted now: the servers of these streaks but the last one's, and the one left uncounted before.
    const guilds = new Set(kind === 'streaks' ? (records as readonly Streak[]).map((record) => record.guildId) : []);
    const last = kind === 'streaks' ? (records.at(-1) as Streak).guildId : this.uncounted;
    if (this.uncounted !== null) guilds.add(this.uncounted);
    if (last !== null) guilds.delete(last);
    await this.db.transaction(async (query) => {
      for (let start = 0; start < records.length; start += ROWS_PER_STATEMENT) {
        await this.upsert(layout, records.slice(start, start + ROWS_PER_STATEMENT), query);
      }
      // The board's counts follow from the servers' streaks: counted anew, whatever counted them before.
      await this.board.recount([...guilds], query);
    });
    this.uncounted = last;
  }

  async finish(): Promise<void> {
    const guild = this.uncounted;
    if (guild === null) return;
    await this.db.transaction((query) => this.board.recount([guild], query));
    this.uncounted = null;
  }

  /** The records' rows, each replacing the row of its key. */
  private async upsert<R>(layout: Layout<R>, records: readonly R[], query: SqlQuery): Promise<void> {
    const parameters: SqlValue[] = [];
    const rows = records.map((record) => `(${layout.values(record).map((value) => `$${parameters.push(value)}`).join(', ')})`);
    const others = layout.columns.filter((column) => !layout.key.includes(column));
    await query(
      `INSERT INTO ${this.db.table(TABLES[layout.table])} (${layout.columns.join(', ')}) VALUES ${rows.join(', ')}
       ON CONFLICT (${layout.key.join(', ')}) DO UPDATE SET ${others.map((column) => `${column} = excluded.${column}`).join(', ')}`,
      parameters,
    );
  }

  close(): Promise<void> {
    return this.release();
  }
}
