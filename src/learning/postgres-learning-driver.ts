import { openPostgresConnection } from '../store/postgres-connection.ts';
import type { SqlDriver, SqlQuery, SqlValue } from './sql-driver.ts';

/** The learning tables in the PostgreSQL store's schema, beside `keyv`, on the store's shared pool. */
export async function openPostgresLearningDriver(url: string, setting?: string): Promise<SqlDriver> {
  const connection = await openPostgresConnection(url, setting);
  const query: SqlQuery = async (sql, parameters = []) => (await connection.pool.query(sql, [...parameters])).rows as Record<string, unknown>[];
  return {
    dialect: 'postgres',
    query,
    async transaction(work) {
      const client = await connection.pool.connect();
      try {
        await client.query('BEGIN');
        try {
          const result = await work(async (sql: string, parameters: readonly SqlValue[] = []) => (await client.query(sql, [...parameters])).rows as Record<string, unknown>[]);
          await client.query('COMMIT');
          return result;
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      } finally {
        client.release();
      }
    },
    table: (name) => connection.tableName(name),
    close: () => connection.release(),
  };
}
