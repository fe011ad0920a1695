import { accessSync, constants, statSync, type Stats } from 'node:fs';

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
