import type KeyvSqlite from '@keyv/sqlite';
import { BEFORE_ANY_DUE, emptyCounts, isIndexedState, keysetPages, type DeliveryWrite, type DueEntry, type DueIndex, type DueMove, type IndexedState } from './due-index.ts';
import { setTogether, type Statement } from './sqlite-queue.ts';

/**
 * The due-time index of a SQLite store: the table `wotd_due` beside Keyv's in the same file, with an index on the
 * instant, so "due at or before T" is a range read of that index. Triggers keep `wotd_due_counts` (entries per
 * state) in the same transaction as every change. Statements go through the file's queue (sqlite-queue.ts), and a
 * delivery record and its move are one transaction of that queue's next write.
 */

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS wotd_due (channel_id TEXT PRIMARY KEY, due_at INTEGER, state TEXT NOT NULL)',
  'CREATE INDEX IF NOT EXISTS wotd_due_at ON wotd_due (due_at, channel_id) WHERE due_at IS NOT NULL',
  'CREATE TABLE IF NOT EXISTS wotd_due_counts (state TEXT PRIMARY KEY, n INTEGER NOT NULL)',
  "INSERT OR IGNORE INTO wotd_due_counts (state, n) VALUES ('active', 0), ('failing', 0), ('disabled', 0)",
  'CREATE TABLE IF NOT EXISTS wotd_due_meta (name TEXT PRIMARY KEY, value TEXT)',
  `CREATE TRIGGER IF NOT EXISTS wotd_due_counted_in AFTER INSERT ON wotd_due BEGIN
     UPDATE wotd_due_counts SET n = n + 1 WHERE state = NEW.state; END`,
  `CREATE TRIGGER IF NOT EXISTS wotd_due_counted_out AFTER DELETE ON wotd_due BEGIN
     UPDATE wotd_due_counts SET n = n - 1 WHERE state = OLD.state; END`,
  `CREATE TRIGGER IF NOT EXISTS wotd_due_counted_change AFTER UPDATE OF state ON wotd_due WHEN OLD.state <> NEW.state BEGIN
     UPDATE wotd_due_counts SET n = n - 1 WHERE state = OLD.state;
     UPDATE wotd_due_counts SET n = n + 1 WHERE state = NEW.state; END`,
];

/** Rows per statement: three parameters each, well within SQLite's limit. */
const ROWS_PER_STATEMENT = 300;

type Row = Record<string, unknown>;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let start = 0; start < items.length; start += ROWS_PER_STATEMENT) out.push(items.slice(start, start + ROWS_PER_STATEMENT));
  return out;
}

function entryOf(row: Row): DueEntry | null {
  const state = row.state;
  if (!isIndexedState(state)) return null;
  return { channelId: String(row.channel_id), dueAt: row.due_at === null ? null : Number(row.due_at), state };
}

/** The statement of one compare-and-set move. */
export function sqliteMove({ channelId, from, to }: DueMove): Statement {
  return to === null
    ? { sql: 'DELETE FROM wotd_due WHERE channel_id = ? AND due_at = ?', parameters: [channelId, from] }
    : { sql: 'UPDATE wotd_due SET due_at = ? WHERE channel_id = ? AND due_at = ?', parameters: [to, channelId, from] };
}

export class SqliteDueIndex implements DueIndex {
  /** `adapter`: a queued adapter on the store's file (the deliveries namespace's: records and moves share commits). */
  private constructor(private readonly adapter: KeyvSqlite) {}

  /** `create` false: the tables are not created (a store opened only to be read). */
  static async open(adapter: KeyvSqlite, create = true): Promise<SqliteDueIndex> {
    for (const sql of create ? SCHEMA : []) await adapter.query(sql);
    return new SqliteDueIndex(adapter);
  }

  private async rows(sql: string, ...parameters: unknown[]): Promise<Row[]> {
    return (await this.adapter.query(sql, ...parameters)) as Row[];
  }

  due(at: number, pageSize: number): AsyncGenerator<Array<{ channelId: string; dueAt: number }>> {
    return keysetPages(
      pageSize,
      BEFORE_ANY_DUE,
      async (after) => {
        const rows = await this.rows(
          'SELECT channel_id, due_at FROM wotd_due WHERE due_at <= ? AND (due_at, channel_id) > (?, ?) ORDER BY due_at, channel_id LIMIT ?',
          at,
          after.dueAt,
          after.channelId,
          pageSize,
        );
        return rows.map((row) => ({ channelId: String(row.channel_id), dueAt: Number(row.due_at) }));
      },
      (last) => last,
    );
  }

