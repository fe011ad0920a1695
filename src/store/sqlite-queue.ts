import type KeyvSqlite from '@keyv/sqlite';

/**
 * Runs a Keyv SQLite adapter's statements one at a time, in the order they were asked for, and writes that queue up
 * behind others as one statement.
 *
 * Why: node-sqlite3 runs a statement on a worker thread but finalizes it on the main thread, under the
 * connection's mutex. While another statement holds that mutex (a write waits there for its fsync), the event loop
 * stands still. With many writes in flight, as in a daily fan-out, it stood still most of the time: bench:fanout's
 * profile showed the bot's main thread blocked in sqlite3 for most of the run, and every command waited with it.
 * One statement at a time, nothing is left to wait for. The queue is per file, shared by every connection to it
 * (one per namespace): the file has a single writer, so work that must see the whole file at one instant (writing it
 * back, see store/sqlite-file.ts) runs alone on it with aloneOnFile, and no write can slip past it.
 * And writes queued meanwhile go out as one multi-row upsert: one transaction and one fsync for all of them instead
 * of one each, so the queue keeps up. Each write still
 * resolves only once its statement has committed, so durability is what it was.
 */

/** Rows of one upsert: two parameters each, far below SQLite's limit on parameters. */
const MAX_ROWS_PER_WRITE = 500;

interface PendingWrite {
  key: string;
  value: unknown;
  /** Statements committed in the same transaction as this row (after every row of its batch). */
  also?: Statement;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** One SQL statement and its parameters. */
export interface Statement {
  sql: string;
  parameters: unknown[];
}

const ignore = (): void => undefined;

type Query = KeyvSqlite['query'];

/** The connection an adapter's statements run on: swapped for a new one when its file is written back. */
interface Connection {
  run: Query;
  close: () => Promise<void>;
}

/** One queue per file: every connection to it, of every namespace, takes its turn here (the single writer). */
interface FileQueue {
  tail: Promise<unknown>;
}

const fileQueues = new Map<string, FileQueue>();
const connections = new WeakMap<KeyvSqlite, Connection>();
const togetherWriters = new WeakMap<KeyvSqlite, (key: string, value: unknown, also: Statement) => Promise<void>>();

/**
 * Writes a row of a queued adapter and runs `also` in the same transaction: both are committed, or neither is. The
 * row joins the queue's next write like any other (one commit for all of them).
 */
export function setTogether(adapter: KeyvSqlite, key: string, value: unknown, also: Statement): Promise<void> {
  const write = togetherWriters.get(adapter);
  if (!write) throw new Error('not a queued SQLite adapter');
  return write(key, value, also);
}

function queueOf(file: string | undefined): FileQueue {
  if (file === undefined) return { tail: Promise.resolve() };
  let queue = fileQueues.get(file);
  if (!queue) {
    queue = { tail: Promise.resolve() };
    fileQueues.set(file, queue);
  }
  return queue;
}

function enqueueOn<T>(queue: FileQueue, work: () => Promise<T>): Promise<T> {
  const result = queue.tail.then(work);
  queue.tail = result.then(ignore, ignore);
  return result;
}

/**
 * Runs `work` alone on `file`: it starts once every statement asked for before it has finished, on any connection
 * to the file, and every statement asked for meanwhile waits until it is done. Its statements go to the raw
 * connections (connectionOf), since the queued ones would wait for it.
 */
export function aloneOnFile<T>(file: string, work: () => Promise<T>): Promise<T> {
  return enqueueOn(queueOf(file), work);
}

/** The raw connection behind a queued adapter: only for work running alone on its file. */
export function connectionOf(adapter: KeyvSqlite): Connection {
  const connection = connections.get(adapter);
  if (!connection) throw new Error('not a queued SQLite adapter');
  return connection;
}

/** Moves a queued adapter to `fresh`'s connection (its file written back); statements waiting run there. */
export function replaceConnection(adapter: KeyvSqlite, fresh: KeyvSqlite): void {
  connections.set(adapter, { run: fresh.query, close: fresh.close });
}

/** `file`: the resolved path, shared by every connection to it; none for an in-memory database. */
export function queueStatements(adapter: KeyvSqlite, file?: string): void {
  connections.set(adapter, { run: adapter.query, close: adapter.close });
  const queue = queueOf(file);
  const run: Query = (sql, ...parameters) => connectionOf(adapter).run(sql, ...parameters);
  const table = adapter.opts.table ?? 'keyv';
  /** The write at the end of the queue, which writes asked for after it may still join. */
  let open: PendingWrite[] | null = null;

  function enqueue<T>(work: () => Promise<T>): Promise<T> {
    return enqueueOn(queue, work);
  }

  function write(batch: PendingWrite[]): Promise<void> {
    return enqueue(async () => {
      // Running now: later writes start a statement of their own.
      if (open === batch) open = null;
      const rows = batch.map(() => '(?, ?)').join(', ');
      const sql = `INSERT INTO ${table} (key, value) VALUES ${rows} ON CONFLICT(key) DO UPDATE SET value = excluded.value`;
      const also = batch.flatMap((pending) => (pending.also ? [pending.also] : []));
      try {
        // Rows are applied in order, so of two writes to one key the later wins, as it would one by one.
        if (also.length === 0) await run(sql, ...batch.flatMap((pending) => [pending.key, pending.value]));
        else await inTransaction(run, [{ sql, parameters: batch.flatMap((pending) => [pending.key, pending.value]) }, ...also]);
        for (const pending of batch) pending.resolve();
      } catch (error) {
        for (const pending of batch) pending.reject(error);
      }
    });
  }

  adapter.query = (sql, ...parameters) => {
    // A read keeps its place: writes asked for after it must not join a write queued before it.
    open = null;
    return enqueue(() => run(sql, ...parameters));
  };
  const set = (key: string, value: unknown, also?: Statement) =>
    new Promise<void>((resolve, reject) => {
      const pending: PendingWrite = { key, value, resolve, reject, ...(also ? { also } : {}) };
      if (open && open.length < MAX_ROWS_PER_WRITE) {
        open.push(pending);
        return;
      }
      const batch = [pending];
      open = batch;
      void write(batch);
    });
  adapter.set = (key: string, value: unknown) => set(key, value);
  togetherWriters.set(adapter, (key, value, also) => set(key, value, also));
  // Closing waits for the statements already asked for.
  adapter.close = () => enqueue(() => connectionOf(adapter).close());
}

/** Runs statements as one transaction on a connection no other statement is using (the queue's turn). */
async function inTransaction(run: Query, statements: readonly Statement[]): Promise<void> {
  await run('BEGIN IMMEDIATE');
  try {
    for (const { sql, parameters } of statements) await run(sql, ...parameters);
    await run('COMMIT');
  } catch (error) {
    await run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
