import type KeyvSqlite from '@keyv/sqlite';

/**
 * Runs a Keyv SQLite adapter's statements one at a time, in the order they were asked for, and writes that queue up
 * behind others as one statement.
 *
 * Why: node-sqlite3 runs a statement on a worker thread but finalizes it on the main thread, under the
 * connection's mutex. While another statement holds that mutex (a write waits there for its fsync), the event loop
 * stands still. With many writes in flight, as in a daily fan-out, it stood still most of the time: bench:fanout's
 * profile showed the bot's main thread blocked in sqlite3 for most of the run, and every command waited with it.
 * One statement at a time, nothing is left to wait for. And writes queued meanwhile go out as one multi-row upsert:
 * one transaction and one fsync for all of them instead of one each, so the queue keeps up. Each write still
 * resolves only once its statement has committed, so durability is what it was.
 */

/** Rows of one upsert: two parameters each, far below SQLite's limit on parameters. */
const MAX_ROWS_PER_WRITE = 500;

interface PendingWrite {
  key: string;
  value: unknown;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const ignore = (): void => undefined;

export function queueStatements(adapter: KeyvSqlite): void {
  const run = adapter.query;
  const close = adapter.close;
  const table = adapter.opts.table ?? 'keyv';
  let tail: Promise<unknown> = Promise.resolve();
  /** The write at the end of the queue, which writes asked for after it may still join. */
  let open: PendingWrite[] | null = null;

  function enqueue<T>(work: () => Promise<T>): Promise<T> {
    const result = tail.then(work);
    tail = result.then(ignore, ignore);
    return result;
  }

  function write(batch: PendingWrite[]): Promise<void> {
    return enqueue(async () => {
      // Running now: later writes start a statement of their own.
      if (open === batch) open = null;
      const rows = batch.map(() => '(?, ?)').join(', ');
      const sql = `INSERT INTO ${table} (key, value) VALUES ${rows} ON CONFLICT(key) DO UPDATE SET value = excluded.value`;
      try {
        // Rows are applied in order, so of two writes to one key the later wins, as it would one by one.
        await run(sql, ...batch.flatMap((pending) => [pending.key, pending.value]));
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
  adapter.set = (key: string, value: unknown) =>
    new Promise<void>((resolve, reject) => {
      const pending = { key, value, resolve, reject };
      if (open && open.length < MAX_ROWS_PER_WRITE) {
        open.push(pending);
        return;
      }
      const batch = [pending];
      open = batch;
      void write(batch);
    });
  // Closing waits for the statements already asked for.
  adapter.close = () => enqueue(close);
}