  async get(channelIds: readonly string[]): Promise<Map<string, DueEntry>> {
    const found = new Map<string, DueEntry>();
    for (const chunk of chunks(channelIds)) {
      const rows = await this.rows(`SELECT channel_id, due_at, state FROM wotd_due WHERE channel_id IN (${chunk.map(() => '?').join(', ')})`, ...chunk);
      for (const row of rows) {
        const entry = entryOf(row);
        if (entry) found.set(entry.channelId, entry);
      }
    }
    return found;
  }

  put(entries: readonly DueEntry[]): Promise<void> {
    return this.insert(entries, 'DO UPDATE SET due_at = excluded.due_at, state = excluded.state');
  }

  putMissing(entries: readonly DueEntry[]): Promise<void> {
    return this.insert(entries, 'DO NOTHING');
  }

  private async insert(entries: readonly DueEntry[], onConflict: string): Promise<void> {
    for (const chunk of chunks(entries)) {
      await this.adapter.query(
        `INSERT INTO wotd_due (channel_id, due_at, state) VALUES ${chunk.map(() => '(?, ?, ?)').join(', ')} ON CONFLICT(channel_id) ${onConflict}`,
        ...chunk.flatMap((entry) => [entry.channelId, entry.dueAt, entry.state]),
      );
    }
  }

  /** One statement (one commit) per chunk of moves, however many. */
  async move(moves: readonly DueMove[]): Promise<void> {
    const deletions = moves.filter((move) => move.to === null);
    for (const chunk of chunks(moves.filter((move) => move.to !== null))) {
      // A join on the primary key: each row of the batch finds its entry by channel id.
      await this.adapter.query(
        `UPDATE wotd_due SET due_at = m.column3 FROM (VALUES ${chunk.map(() => '(?, ?, ?)').join(', ')}) AS m
         WHERE wotd_due.channel_id = m.column1 AND wotd_due.due_at = m.column2`,
        ...chunk.flatMap((move) => [move.channelId, move.from, move.to]),
      );
    }
    for (const chunk of chunks(deletions)) {
      await this.adapter.query(
        `DELETE FROM wotd_due WHERE (channel_id, due_at) IN (VALUES ${chunk.map(() => '(?, ?)').join(', ')})`,
        ...chunk.flatMap((move) => [move.channelId, move.from]),
      );
    }
  }

  async remove(channelIds: readonly string[]): Promise<void> {
    for (const chunk of chunks(channelIds)) {
      await this.adapter.query(`DELETE FROM wotd_due WHERE channel_id IN (${chunk.map(() => '?').join(', ')})`, ...chunk);
    }
  }

  async *entries(pageSize: number): AsyncGenerator<DueEntry[]> {
    const pages = keysetPages(pageSize, '', (after: string) => this.rows('SELECT channel_id, due_at, state FROM wotd_due WHERE channel_id > ? ORDER BY channel_id LIMIT ?', after, pageSize), (last) => String(last.channel_id));
    for await (const rows of pages) yield rows.flatMap((row) => entryOf(row) ?? []);
  }

  async counts(): Promise<Record<IndexedState, number>> {
    const counts = emptyCounts();
    for (const row of await this.rows('SELECT state, n FROM wotd_due_counts')) {
      if (isIndexedState(row.state)) counts[row.state] = Number(row.n);
    }
    return counts;
  }

  writeWithDelivery(record: DeliveryWrite, move: DueMove): Promise<void> {
    return setTogether(this.adapter, record.storedKey, record.serialized, sqliteMove(move));
  }

  async builtFor(): Promise<string | null> {
    const [row] = await this.rows("SELECT value FROM wotd_due_meta WHERE name = 'built'");
    return typeof row?.value === 'string' ? row.value : null;
  }

  async setBuiltFor(mark: string | null): Promise<void> {
    if (mark === null) await this.adapter.query("DELETE FROM wotd_due_meta WHERE name = 'built'");
    else await this.adapter.query("INSERT INTO wotd_due_meta (name, value) VALUES ('built', ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value", mark);
  }

  /** The adapter is the deliveries namespace's, closed with it. */
  async close(): Promise<void> {}
}
