import { basename, isAbsolute, relative, sep } from 'node:path';

/**
 * How to run `wotd-bot` again the way it was run, for hints that suggest a command: `wotd-bot` where it is on the
 * PATH (installed globally), `npx wotd-bot` from a project that installed it (node_modules/.bin is not on the PATH),
 * and `node bin/wotd-bot.js` in a clone, as the README writes it.
 */
export function invokedAs(script: string | undefined = process.argv[1], cwd = process.cwd()): string {
  if (!script) return 'wotd-bot';
  if (basename(script) === 'wotd-bot') return script.includes(`${sep}node_modules${sep}.bin${sep}`) ? 'npx wotd-bot' : 'wotd-bot';
  if (basename(script) !== 'wotd-bot.js') return 'wotd-bot';
  const path = relative(cwd, script);
  const shown = path === '' || path.startsWith('..') || isAbsolute(path) ? script : path;
  return `node ${/\s/.test(shown) ? JSON.stringify(shown) : shown}`;
}
