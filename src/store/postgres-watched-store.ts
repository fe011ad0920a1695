import KeyvPostgres from '@keyv/postgres';
import { escapeIdentifier } from 'pg';
import { STORE_TABLE, type PostgresConnection } from './postgres-connection.ts';
import { StoreWatch } from './store-watch.ts';
import { watchMethods } from './watched-methods.ts';

/** The key the health check reads (and, while writes fail, writes): outside every namespace's range of keys. */
const HEALTH_KEY = 'health-check';
/** Rows one page of a scan reads. */
const SCAN_PAGE = 500;

type Row = Record<string, unknown>;

/**
 * @keyv/postgres on a pool of ours (postgres-connection.ts), with every failure an error.
 *
 * Left as it is, the adapter keeps one pool for the whole process, which the first disconnect of any namespace
 * ends for all of them; emits the failure of its CREATE TABLE as an event; and its iterator emits a failed page as
 * an event and ends, so a scan that broke off looks complete. Here its queries go to the store's shared pool (the
 * table is created and checked when that opens), disconnect lets go of the pool only, a scan that fails rejects,
 * and each failure is counted on the store's watch and rethrown as a StoreError naming the store, as on Redis.
 */
export class WatchedKeyvPostgres extends KeyvPostgres {
  readonly watch: StoreWatch;
  private readonly connection: PostgresConnection;
  private disconnected = false;

  constructor(connection: PostgresConnection, name: string) {
    // The adapter puts schema and table into its SQL as they are: the schema goes in quoted.
    super({ dialect: 'postgres', uri: 'postgres://', schema: escapeIdentifier(connection.schema), table: STORE_TABLE });
    this.connection = connection;
    this.query = async (sql: string, values?: unknown[]) => (await this.connection.pool.query<Row>(sql, values)).rows;
    this.watch = new StoreWatch(name, {
      read: () => super.get(HEALTH_KEY),
      write: () => super.set(HEALTH_KEY, JSON.stringify({ value: new Date().toISOString() })),
    });
    watchMethods<KeyvPostgres>(this, this.watch, 'read', ['get', 'getMany']);
    watchMethods<KeyvPostgres>(this, this.watch, 'write', ['set', 'setMany', 'delete', 'deleteMany', 'clear']);
  }

  /**
   * Called by the adapter's constructor only, to run its CREATE TABLE (see openPostgresConnection, which has
   * already done that, on a table whose keys compare byte by byte): nothing is run.
   */
  override async connect(): Promise<(sql: string, values?: unknown) => Promise<unknown[]>> {
    return async () => [];
  }

  override has(key: string): Promise<boolean> {
    return this.watch.run('read', async () => Boolean(await super.has(key)));
  }

  /** Every [key, stored value] of the namespace, in key order; a page that cannot be read rejects the scan. */
  override async *iterator(namespace?: string): AsyncGenerator<string[], void, unknown> {
    for await (const page of this.pages(namespace, SCAN_PAGE, 'key, value')) {
      for (const row of page) yield [String(row.key), String(row.value)];
    }
  }

  /** The full keys (namespace included) of a namespace, in pages of at most `pageSize`, in key order. */
  async *keyPages(namespace: string, pageSize: number): AsyncGenerator<string[]> {
    for await (const page of this.pages(namespace, pageSize, 'key')) yield page.map((row) => String(row.key));
  }

  override async disconnect(): Promise<void> {
    if (this.disconnected) return;
    this.disconnected = true;
    await this.connection.release();
  }

  /**
   * Pages of a namespace by ranges of the primary key: every key `<namespace>:…` sorts after "<namespace>:" and
   * before "<namespace>;" byte by byte. Without a namespace, the whole table.
   */
  private async *pages(namespace: string | undefined, pageSize: number, columns: string): AsyncGenerator<Row[]> {
    const table = this.connection.table;
    let after = namespace ? `${namespace}:` : '';
    const before = namespace ? `${namespace};` : null;
    for (;;) {
      const sql =
        before === null
          ? `SELECT ${columns} FROM ${table} WHERE key COLLATE "C" > $1 ORDER BY key COLLATE "C" LIMIT $2`
          : `SELECT ${columns} FROM ${table} WHERE key COLLATE "C" > $1 AND key COLLATE "C" < $3 ORDER BY key COLLATE "C" LIMIT $2`;
      let rows: Row[];
      try {
        rows = (await this.connection.pool.query<Row>(sql, before === null ? [after, pageSize] : [after, pageSize, before])).rows;
      } catch (error) {
        throw this.watch.failed('scan', error);
      }
      const last = rows.at(-1);
      if (!last) return;
      yield rows;
      if (rows.length < pageSize) return;
      after = String(last.key);
    }
  }
}
