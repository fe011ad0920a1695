import { openPostgresConnection, type PostgresConnection } from './postgres-connection.ts';
import { BEFORE_ANY_DUE, emptyCounts, isIndexedState, keysetPages, type DeliveryWrite, type DueEntry, type DueIndex, type DueMove, type IndexedState } from './due-index.ts';

/**
 * The due-time index of a PostgreSQL store: the table `wotd_due` beside `keyv` in the store's schema, with a btree
 * on (due_at, channel_id), so "due at or before T" is a range read of it. A trigger keeps `wotd_due_counts`
 * (entries per state) in the transaction of every change. A delivery record and its move are one statement.
 * Batches go in as arrays (unnest), one statement each however many rows.
 */

type Row = Record<string, unknown>;

function entryOf(row: Row): DueEntry | null {
  const state = row.state;
  if (!isIndexedState(state)) return null;
  return { channelId: String(row.channel_id), dueAt: row.due_at === null ? null : Number(row.due_at), state };
}

export class PostgresDueIndex implements DueIndex {
  private readonly due_: string;
  private readonly counts_: string;
  private readonly meta: string;

  private constructor(private readonly connection: PostgresConnection) {
    this.due_ = connection.tableName('wotd_due');
    this.counts_ = connection.tableName('wotd_due_counts');
    this.meta = connection.tableName('wotd_due_meta');
  }

  /** `create` false: the tables are not created (a store opened only to be read). */
  static async open(url: string, setting?: string, create = true): Promise<PostgresDueIndex> {
    const connection = await openPostgresConnection(url, setting);
    try {
      const index = new PostgresDueIndex(connection);
      if (create) await index.createTables();
      return index;
    } catch (error) {
      await connection.release();
      throw error;
    }
  }

