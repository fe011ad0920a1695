import { afterAll, afterEach } from 'vitest';
import { hideChannelCacheWarning } from '../../src/cli/process-warnings.ts';
import { failOnSpecViolations, specLedger } from './spec-ledger.ts';

// Test files start the bot's discord.js client in-process, as bin/wotd-bot.js does in its own.
hideChannelCacheWarning();

// The local Discord server records payloads off Discord's API spec (discord/spec-check.ts) in this process: the test
// during which one happened fails (one made in a file's set-up fails its first test); the file's tally goes to
// spec-reporter.ts in its meta.
afterEach(() => failOnSpecViolations('during this test'));
// vitest wants the first argument of a hook destructured (its fixtures); the second is the file.
afterAll(({}, file) => {
  try {
    failOnSpecViolations('after the last test of this file');
  } finally {
    file.meta.discordSpec = specLedger.tally();
  }
});
