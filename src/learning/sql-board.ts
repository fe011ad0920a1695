import type { IsoDate } from '../wotd/dates.ts';
import type { Streak } from './learning-store.ts';
import { integer, type SqlDriver, type SqlQuery, type SqlRow, type SqlValue } from './sql-driver.ts';

/**
 * The leaderboard's counts on SQLite and PostgreSQL, kept beside the streaks table so a rank and a page are found
 * without counting the server: members per (server, current streak) and per (server, current streak, total). A
 * member's rank (tied members share it) is one plus the members of higher streaks (one count row per streak value)
 * and those of the same streak and a higher total (one row per total). A page's first row is found the same way,
 * then within its tie by id in the board index (skipping the tie's members before it), and the page read from there.
 *
 * Every write that changes a streak row changes the counts in the same transaction: an answer, a quiz closing (the
 * streaks it ends, grouped), forget. On PostgreSQL those transactions take the server's advisory lock first, so two
 * of them never wait on each other's count rows in turn. An answer writes its streaks and their counts in one
 * statement (writeMoves): on SQLite through the moves view, whose trigger writes each row and moves its counts.
 */

export interface BoardTables {
  streaks: string;
  /** Members per (guild_id, current). */
  levels: string;
  /** Members per (guild_id, current, total). */
  ties: string;
}

export const BOARD_TABLE_NAMES = { levels: 'wotd_learning_board_levels', ties: 'wotd_learning_board_ties' };

/** SQLite: a row inserted here is a streak written (upserted) and its counts moved from (from_current, from_total). */
const MOVES_VIEW = 'wotd_learning_streak_moves';
const STREAK_COLUMNS = ['guild_id', 'user_id', 'run', 'current', 'best', 'total', 'last_day'];
const STREAK_UPDATE = STREAK_COLUMNS.slice(2).map((column) => `${column} = excluded.${column}`).join(', ');

export interface BoardPlace {
  current: number;
  total: number;
}

export interface CountedRows {
  rows: SqlRow[];
  members: number;
}

const ORDER = 'ORDER BY current DESC, total DESC, user_id';

/** A leaderboard row's rank (BoardRow's), for the streaks row `s`, from the counts alone. */
function rankOf(s: string, t: BoardTables): string {
  return `(SELECT COALESCE(SUM(members), 0) FROM ${t.levels} l WHERE l.guild_id = ${s}.guild_id AND l.current > ${s}.current)
        + (SELECT COALESCE(SUM(members), 0) FROM ${t.ties} t WHERE t.guild_id = ${s}.guild_id AND t.current = ${s}.current AND t.total > ${s}.total) + 1`;
}

export class SqlBoard {
  constructor(
    private readonly db: SqlDriver,
    private readonly t: BoardTables,
  ) {}

  /** The counts' tables, and on SQLite the moves view (made on every opening: a store written before gets it too). */
  schema(): string[] {
    const tables = [
      `CREATE TABLE IF NOT EXISTS ${this.t.levels} (guild_id TEXT NOT NULL, current INTEGER NOT NULL, members INTEGER NOT NULL,
         PRIMARY KEY (guild_id, current))`,
      `CREATE TABLE IF NOT EXISTS ${this.t.ties} (guild_id TEXT NOT NULL, current INTEGER NOT NULL, total INTEGER NOT NULL,
         members INTEGER NOT NULL, PRIMARY KEY (guild_id, current, total))`,
    ];
    if (this.db.dialect === 'postgres') return tables;
    const count = (table: string, key: string, at: string, delta: string, when = '') =>
      `INSERT INTO ${table} (guild_id, ${key}, members) SELECT NEW.guild_id, ${at}, ${delta} WHERE ${when || 'true'}
         ON CONFLICT (guild_id, ${key}) DO UPDATE SET members = members + excluded.members;`;
    const moved = 'NEW.from_current IS NOT NULL';
    return [
      ...tables,
      `CREATE VIEW IF NOT EXISTS ${MOVES_VIEW} AS SELECT ${STREAK_COLUMNS.join(', ')}, current AS from_current, total AS from_total FROM ${this.t.streaks} WHERE 0`,
      `CREATE TRIGGER IF NOT EXISTS ${MOVES_VIEW}_write INSTEAD OF INSERT ON ${MOVES_VIEW} BEGIN
         INSERT INTO ${this.t.streaks} (${STREAK_COLUMNS.join(', ')}) VALUES (${STREAK_COLUMNS.map((column) => `NEW.${column}`).join(', ')})
           ON CONFLICT (guild_id, user_id) DO UPDATE SET ${STREAK_UPDATE};
         ${count(this.t.levels, 'current', 'NEW.from_current', '-1', moved)}
         ${count(this.t.ties, 'current, total', 'NEW.from_current, NEW.from_total', '-1', moved)}
         ${count(this.t.levels, 'current', 'NEW.current', '1')}
         ${count(this.t.ties, 'current, total', 'NEW.current, NEW.total', '1')}
       END`,
    ];
  }

