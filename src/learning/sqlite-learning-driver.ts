import { resolve } from 'node:path';
import type KeyvSqlite from '@keyv/sqlite';
import type Keyv from 'keyv';
import { openStore } from '../store/open-store.ts';
import { aloneOnFile, connectionOf } from '../store/sqlite-queue.ts';
import type { SqlDriver, SqlQuery, SqlRow, SqlValue } from './sql-driver.ts';

/** `$1` → `?1`: SQLite's numbered parameters, so one statement text serves both databases. */
function numbered(sql: string): string {
  return sql.replace(/\$(\d+)/g, '?$1');
}

/**
 * The learning tables in the SQLite store file, beside Keyv's table. Statements take their turn in the file's one
 * queue (store/sqlite-queue.ts), through a Keyv namespace of their own, so the file keeps its single writer and is
 * written back with everything else if it is deleted while open. A transaction runs alone on the file.
 */
export async function openSqliteLearningDriver(storeUrl: string): Promise<SqlDriver> {
  const keyv: Keyv<unknown> = await openStore(storeUrl, 'learning', { throwOnErrors: true });
  const adapter = keyv.store as KeyvSqlite;
  const file = resolve(storeUrl.replace(/^sqlite:\/\//i, ''));
  const query: SqlQuery = async (sql, parameters = []) => (await adapter.query(numbered(sql), ...parameters)) as SqlRow[];
  return {
    dialect: 'sqlite',
    query,
    transaction<T>(work: (query: SqlQuery) => Promise<T>): Promise<T> {
      return aloneOnFile(file, async () => {
        const run = (sql: string, parameters: readonly SqlValue[] = []) =>
          connectionOf(adapter).run(numbered(sql), ...parameters) as Promise<SqlRow[]>;
        await run('BEGIN IMMEDIATE');
        try {
          const result = await work(run);
          await run('COMMIT');
          return result;
        } catch (error) {
          await run('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
    },
    table: (name) => `"${name}"`,
    close: () => keyv.disconnect(),
  };
}
