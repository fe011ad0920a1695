/**
 * What CREATE TABLE IF NOT EXISTS answers when another session created the same table at the same moment: a
 * unique violation in the catalogue (23505), the table (42P07) or its row type (42710) already there. Kept apart from
 * postgres-connection.ts so that code shared with SQLite can ask it without loading the PostgreSQL client.
 */
export const CREATED_ELSEWHERE: ReadonlySet<string> = new Set(['23505', '42P07', '42710']);

/** Whether an error is PostgreSQL's answer that another session created the object just now. */
export function createdElsewhere(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof code === 'string' && CREATED_ELSEWHERE.has(code);
}