  /** In one transaction under an advisory lock, so processes starting together do not trip over each other. */
  private async createTables(): Promise<void> {
    const count = this.connection.tableName('wotd_due_count');
    const client = await this.connection.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query("SELECT pg_advisory_xact_lock(hashtext('wotd_due_tables'))");
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.due_} (channel_id TEXT COLLATE "C" PRIMARY KEY, due_at BIGINT, state TEXT NOT NULL)`);
      await client.query(`CREATE INDEX IF NOT EXISTS wotd_due_at ON ${this.due_} (due_at, channel_id) WHERE due_at IS NOT NULL`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.counts_} (state TEXT PRIMARY KEY, n BIGINT NOT NULL)`);
      await client.query(`INSERT INTO ${this.counts_} (state, n) VALUES ('active', 0), ('failing', 0), ('disabled', 0) ON CONFLICT DO NOTHING`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.meta} (name TEXT PRIMARY KEY, value TEXT)`);
      await client.query(`CREATE OR REPLACE FUNCTION ${count}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF TG_OP IN ('UPDATE', 'DELETE') THEN UPDATE ${this.counts_} SET n = n - 1 WHERE state = OLD.state; END IF;
          IF TG_OP IN ('UPDATE', 'INSERT') THEN UPDATE ${this.counts_} SET n = n + 1 WHERE state = NEW.state; END IF;
          RETURN NULL;
        END $$`);
      await client.query(`CREATE OR REPLACE TRIGGER wotd_due_counted AFTER INSERT OR DELETE ON ${this.due_} FOR EACH ROW EXECUTE FUNCTION ${count}()`);
      await client.query(
        `CREATE OR REPLACE TRIGGER wotd_due_counted_change AFTER UPDATE OF state ON ${this.due_} FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION ${count}()`,
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  private async rows(sql: string, values: unknown[]): Promise<Row[]> {
    return (await this.connection.pool.query<Row>(sql, values)).rows;
  }

  due(at: number, pageSize: number): AsyncGenerator<Array<{ channelId: string; dueAt: number }>> {
    return keysetPages(
      pageSize,
      BEFORE_ANY_DUE,
      async (after) => {
        const rows = await this.rows(
          `SELECT channel_id, due_at FROM ${this.due_} WHERE due_at <= $1 AND (due_at, channel_id) > ($2, $3) ORDER BY due_at, channel_id LIMIT $4`,
          [at, after.dueAt, after.channelId, pageSize],
        );
        return rows.map((row) => ({ channelId: String(row.channel_id), dueAt: Number(row.due_at) }));
      },
      (last) => last,
    );
  }

  async get(channelIds: readonly string[]): Promise<Map<string, DueEntry>> {
    const rows = await this.rows(`SELECT channel_id, due_at, state FROM ${this.due_} WHERE channel_id = ANY($1::text[])`, [channelIds]);
    return new Map(rows.flatMap((row) => entryOf(row) ?? []).map((entry) => [entry.channelId, entry]));
  }

  put(entries: readonly DueEntry[]): Promise<void> {
    return this.insert(entries, 'DO UPDATE SET due_at = excluded.due_at, state = excluded.state');
  }

  putMissing(entries: readonly DueEntry[]): Promise<void> {
    return this.insert(entries, 'DO NOTHING');
  }

  private async insert(entries: readonly DueEntry[], onConflict: string): Promise<void> {
    if (entries.length === 0) return;
    await this.connection.pool.query(
      `INSERT INTO ${this.due_} (channel_id, due_at, state) SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[]) ON CONFLICT (channel_id) ${onConflict}`,
      [entries.map((entry) => entry.channelId), entries.map((entry) => entry.dueAt), entries.map((entry) => entry.state)],
    );
  }

  async move(moves: readonly DueMove[]): Promise<void> {
    const kept = moves.filter((move) => move.to !== null);
    const gone = moves.filter((move) => move.to === null);
    if (kept.length > 0) {
      await this.connection.pool.query(
        `UPDATE ${this.due_} AS d SET due_at = m.t FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS m(c, f, t) WHERE d.channel_id = m.c AND d.due_at = m.f`,
        [kept.map((move) => move.channelId), kept.map((move) => move.from), kept.map((move) => move.to)],
      );
    }
    if (gone.length > 0) {
      await this.connection.pool.query(
        `DELETE FROM ${this.due_} AS d USING unnest($1::text[], $2::bigint[]) AS m(c, f) WHERE d.channel_id = m.c AND d.due_at = m.f`,
        [gone.map((move) => move.channelId), gone.map((move) => move.from)],
      );
    }
  }

  async remove(channelIds: readonly string[]): Promise<void> {
    if (channelIds.length > 0) await this.connection.pool.query(`DELETE FROM ${this.due_} WHERE channel_id = ANY($1::text[])`, [channelIds]);
  }

  async *entries(pageSize: number): AsyncGenerator<DueEntry[]> {
    const pages = keysetPages(pageSize, '', (after: string) => this.rows(`SELECT channel_id, due_at, state FROM ${this.due_} WHERE channel_id > $1 ORDER BY channel_id LIMIT $2`, [after, pageSize]), (last) => String(last.channel_id));
    for await (const rows of pages) yield rows.flatMap((row) => entryOf(row) ?? []);
  }

  async counts(): Promise<Record<IndexedState, number>> {
    const counts = emptyCounts();
    for (const row of await this.rows(`SELECT state, n FROM ${this.counts_}`, [])) if (isIndexedState(row.state)) counts[row.state] = Number(row.n);
    return counts;
  }

  /** One statement: the record's upsert in a data-modifying WITH, and the move. */
  async writeWithDelivery(record: DeliveryWrite, { channelId, from, to }: DueMove): Promise<void> {
    const upsert = `WITH r AS (INSERT INTO ${this.connection.table} (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value)`;
    if (to === null) {
      await this.connection.pool.query(`${upsert} DELETE FROM ${this.due_} WHERE channel_id = $3 AND due_at = $4`, [record.storedKey, record.serialized, channelId, from]);
    } else {
      await this.connection.pool.query(`${upsert} UPDATE ${this.due_} SET due_at = $5 WHERE channel_id = $3 AND due_at = $4`, [
        record.storedKey,
        record.serialized,
        channelId,
        from,
        to,
      ]);
    }
  }

  async builtFor(): Promise<string | null> {
    const [row] = await this.rows(`SELECT value FROM ${this.meta} WHERE name = 'built'`, []);
    return typeof row?.value === 'string' ? row.value : null;
  }

  async setBuiltFor(mark: string | null): Promise<void> {
    if (mark === null) await this.connection.pool.query(`DELETE FROM ${this.meta} WHERE name = 'built'`);
    else await this.connection.pool.query(`INSERT INTO ${this.meta} (name, value) VALUES ('built', $1) ON CONFLICT (name) DO UPDATE SET value = excluded.value`, [mark]);
  }

  close(): Promise<void> {
    return this.connection.release();
  }
}
