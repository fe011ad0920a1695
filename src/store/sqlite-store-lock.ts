import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import sqlite3 from 'sqlite3';
import { assertRegularFile } from '../config/path-kind.ts';

/**
 * One running bot per SQLite store: two would each deliver every daily post. The holder keeps a write transaction
 * open on "<store>.lock", a small SQLite file beside the store, for as long as it runs. SQLite takes the lock from
 * the operating system, which drops it when the process ends, however it ends (SIGKILL, a crash, power loss): a dead
 * holder can never leave the store locked. The holder's pid goes into "<store>.lock.pid", only to name it in the
 * message; it is never trusted for the lock itself.
 *
 * Read-only tools (the lookup CLI, migrate-store reading) do not take the lock, and SQLite lets them use the store
 * beside a running bot. Several processes on one store is what cluster mode (REDIS_URL) is for.
 */

export class StoreInUseError extends Error {
  override readonly name = 'StoreInUseError';
  constructor(
    readonly store: string,
    readonly holderPid: number | null,
    kind: 'SQLite' | 'PostgreSQL' = 'SQLite',
  ) {
    const holder = holderPid === null ? 'another wotd-bot process' : `another wotd-bot process (pid ${holderPid})`;
    super(
      `the store ${store} is in use by ${holder}; run one bot per ${kind} store, or several in cluster mode (REDIS_URL)`,
    );
  }
}

export interface StoreLock {
  release(): Promise<void>;
}

function run(db: sqlite3.Database, sql: string): Promise<void> {
  return new Promise((resolve, reject) => db.run(sql, (error: Error | null) => (error ? reject(error) : resolve())));
}

function close(db: sqlite3.Database): Promise<void> {
  return new Promise((resolve, reject) => db.close((error) => (error ? reject(error) : resolve())));
}

function holderPid(pidFile: string): number | null {
  try {
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Takes the store's lock for this process, or throws StoreInUseError naming the holder. `store`: an absolute path. */
export async function lockSqliteStore(store: string): Promise<StoreLock> {
  const lockFile = `${store}.lock`;
  const pidFile = `${lockFile}.pid`;
  assertRegularFile(store, 'STORE_URL');
  assertRegularFile(lockFile, "the store's lock file");
  mkdirSync(dirname(store), { recursive: true });
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened: sqlite3.Database = new sqlite3.Database(lockFile, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE, (error) =>
      error ? reject(new Error(`could not open the lock file ${lockFile}: ${error.message}`)) : resolve(opened),
    );
  });
  try {
    // Without a busy timeout, a lock held elsewhere fails at once with SQLITE_BUSY.
    await run(db, 'BEGIN IMMEDIATE');
  } catch (error) {
    await close(db).catch(() => undefined);
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') throw new StoreInUseError(store, holderPid(pidFile));
    throw new Error(`could not lock the store ${store} (${lockFile}): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  writeFileSync(pidFile, `${process.pid}\n`);
  let released: Promise<void> | undefined;
  return {
    release: () =>
      (released ??= (async () => {
        if (holderPid(pidFile) === process.pid) rmSync(pidFile, { force: true });
        await run(db, 'ROLLBACK').catch(() => undefined);
        await close(db);
      })()),
  };
}
