import { hideChannelCacheWarning } from '../../src/cli/process-warnings.ts';

// Test files start the bot's discord.js client in-process, as bin/wotd-bot.js does in its own.
hideChannelCacheWarning();
