import { DiscordAPIError } from 'discord.js';
import { afterEach, beforeEach } from 'vitest';
import { startDiscordServer, type DiscordServer } from './index.ts';

/** The DiscordAPIError a request is refused with; any other outcome (success, another error) fails the test. */
export async function apiError(promise: Promise<unknown>): Promise<DiscordAPIError> {
  const error = await promise.then(
    () => new Error('expected the request to fail'),
    (e: unknown) => e,
  );
  if (!(error instanceof DiscordAPIError)) throw error;
  return error;
}

/** Starts a fresh local Discord server before each test of the suite, hands it to `ready`, and closes it after. */
export function eachTestDiscordServer(ready: (discord: DiscordServer) => void): void {
  let discord: DiscordServer | undefined;
  beforeEach(async () => {
    discord = await startDiscordServer();
    ready(discord);
  });
  afterEach(async () => {
    await discord?.close();
    discord = undefined;
  });
}
