import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | null | undefined;

/**
 * The folder the bot is installed in: the nearest one above this module that holds a package.json. Found by walking
 * up because the depth differs between the sources (src/config/) and the build (dist/src/config/); the same in a
 * clone and in node_modules/wotd-bot. Null only if there is none.
 */
export function packageRoot(): string | null {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return (root = dir);
    const parent = dirname(dir);
    if (parent === dir) return (root = null);
    dir = parent;
  }
}

/** The word list that comes with the bot, data/words.sqlite in its folder (relative to the working directory if that is not found). */
export function bundledWordList(): string {
  const found = packageRoot();
  return found === null ? join('data', 'words.sqlite') : join(found, 'data', 'words.sqlite');
}

/** The bot's version, from its package.json ("unknown" when that cannot be read). */
export function packageVersion(): string {
  const found = packageRoot();
  if (found === null) return 'unknown';
  try {
    const { version } = JSON.parse(readFileSync(join(found, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? version : 'unknown';
  } catch {
    return 'unknown';
  }
}
