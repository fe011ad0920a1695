import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import sqlite3 from 'sqlite3';
import { assertRegularFile, sqliteAccessProblem } from '../config/path-kind.ts';

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

/** How often the holder checks that "<store>.lock" is still the file it holds the lock on. */
const CHECK_MS = 2_000;

export interface SqliteStoreLockOptions {
  /**
   * Told (once) when the lock file was deleted or replaced and the lock could not be taken again at once on the
   * file now at its path: another bot may hold that one, so this bot must stop writing and posting.
   */
  onLost?: (reason: string) => void;
}

/** Opens "<store>.lock" and takes its write lock; SQLITE_BUSY when another process holds it. */
async function takeLockFile(lockFile: string): Promise<{ db: sqlite3.Database; inode: string }> {
  assertRegularFile(lockFile, "the store's lock file");
  const db = await new Promise<sqlite3.Database>((resolve, reject) => {
    const opened: sqlite3.Database = new sqlite3.Database(lockFile, sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE, (error) =>
      error ? reject(new Error(`could not open the lock file ${lockFile}: ${error.message}`)) : resolve(opened),
    );
  });
  try {
    // Without a busy timeout, a lock held elsewhere fails at once with SQLITE_BUSY.
    await run(db, 'BEGIN IMMEDIATE');
    return { db, inode: inodeOf(lockFile) ?? '' };
  } catch (error) {
    await close(db).catch(() => undefined);
    throw error;
  }
}

function inodeOf(path: string): string | null {
  try {
    const info = statSync(path);
    return `${info.dev}:${info.ino}`;
  } catch {
    return null;
  }
}

/** Takes the store's lock for this process, or throws StoreInUseError naming the holder. `store`: an absolute path. */
export async function lockSqliteStore(store: string, options: SqliteStoreLockOptions = {}): Promise<StoreLock> {
  const lockFile = `${store}.lock`;
  const pidFile = `${lockFile}.pid`;
  assertRegularFile(store, 'STORE_URL');
  assertRegularFile(lockFile, "the store's lock file");
  // Said plainly before SQLite says SQLITE_READONLY or SQLITE_CANTOPEN without why.
  const denied = sqliteAccessProblem(store);
  if (denied) throw new Error(denied);
  mkdirSync(dirname(store), { recursive: true });
  let held: { db: sqlite3.Database; inode: string };
  try {
    held = await takeLockFile(lockFile);
  } catch (error) {
    if ((error as { code?: unknown }).code === 'SQLITE_BUSY') throw new StoreInUseError(store, holderPid(pidFile));
    if (error instanceof Error && error.message.startsWith('could not open the lock file')) throw error;
    throw new Error(`could not lock the store ${store} (${lockFile}): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  writeFileSync(pidFile, `${process.pid}\n`);
  let released: Promise<void> | undefined;
  let checking: NodeJS.Timeout | null = null;
  const { onLost } = options;
  if (onLost) {
    // The operating system keeps the lock on the file that was opened: deleted or replaced, the path names another
    // file, which a second bot could lock. Taken again at once on the file now there, or the bot is told to stop.
    let busy = false;
    checking = setInterval(() => {
      if (busy || released || inodeOf(lockFile) === held.inode) return;
      busy = true;
      takeLockFile(lockFile).then(
        async (again) => {
          const old = held.db;
          held = again;
          writeFileSync(pidFile, `${process.pid}\n`);
          await run(old, 'ROLLBACK').catch(() => undefined);
          await close(old).catch(() => undefined);
          busy = false;
        },
        (error: unknown) => {
          if (checking) clearInterval(checking);
          const reason = (error as { code?: unknown }).code === 'SQLITE_BUSY' ? 'another wotd-bot process holds it now' : error instanceof Error ? error.message : String(error);
          onLost(`the lock file ${lockFile} of the store ${store} was deleted or replaced, and the lock could not be taken again: ${reason}`);
        },
      );
    }, CHECK_MS);
    checking.unref();
  }
  return {
    release: () =>
      (released ??= (async () => {
        if (checking) clearInterval(checking);
        if (holderPid(pidFile) === process.pid) rmSync(pidFile, { force: true });
        await run(held.db, 'ROLLBACK').catch(() => undefined);
        await close(held.db);
      })()),
  };
}
