import { hideChannelCacheWarning } from './cli/process-warnings.ts';
import { main } from './cli.ts';

/** The `wotd-bot` command in a process of its own: bin/wotd-bot.js runs this, compiled to dist/src/wotd-bot.js. */
export async function runWotdBot(args: string[]): Promise<number> {
  hideChannelCacheWarning();
  const code = await main(args);
  // A process manager that forks with an IPC channel (pm2) keeps it open: the process would outlive the bot that
  // has stopped, until the manager's kill timeout sends SIGKILL. Closing it lets node exit as it does elsewhere.
  if (process.connected) process.disconnect();
  return code;
}