  /**
   * A store written before the counts existed has streaks and no counts: they are counted once, here. Every write
   * since keeps them, so streaks without a single count row can only be such a store.
   */
  upgrade(): Promise<void> {
    return this.db.transaction(async (query) => {
      if (this.db.dialect === 'postgres') await query("SELECT pg_advisory_xact_lock(hashtextextended('wotd-board-upgrade', 0))");
      const [state] = await query(
        `SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM ${this.t.levels} LIMIT 1) AS l) AS counted,
                (SELECT COUNT(*) FROM (SELECT 1 FROM ${this.t.streaks} LIMIT 1) AS s) AS streaks`,
      );
      if (!state || integer(state, 'counted') > 0 || integer(state, 'streaks') === 0) return;
      await this.countStreaks('', [], query);
    });
  }

  /** PostgreSQL: the servers' board locks, in one order (none on SQLite, where a transaction runs alone). */
  async lock(guildIds: readonly string[], query: SqlQuery): Promise<void> {
    if (this.db.dialect !== 'postgres') return;
    for (const guildId of [...new Set(guildIds)].sort()) {
      await query("SELECT pg_advisory_xact_lock(hashtextextended('wotd-board:' || $1, 0))", [guildId]);
    }
  }

  /** A member's streak went from `from` to `to` (null: no record), inside the caller's transaction. */
  move(guildId: string, from: BoardPlace | null, to: BoardPlace | null, query: SqlQuery): Promise<void> {
    return this.moveMany(guildId, [[from, to]], query);
  }

  /**
   * Writes members' streaks (each pair's second, moved from its first; null: no record) and moves their counts,
   * inside the caller's transaction, in one statement: on SQLite through the moves view, on PostgreSQL the three
   * writes as one statement's parts.
   */
  async writeMoves(guildId: string, moves: ReadonlyArray<readonly [Streak | null, Streak]>, query: SqlQuery): Promise<void> {
    if (moves.length === 0) return;
    const values: SqlValue[] = [];
    const row = (cells: SqlValue[]) => `(${cells.map((cell) => `$${values.push(cell)}`).join(', ')})`;
    const cells = (next: Streak): SqlValue[] => [next.guildId, next.userId, next.run, next.current, next.best, next.total, next.lastDay];
    if (this.db.dialect === 'sqlite') {
      const rows = moves.map(([from, next]) => row([...cells(next), from?.current ?? null, from?.total ?? null]));
      await query(`INSERT INTO ${MOVES_VIEW} (${STREAK_COLUMNS.join(', ')}, from_current, from_total) VALUES ${rows.join(', ')}`, values);
      return;
    }
    const written = `INSERT INTO ${this.t.streaks} (${STREAK_COLUMNS.join(', ')}) VALUES ${moves.map(([, next]) => row(cells(next))).join(', ')}
       ON CONFLICT (guild_id, user_id) DO UPDATE SET ${STREAK_UPDATE}`;
    const { levels, ties } = deltas(moves);
    const counted = [adding(this.t.levels, ['current'], guildId, levels, values), adding(this.t.ties, ['current', 'total'], guildId, ties, values)];
    const parts = [written, ...counted.filter((part): part is string => part !== null)];
    const main = parts.pop() ?? written;
    await query(`${parts.length > 0 ? `WITH ${parts.map((part, i) => `w${i} AS (${part})`).join(', ')} ` : ''}${main}`, values);
  }

  /** Members' streaks went from each pair's first to its second, counted together (one statement per table). */
  async moveMany(guildId: string, moves: ReadonlyArray<readonly [BoardPlace | null, BoardPlace | null]>, query: SqlQuery): Promise<void> {
    const { levels, ties } = deltas(moves);
    for (const [table, key, rows] of [[this.t.levels, ['current'], levels], [this.t.ties, ['current', 'total'], ties]] as const) {
      const values: SqlValue[] = [];
      const statement = adding(table, key, guildId, rows, values);
      if (statement) await query(statement, values);
    }
  }

