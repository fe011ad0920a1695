import { armExitDeadline, deadlineOnSignals } from './cli/exit-deadline.ts';
import { hideChannelCacheWarning } from './cli/process-warnings.ts';
import { main } from './cli.ts';

/** The `wotd-bot` command in a process of its own: bin/wotd-bot.js runs this, compiled to dist/src/wotd-bot.js. */
export async function runWotdBot(args: string[]): Promise<number> {
  hideChannelCacheWarning();
  const dispose = args[0] === 'start' ? deadlineOnSignals() : () => undefined;
  try {
    return await main(args);
  } finally {
    dispose();
    armExitDeadline(`the command ${args[0] ?? ''} finished`.replace(/ $/, ''));
  }
}
