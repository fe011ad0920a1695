import { DatabaseError, escapeIdentifier, Pool, type ClientBase } from 'pg';
import { CREATED_ELSEWHERE } from './postgres-created-elsewhere.ts';
import { withoutPassword } from '../config/settings.ts';

/**
 * The connections of one process to a PostgreSQL store: one bounded pool per store URL, shared by everything that
 * opens it (the subscriptions, deliveries and cache namespaces, the cluster's delivery claims) and closed when the
 * last of them lets go.
 *
 * Opening it checks the store before anything uses it: the server answers, the `keyv` table is there (created when
 * it is not) and has the shape the bot reads. An unreachable store and a damaged one each fail in one line naming
 * the URL without its password; a damaged table is left exactly as it is.
 */

/** Connections one process keeps open to one store at most. */
export const POOL_MAX = 5;
const CONNECT_TIMEOUT_MS = 5_000;
/** A statement that waits longer than this for a lock held elsewhere fails, as a locked SQLite file does after 10 s. */
const LOCK_TIMEOUT_MS = 10_000;
const IDLE_CLOSE_MS = 30_000;

/** The table every namespace lives in (keys `<namespace>:<key>`), as @keyv/postgres names it. */
export const STORE_TABLE = 'keyv';

export interface PostgresConnection {
  readonly pool: Pool;
  /** The schema the store's tables are in (the connection's current schema; see search_path). */
  readonly schema: string;
  /** `"schema"."keyv"`, quoted for SQL. */
  readonly table: string;
  /** A table of the store's schema, quoted for SQL. */
  tableName(name: string): string;
  /** Lets go of the pool; the last user's release closes it. Releasing twice does nothing. */
  release(): Promise<void>;
}

interface SharedPool {
  pool: Pool;
  users: number;
  ready: Promise<{ schema: string }>;
}

const pools = new Map<string, SharedPool>();

/**
 * How a message names the store: its URL without the password, after the setting it came from when there is one
 * (`STORE_URL=postgres://***@db.example/wotd`).
 */
export function shownStore(url: string, setting?: string): string {
  return `${setting ? `${setting}=` : ''}${withoutPassword(url)}`;
}

/** Opens (or joins) the pool of the store at `url`, checked as described above; `setting` names it in messages. */
export async function openPostgresConnection(url: string, setting?: string): Promise<PostgresConnection> {
  let shared = pools.get(url);
  if (!shared) {
    const pool = new Pool({
      connectionString: url,
      max: POOL_MAX,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      idleTimeoutMillis: IDLE_CLOSE_MS,
      lock_timeout: LOCK_TIMEOUT_MS,
      application_name: `wotd-bot pid ${process.pid}`,
      onConnect: checkClientWhileRunning,
    });
    // An idle connection the server closed (a restart, an administrator) is dropped by the pool and opened again
    // when next needed; the operations that need it fail or succeed on their own. Without a listener, pg would
    // crash the process for it.
    pool.on('error', () => undefined);
    const created: SharedPool = { pool, users: 0, ready: prepare(pool, url, shownStore(url, setting)) };
    shared = created;
    pools.set(url, created);
    created.ready.catch(() => {
      if (pools.get(url) === created) pools.delete(url);
      void pool.end().catch(() => undefined);
    });
  }
  shared.users += 1;
  let schema: string;
  try {
    ({ schema } = await shared.ready);
  } catch (error) {
    shared.users -= 1;
    throw error;
  }
  const { pool } = shared;
  let released = false;
  return {
    pool,
    schema,
    table: `${escapeIdentifier(schema)}.${escapeIdentifier(STORE_TABLE)}`,
    tableName: (name) => `${escapeIdentifier(schema)}.${escapeIdentifier(name)}`,
    async release() {
      if (released) return;
      released = true;
      const current = pools.get(url);
      if (!current || current.pool !== pool || --current.users > 0) return;
      pools.delete(url);
      await pool.end();
    },
  };
}

