import { parseArgs } from 'node:util';
import { quoted, singleLine } from '../config/message-text.ts';
import { nearestName } from '../config/nearest-name.ts';
import { SETTING_NAMES } from '../config/settings.ts';
import { misspelledSettings } from '../config/setting-names.ts';
import { DEFAULT_API_URL } from '../wotd/adapter.ts';

export const START_USAGE = `Usage: wotd-bot start [--shards auto|N] [--shard-ids IDS]
       wotd-bot console

start runs the bot. With DISCORD_TOKEN set (in the environment or .env) it connects to Discord and uses the
Word-of-the-Day service at WOTD_API_URL (default ${DEFAULT_API_URL}). Without it, at a terminal, it runs the
offline console; with no terminal (a service manager, a container) it refuses, exit code 2.
console runs the offline console on purpose, with or without a terminal (or a token), against the embedded
service reading WOTD_SERVICE_DB (or WOTD_API_URL when set).

  --shards auto|N    run the gateway in N shards (auto: as many as Discord recommends); default DISCORD_SHARD_COUNT
  --shard-ids IDS    run only these of the N shards in this process, e.g. 0-3 (others run elsewhere);
                     default DISCORD_SHARD_IDS, else all N`;

export interface StartFlags {
  shards?: string;
  'shard-ids'?: string;
}

/** The first line of an error's message, as one line. */
export function oneLine(error: unknown): string {
  return singleLine((error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unknown error');
}

/**
 * `start`'s (or `console`'s) arguments: the flags, or the exit code after printing help (0) or what is wrong (2).
 * `console` takes no shard flags: it never connects to the gateway.
 */
export function parseStartArgs(command: 'start' | 'console', args: string[], stdout = process.stdout, stderr = process.stderr): StartFlags | number {
  if (args.includes('--help') || args.includes('-h')) {
    stdout.write(`${START_USAGE}\n`);
    return 0;
  }
  const known = command === 'start' ? ['shards', 'shard-ids'] : [];
  const unknown = args.find((arg) => arg.startsWith('--') && arg !== '--' && !known.includes(arg.slice(2).split('=')[0] ?? ''));
  if (unknown !== undefined) {
    const name = unknown.split('=')[0] ?? unknown;
    const nearest = nearestName(name, known.map((option) => `--${option}`));
    stderr.write(`wotd-bot ${command}: unknown option ${quoted(name)}${nearest ? `; did you mean \`${nearest}\`?` : ''}\n\n${START_USAGE}\n`);
    return 2;
  }
  try {
    return parseArgs({ args, options: { shards: { type: 'string' }, 'shard-ids': { type: 'string' } }, strict: true }).values;
  } catch (error) {
    stderr.write(`wotd-bot ${command}: ${oneLine(error)}\n\n${START_USAGE}\n`);
    return 2;
  }
}

/** One warning line on stderr for each variable that looks like a mistyped setting; the bot starts all the same. */
export function warnMisspelledSettings(command: string, env: NodeJS.ProcessEnv = process.env, stderr = process.stderr): void {
  for (const warning of misspelledSettings(Object.keys(env), SETTING_NAMES)) stderr.write(`wotd-bot ${command}: ${warning}\n`);
}

/** Where a refused shard plan came from, for its line: the flags when given, else the settings. */
export function shardSource(flags: StartFlags): string {
  return flags.shards !== undefined || flags['shard-ids'] !== undefined ? '--shards/--shard-ids' : 'DISCORD_SHARD_COUNT/DISCORD_SHARD_IDS';
}