  /**
   * A quiz of `day` closed: the current streaks of members whose last right day is earlier end. Their counts move
   * to streak 0, grouped (one statement per table), before the streaks change; emptied counts go.
   */
  async lapse(guildId: string, day: IsoDate, query: SqlQuery): Promise<void> {
    const ending = `FROM ${this.t.streaks} WHERE guild_id = $1 AND last_day < $2 AND current > 0`;
    await query(
      `INSERT INTO ${this.t.levels} AS b (guild_id, current, members)
         SELECT $1, current, SUM(n) FROM (SELECT current, -COUNT(*) AS n ${ending} GROUP BY current
                                          UNION ALL SELECT 0 AS current, COUNT(*) AS n ${ending}) AS d
         WHERE n <> 0 GROUP BY current ORDER BY current
       ON CONFLICT (guild_id, current) DO UPDATE SET members = b.members + excluded.members`,
      [guildId, day],
    );
    await query(
      `INSERT INTO ${this.t.ties} AS b (guild_id, current, total, members)
         SELECT $1, current, total, SUM(n) FROM (SELECT current, total, -COUNT(*) AS n ${ending} GROUP BY current, total
                                                 UNION ALL SELECT 0 AS current, total, COUNT(*) AS n ${ending} GROUP BY total) AS d
         WHERE true GROUP BY current, total ORDER BY current, total
       ON CONFLICT (guild_id, current, total) DO UPDATE SET members = b.members + excluded.members`,
      [guildId, day],
    );
    await query(`UPDATE ${this.t.streaks} SET current = 0 WHERE guild_id = $1 AND last_day < $2 AND current > 0`, [guildId, day]);
    await query(`DELETE FROM ${this.t.levels} WHERE guild_id = $1 AND members = 0`, [guildId]);
    await query(`DELETE FROM ${this.t.ties} WHERE guild_id = $1 AND members = 0`, [guildId]);
  }

  /** Erases a member's streaks and their counts; returns how many streaks went. */
  async forgetMember(userId: string, query: SqlQuery): Promise<number> {
    const guilds = await query(`SELECT guild_id FROM ${this.t.streaks} WHERE user_id = $1`, [userId]);
    await this.lock(guilds.map((row) => String(row.guild_id)), query);
    // What the DELETE erased is what is uncounted, even a streak another server's answer wrote meanwhile.
    const erased = await query(`DELETE FROM ${this.t.streaks} WHERE user_id = $1 RETURNING guild_id, current, total`, [userId]);
    for (const row of erased) await this.move(String(row.guild_id), { current: integer(row, 'current'), total: integer(row, 'total') }, null, query);
    return erased.length;
  }

  /** Erases a server's streaks and counts; returns how many streaks went. */
  async forgetServer(guildId: string, query: SqlQuery): Promise<number> {
    await this.lock([guildId], query);
    const erased = await query(`DELETE FROM ${this.t.streaks} WHERE guild_id = $1 RETURNING guild_id`, [guildId]);
    await query(`DELETE FROM ${this.t.levels} WHERE guild_id = $1`, [guildId]);
    await query(`DELETE FROM ${this.t.ties} WHERE guild_id = $1`, [guildId]);
    return erased.length;
  }

  /**
   * Counts the servers' streaks anew, whatever their counts were (streaks written as they are, by migrate-store),
   * inside the caller's transaction, after the servers' locks.
   */
  async recount(guildIds: readonly string[], query: SqlQuery): Promise<void> {
    const guilds = [...new Set(guildIds)].sort();
    if (guilds.length === 0) return;
    await this.lock(guilds, query);
    const these = `guild_id IN (${guilds.map((_, i) => `$${i + 1}`).join(', ')})`;
    await query(`DELETE FROM ${this.t.levels} WHERE ${these}`, guilds);
    await query(`DELETE FROM ${this.t.ties} WHERE ${these}`, guilds);
    await this.countStreaks(`WHERE ${these}`, guilds, query);
  }

  /** Counts the streaks `where` picks (every streak without it) into the board's empty rows for their servers. */
  private async countStreaks(where: string, parameters: readonly string[], query: SqlQuery): Promise<void> {
    await query(`INSERT INTO ${this.t.levels} (guild_id, current, members) SELECT guild_id, current, COUNT(*) FROM ${this.t.streaks} ${where} GROUP BY guild_id, current`, parameters);
    await query(
      `INSERT INTO ${this.t.ties} (guild_id, current, total, members)
       SELECT guild_id, current, total, COUNT(*) FROM ${this.t.streaks} ${where} GROUP BY guild_id, current, total`,
      parameters,
    );
  }

  /** The member's rank, null without a streak record: the counts of the streaks and totals above. */
  async rank(guildId: string, userId: string): Promise<number | null> {
    const [row] = await this.db.query(`SELECT ${rankOf('s', this.t)} AS rank FROM ${this.t.streaks} s WHERE s.guild_id = $1 AND s.user_id = $2`, [guildId, userId]);
    return row ? integer(row, 'rank') : null;
  }