/** Pools open in this process (for tests of clean shutdown). */
export function openPostgresPools(): number {
  return pools.size;
}

/**
 * Has the server check every second, while a statement of this session runs (or waits for a lock), that the bot is
 * still there, and cancel the statement when it is not: a write the bot sent just before it was killed must not
 * take effect later, after a restarted bot has moved on. PostgreSQL 14 and later; an older server does without.
 */
async function checkClientWhileRunning(client: ClientBase): Promise<void> {
  try {
    await client.query('SET client_connection_check_interval = 1000');
  } catch (error) {
    // 42704: a server older than 14 has no such setting. Any other failure fails the connection, and with it the
    // statement that asked for one.
    if (!(error instanceof DatabaseError) || error.code !== '42704') throw error;
  }
}

export { CREATED_ELSEWHERE } from './postgres-created-elsewhere.ts';

/** SQLSTATEs of a table that is not what it should be, or data the server itself finds damaged. */
const DAMAGED = new Set(['XX001', 'XX002', '42703', '42804', '42809']);

/** An error's message, with the server's SQLSTATE when it has one. */
function reasonOf(error: unknown): string {
  if (error instanceof DatabaseError) return `${error.message}${error.code ? ` (${error.code})` : ''}`;
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

async function prepare(pool: Pool, url: string, shown: string): Promise<{ schema: string }> {
  let schema: string | null;
  try {
    const result = await pool.query<{ schema: string | null }>('SELECT current_schema() AS schema');
    schema = result.rows[0]?.schema ?? null;
  } catch (error) {
    throw new Error(`could not reach PostgreSQL at ${shown}: ${reasonOf(error).split(url).join(withoutPassword(url))}`, { cause: error });
  }
  if (schema === null) {
    throw new Error(`the PostgreSQL store at ${shown} has no schema to keep its table in: the search_path names none that exists`);
  }
  const table = `${escapeIdentifier(schema)}.${escapeIdentifier(STORE_TABLE)}`;
  try {
    // COLLATE "C": keys compare byte by byte, so a namespace is one range of the primary key's index (see keyPages).
    await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (key TEXT COLLATE "C" PRIMARY KEY, value TEXT)`);
  } catch (error) {
    // Two processes creating it at once: the other one's table is there (committed) when this one is refused.
    const code = error instanceof DatabaseError ? error.code : undefined;
    if (!CREATED_ELSEWHERE.has(code ?? '')) throw new Error(`could not open the PostgreSQL store at ${shown}: ${reasonOf(error)}`, { cause: error });
  }
  const columns = await pool.query<{ column_name: string; data_type: string }>(
    `SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2`,
    [schema, STORE_TABLE],
  );
  const types = new Map(columns.rows.map((row) => [row.column_name, row.data_type]));
  const textual = (name: string) => ['text', 'character varying'].includes(types.get(name) ?? '');
  if (!textual('key') || !textual('value')) {
    const found = columns.rows.map((row) => `${row.column_name} ${row.data_type}`).join(', ') || 'no columns';
    throw damaged(shown, `table ${schema}.${STORE_TABLE} has (${found}), not (key text, value text)`);
  }
  try {
    // One read through the primary key, as every lookup does: a damaged index or page shows here.
    await pool.query(`SELECT value FROM ${table} WHERE key = $1`, ['health-check']);
  } catch (error) {
    const code = error instanceof DatabaseError ? error.code : undefined;
    if (code !== undefined && DAMAGED.has(code)) throw damaged(shown, reasonOf(error));
    throw new Error(`could not read the PostgreSQL store at ${shown}: ${reasonOf(error)}`, { cause: error });
  }
  return { schema };
}

function damaged(shown: string, reason: string): Error {
  return new Error(
    `the PostgreSQL store at ${shown} is damaged: ${reason}; it was left untouched. Restore it from a backup, or use an empty database or schema (losing every subscription in it).`,
  );
}
