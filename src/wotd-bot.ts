import { hideChannelCacheWarning } from './cli/process-warnings.ts';
import { main } from './cli.ts';

/** The `wotd-bot` command in a process of its own: bin/wotd-bot.js runs this, compiled to dist/src/wotd-bot.js. */
export async function runWotdBot(args: string[]): Promise<number> {
  hideChannelCacheWarning();
  return main(args);
}
