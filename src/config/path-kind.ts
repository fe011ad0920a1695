import { accessSync, constants, existsSync, statSync, type Stats } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname } from 'node:path';

/**
 * Why a path a setting names cannot be used as a file ("is a FIFO (named pipe), not a regular file"), or null. Opening a FIFO blocks until someone writes to it,
 * a device can be read forever, a directory is not a database: each would hang or confuse the bot, and an open
 * that blocks holds a thread of the pool, which no signal can take back. So the kind is looked at first, with
 * stat (which opens nothing), and anything that is not a regular file is refused before it is opened. A path that
 * does not exist yet is left to the code that creates or reports it.
 */
export function notARegularFile(path: string, options: { mustRead?: boolean } = {}): string | null {
  let info: Stats;
  try {
    info = statSync(path);
  } catch {
    // Missing, or a name the system refuses: the code that opens it says so (stat opened nothing).
    return null;
  }
  const kind = kindOf(info);
  if (kind) return `is ${kind}, not a regular file`;
  if (options.mustRead) {
    try {
      accessSync(path, constants.R_OK);
    } catch (error) {
      return `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
    }
  }
  return null;
}

function kindOf(info: Stats): string | null {
  if (info.isFile()) return null;
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  return 'not a file';
}

/** Throws a one-line error when `path` is there but is not a regular file (see notARegularFile). */
export function assertRegularFile(path: string, what: string): void {
  const problem = notARegularFile(path);
  if (problem) throw new Error(`${what}: ${path} ${problem}`);
}

/** "user nobody, uid 65534": who the process runs as, for a message about a permission. */
function thisUser(): string {
  const uid = process.getuid?.();
  let name: string | null = null;
  try {
    name = userInfo().username;
  } catch {
    // A uid with no entry in the user database: the number alone.
  }
  return [name === null ? null : `user ${name}`, uid === undefined ? null : `uid ${uid}`].filter(Boolean).join(', ') || 'this user';
}

/** The error code when this process may not `mode` the path (EACCES, EROFS, EPERM), or null when it may. */
function denied(path: string, mode: number): string | null {
  try {
    accessSync(path, mode);
    return null;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return code === 'ENOENT' ? null : code;
  }
}

/**
 * Why this process cannot keep a SQLite store at `file` (an absolute path), or null. SQLite needs the file readable
 * and writable, and its folder writable: it creates the store's -wal and -shm files there, and the bot its lock file.
 * The system checks permissions when a file is opened only, so a store already open goes on working after a chmod or
 * a chown; this says what the next start would meet (a missing file or folder is created then, and is no problem).
 */
export function sqliteAccessProblem(file: string): string | null {
  const folder = dirname(file);
  if (existsSync(folder)) {
    const code = denied(folder, constants.W_OK | constants.X_OK);
    if (code) return `the store's folder ${folder} is read-only for this process (${thisUser()}; ${code}): SQLite writes the store's journal and its lock file there`;
  }
  for (const path of [file, `${file}-wal`, `${file}-shm`, `${file}.lock`]) {
    const code = denied(path, constants.R_OK | constants.W_OK);
    if (code) return `${path === file ? 'the store' : "the store's file"} ${path} cannot be read and written by this process (${thisUser()}; ${code})`;
  }
  return null;
}
