import { statSync } from 'node:fs';
import { resolve } from 'node:path';

/** The settings that name a file on this machine, as loadConfig has read them. */
interface PathSettings {
  STORE_URL: string;
  WOTD_SERVICE_DB: string;
  WOTD_MIRROR: { kind: string; path?: string };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(resolve(path)).isDirectory();
  } catch {
    // Missing (it is created, or its absence is reported where it is opened) or not readable: not a directory.
    return false;
  }
}

/**
 * A setting naming a folder where a file belongs: said at load, in the settings' one line, instead of an error from
 * SQLite (or a lock file written beside the folder) later.
 */
export function pathProblem(config: PathSettings): { setting: keyof PathSettings; message: string } | null {
  const store = /^sqlite:\/\/(.+)$/i.exec(config.STORE_URL)?.[1];
  if (store !== undefined && store !== ':memory:' && isDirectory(store)) {
    return { setting: 'STORE_URL', message: `expected the path of a SQLite file, not a folder (${resolve(store)}), such as sqlite://data/store.sqlite` };
  }
  if (isDirectory(config.WOTD_SERVICE_DB)) {
    return { setting: 'WOTD_SERVICE_DB', message: `expected the path of the word list's SQLite file, not a folder (${resolve(config.WOTD_SERVICE_DB)})` };
  }
  const mirror = config.WOTD_MIRROR.kind === 'file' ? config.WOTD_MIRROR.path : undefined;
  if (mirror !== undefined && isDirectory(mirror)) {
    return { setting: 'WOTD_MIRROR', message: `expected on, off, an http(s) URL or the path of a SQLite snapshot file, not a folder (${resolve(mirror)})` };
  }
  return null;
}
