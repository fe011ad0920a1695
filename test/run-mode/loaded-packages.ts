/**
 * Run by loaded-packages.test.ts in a process of its own (`node --import tsx`): loads what `wotd-bot start` loads
 * for a bot on Discord with the given STORE_URL (run-mode and the Discord modules it imports once connected), opens
 * the store's daily posts and the adapter's cache as the bot does, and prints the npm packages then loaded.
 */
import { createRequire } from 'node:module';
import { loadConfig } from '../../src/config/settings.ts';
import { createLogger } from '../../src/config/logger.ts';
import { openDailyPosts } from '../../src/schedule/daily-posts.ts';
import { storeLocation } from '../../src/store/open-store.ts';
import { openWotdAdapter } from '../../src/wotd/adapter.ts';

await import('../../src/run-mode.ts');
await import('../../src/discord/bot.ts');
await import('../../src/discord/discord-daily-posts.ts');
const config = loadConfig();
const logger = createLogger({ level: 'silent' });
const daily = await openDailyPosts({ store: storeLocation(config), limit: 25, concurrency: 1, logger });
const adapter = await openWotdAdapter(config);
await adapter.close();
await daily.close();

const packages = new Set<string>();
for (const file of Object.keys(createRequire(import.meta.url).cache)) {
  const name = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1];
  if (name) packages.add(name);
}
process.stdout.write(`${JSON.stringify([...packages].sort())}\n`);