  /** Rows [offset, offset + limit) of the board and the server's member count, from one consistent reading. */
  async page(guildId: string, offset: number, limit: number): Promise<CountedRows> {
    const members = `(SELECT COALESCE(SUM(members), 0) FROM ${this.t.levels} WHERE guild_id = $1)`;
    const ranked = `${rankOf('s', this.t)} AS rank`;
    if (offset === 0) {
      // The first page, the usual one: the index's first rows and the count in one statement.
      const rows = await this.db.query(`SELECT s.*, ${members} AS members, ${ranked} FROM ${this.t.streaks} s WHERE guild_id = $1 ${ORDER} LIMIT $2`, [guildId, limit]);
      return { rows, members: rows[0] ? integer(rows[0], 'members') : 0 };
    }
    return this.db.transaction(async (query) => {
      if (this.db.dialect === 'postgres') await query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      const levels = await query(`SELECT current, members FROM ${this.t.levels} WHERE guild_id = $1 AND members > 0 ORDER BY current DESC`, [guildId]);
      const count = levels.reduce((sum, row) => sum + integer(row, 'members'), 0);
      const level = within(levels, offset);
      if (!level) return { rows: [], members: count };
      const current = integer(level.row, 'current');
      const ties = await query(`SELECT total, members FROM ${this.t.ties} WHERE guild_id = $1 AND current = $2 AND members > 0 ORDER BY total DESC`, [guildId, current]);
      const tie = within(ties, level.offset);
      if (!tie) throw new Error(`learning store: the board's counts of streak ${current} do not add up`);
      const total = integer(tie.row, 'total');
      // The first row's id is found in the index alone (the skipped rows are not read from the table).
      const tied = `FROM ${this.t.streaks} s WHERE guild_id = $1 AND current = $2 AND total = $3`;
      const rows = await query(`SELECT s.*, ${ranked} ${tied} AND user_id >= (SELECT user_id ${tied} ORDER BY user_id LIMIT 1 OFFSET $5) ORDER BY user_id LIMIT $4`, [
        guildId,
        current,
        total,
        limit,
        tie.offset,
      ]);
      if (rows.length < limit) {
        rows.push(...(await query(`SELECT s.*, ${ranked} FROM ${this.t.streaks} s WHERE guild_id = $1 AND current = $2 AND total < $3 ${ORDER} LIMIT $4`, [guildId, current, total, limit - rows.length])));
      }
      if (rows.length < limit) {
        rows.push(...(await query(`SELECT s.*, ${ranked} FROM ${this.t.streaks} s WHERE guild_id = $1 AND current < $2 ${ORDER} LIMIT $3`, [guildId, current, limit - rows.length])));
      }
      return { rows, members: count };
    });
  }
}

/** The count row that holds position `offset` (0-based) and the position within it. */
function within(counts: SqlRow[], offset: number): { row: SqlRow; offset: number } | null {
  let before = 0;
  for (const row of counts) {
    const members = integer(row, 'members');
    if (offset < before + members) return { row, offset: offset - before };
    before += members;
  }
  return null;
}

/** The count changes of moves, per streak (`levels`: [current, delta]) and per streak and total (`ties`), zeros left out. */
function deltas(moves: ReadonlyArray<readonly [BoardPlace | null, BoardPlace | null]>): { levels: number[][]; ties: number[][] } {
  const levels = new Map<number, number>();
  const ties = new Map<string, number>();
  for (const [from, to] of moves) {
    for (const [place, delta] of [[from, -1], [to, 1]] as const) {
      if (!place) continue;
      levels.set(place.current, (levels.get(place.current) ?? 0) + delta);
      const key = `${place.current}:${place.total}`;
      ties.set(key, (ties.get(key) ?? 0) + delta);
    }
  }
  return {
    levels: [...levels].filter(([, delta]) => delta !== 0).map(([current, delta]) => [current, delta]),
    ties: [...ties].filter(([, delta]) => delta !== 0).map(([key, delta]) => [...key.split(':').map(Number), delta]),
  };
}

/** The statement adding each row's last number to the count at the row's key, in key order (its parameters appended to `values`); null for no rows. */
function adding(table: string, key: readonly string[], guildId: string, rows: number[][], values: SqlValue[]): string | null {
  if (rows.length === 0) return null;
  rows.sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0) || (a[1] ?? 0) - (b[1] ?? 0));
  const guild = `$${values.push(guildId)}`;
  const counted = rows.map((row) => `(${guild}, ${row.map((value) => `$${values.push(value)}`).join(', ')})`);
  return `INSERT INTO ${table} AS b (guild_id, ${key.join(', ')}, members) VALUES ${counted.join(', ')}
     ON CONFLICT (guild_id, ${key.join(', ')}) DO UPDATE SET members = b.members + excluded.members`;
}
