import { armExitDeadline, deadlineOnSignals } from './cli/exit-deadline.ts';
import { hideChannelCacheWarning } from './cli/process-warnings.ts';
import { main } from './cli.ts';

/** The commands that run until they are stopped: a stop that something holds up still ends them. */
const LONG_RUNNING = new Set(['start', 'console']);

/** The `wotd-bot` command in a process of its own: bin/wotd-bot.js runs this, compiled to dist/src/wotd-bot.js. */
export async function runWotdBot(args: string[]): Promise<number> {
  hideChannelCacheWarning();
  const dispose = LONG_RUNNING.has(args[0] ?? '') ? deadlineOnSignals() : () => undefined;
  try {
    return await main(args);
  } finally {
    dispose();
    // A process manager that forks with an IPC channel (pm2) keeps it open: the process would outlive the bot that
    // has stopped, until the manager's kill timeout sends SIGKILL. Closing it lets node exit as it does elsewhere.
    if (process.connected) process.disconnect();
    armExitDeadline(`the command ${args[0] ?? ''} finished`.replace(/ $/, ''));
  }
}
