import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import type KeyvSqlite from '@keyv/sqlite';
import type Keyv from 'keyv';
import { aloneOnFile, connectionOf, replaceConnection } from './sqlite-queue.ts';

/**
 * Keeps a SQLite store file where STORE_URL says it is.
 *
 * SQLite works on the file it opened, so a store file deleted (or moved away) while the bot runs goes on working,
 * and everything in it, subscriptions included, would be gone at the next start. Every CHECK_EVERY_MS (and when
 * verifySqliteStores is called) each open store file is looked for at its path. One that is gone is written back
 * there from the still-open connection (VACUUM INTO: a consistent copy), and every Keyv on it moves to the
 * restored file. A path that now holds another file is not touched: that is reported, since only an operator
 * knows which file is right.
 */

const CHECK_EVERY_MS = 10_000;
/** Closing a connection waits for its running statements; this is how long to keep asking. */
const CLOSE_ATTEMPTS = 50;

export type ReopenSqlite = () => Promise<KeyvSqlite>;

interface WatchedFile {
  path: string;
  /** Device and inode of the file the connections have open. */
  identity: string;
  reopen: ReopenSqlite;
  members: Set<Keyv<unknown>>;
  /** A replaced file, or a restore that failed, is reported once, not at every check. */
  reported: boolean;
}

export interface StoreFileEvents {
  restored(path: string): void;
  replaced(path: string): void;
  failed(path: string, error: unknown): void;
}

const watched = new Map<string, WatchedFile>();
let timer: NodeJS.Timeout | null = null;
let running: Promise<string[]> | null = null;
let events: StoreFileEvents = {
  restored: (path) => process.stderr.write(`wotd-bot: the store file ${path} was deleted while open; wrote it back from the open database\n`),
  replaced: (path) =>
    process.stderr.write(`wotd-bot: the store file ${path} was replaced by another file while open; still using the one opened, restart to use the new one\n`),
  failed: (path, error) =>
    process.stderr.write(`wotd-bot: the store file ${path} is gone and could not be written back: ${error instanceof Error ? error.message : String(error)}\n`),
};

/** Where restores and problems are reported (the bot passes its logger); stderr lines by default. */
export function onStoreFileEvents(handlers: StoreFileEvents): void {
  events = handlers;
}

function identityOf(path: string): string | null {
  try {
    const stat = statSync(path);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return null;
  }
}

/** Starts watching `path` (already open in `keyv`); the watch ends when every Keyv on the file disconnects. */
export function watchSqliteFile(path: string, keyv: Keyv<unknown>, reopen: ReopenSqlite): void {
  const identity = identityOf(path);
  if (identity === null) return;
  let file = watched.get(path);
  if (!file || file.identity !== identity) {
    file = { path, identity, reopen, members: new Set(), reported: false };
    watched.set(path, file);
  }
  const entry = file;
  entry.members.add(keyv);
  keyv.once('disconnect', () => {
    entry.members.delete(keyv);
    if (entry.members.size === 0 && watched.get(path) === entry) watched.delete(path);
    if (watched.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  });
  if (!timer) {
    timer = setInterval(() => void verifySqliteStores(), CHECK_EVERY_MS);
    timer.unref();
  }
}

/** Checks every open store file now; returns the paths written back. */
export function verifySqliteStores(): Promise<string[]> {
  running ??= checkAll().finally(() => {
    running = null;
  });
  return running;
}

async function checkAll(): Promise<string[]> {
  const restored: string[] = [];
  for (const file of [...watched.values()]) {
    const now = identityOf(file.path);
    if (now === file.identity) continue;
    if (now !== null) {
      if (!file.reported) events.replaced(file.path);
      file.reported = true;
      continue;
    }
    try {
      await restore(file);
      restored.push(file.path);
      file.reported = false;
      events.restored(file.path);
    } catch (error) {
      // Tried again at the next check (the folder may have gone with it, and come back).
      if (!file.reported) events.failed(file.path, error);
      file.reported = true;
    }
  }
  return restored;
}

/**
 * Runs alone on the file (the single writer, src/store/sqlite-queue.ts): every statement asked for before it, on any of
 * the file's connections, is in the copy; every one asked for meanwhile waits, and then runs on the restored file.
 */
function restore(file: WatchedFile): Promise<void> {
  return aloneOnFile(file.path, async () => {
    const adapters = [...file.members].map((keyv) => keyv.store as KeyvSqlite);
    const first = adapters[0];
    if (!first) return;
    const copy = `${file.path}.restoring-${process.pid}-${Date.now()}`;
    try {
      await connectionOf(first).run(`VACUUM INTO '${copy.replaceAll("'", "''")}'`);
    } catch (error) {
      rmSync(copy, { force: true });
      throw error;
    }
    // Every old connection closes before the copy takes the path: the last one to close deletes "<path>-wal" and
    // "<path>-shm" by name, which must not happen to the restored file's.
    for (const adapter of adapters) await closeFully(adapter);
    for (const suffix of ['-wal', '-shm']) {
      // SQLite leaves them when the file they belong to was unlinked (and so may another process still using it):
      // the restored file must never read them as its own.
      if (existsSync(`${file.path}${suffix}`)) renameSync(`${file.path}${suffix}`, `${file.path}${suffix}.orphaned-${Date.now()}`);
    }
    renameSync(copy, file.path);
    // Each adapter stays the same object on a new connection, so the statements waiting for this run there.
    for (const adapter of adapters) replaceConnection(adapter, await file.reopen());
    file.identity = identityOf(file.path) ?? file.identity;
  });
}

async function closeFully(adapter: KeyvSqlite): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await connectionOf(adapter).close();
      return;
    } catch (error) {
      if (/not open|closed/i.test(error instanceof Error ? error.message : '')) return;
      if (attempt >= CLOSE_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
