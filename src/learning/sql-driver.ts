/**
 * The little the SQL learning store needs of its database: statements with numbered parameters (`$1`), a
 * transaction, and table names. sqlite-learning-driver.ts and postgres-learning-driver.ts implement it.
 */

export type SqlValue = string | number | null;
export type SqlRow = Record<string, unknown>;

export interface SqlQuery {
  (sql: string, parameters?: readonly SqlValue[]): Promise<SqlRow[]>;
}

export interface SqlDriver {
  readonly dialect: 'sqlite' | 'postgres';
  query: SqlQuery;
  /** Runs `work` in one transaction: all of its writes land, or none. */
  transaction<T>(work: (query: SqlQuery) => Promise<T>): Promise<T>;
  /** A table of the bot's, quoted for SQL (schema-qualified on PostgreSQL). */
  table(name: string): string;
  close(): Promise<void>;
}

export function text(row: SqlRow, column: string): string {
  const value = row[column];
  if (typeof value !== 'string') throw new Error(`learning store: column ${column} is not text`);
  return value;
}

/** PostgreSQL answers BIGINT as text; both drivers' numbers come through here. */
export function integer(row: SqlRow, column: string): number {
  const value = Number(row[column]);
  if (!Number.isSafeInteger(value)) throw new Error(`learning store: column ${column} is not an integer`);
  return value;
}

export function optionalText(row: SqlRow, column: string): string | null {
  const value = row[column];
  return typeof value === 'string' ? value : null;
}
