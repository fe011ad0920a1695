import { ConfigError } from '../config/settings.ts';
import { ListenError } from '../config/listen-error.ts';
import type { Logger } from '../config/logger.ts';
import { singleLine } from '../config/message-text.ts';
import { oneLine } from './start-options.ts';

/**
 * What `start` says when the bot stops on an error, and its exit code. A bad setting found while opening (a store URL
 * the bot cannot use, a port in use) is one line and exit 2, like the settings checked at load. Any other failure
 * before the bot runs (a server that cannot be reached, Discord refusing the token) is one line and exit 1, its stack
 * only in the log at debug level; a failure once it runs is logged as an error too.
 */
export function reportStopFailure(error: unknown, options: { command: string; logger: Logger; running: boolean; prefix?: string }): number {
  const { command, logger } = options;
  if (error instanceof ConfigError || error instanceof ListenError) {
    process.stderr.write(`wotd-bot ${command}: ${singleLine(error.message)}\n`);
    return 2;
  }
  if (options.running) logger.error({ err: error }, 'the bot stopped');
  else logger.debug({ err: error }, 'the bot could not start');
  process.stderr.write(`wotd-bot ${command}: ${options.prefix ?? ''}${oneLine(error)}\n`);
  return 1;
}
