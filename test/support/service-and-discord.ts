import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { testEntries } from '../commands/world.ts';
import { startDiscordServer, type DiscordServer } from './discord/index.ts';

export interface ServiceAndDiscord {
  /** A temp folder (`wotd-<name>-…`) holding the word list, words.sqlite; the test may put more in it. */
  dir: string;
  service: RunningService;
  discord: DiscordServer;
  /** Stops both and removes the folder. */
  close(): Promise<void>;
}

/**
 * What a bot run as a child process talks to: our service on loopback (no rate limit) serving `entries` from a temp
 * SQLite file, and the local Discord server. What started before a failure is closed again before it is thrown.
 */
export async function startServiceAndDiscord(name: string, entries: Entry[] = testEntries()): Promise<ServiceAndDiscord> {
  const dir = await mkdtemp(join(tmpdir(), `wotd-${name}-`));
  let service: RunningService | undefined;
  let discord: DiscordServer | undefined;
  const close = async () => {
    await discord?.close();
    await service?.close();
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await writeWordDb(join(dir, 'words.sqlite'), entries);
    service = await startWotdService({ dbPath: join(dir, 'words.sqlite'), variant: 'A', port: 0, rateLimitPerMinute: 0 });
    discord = await startDiscordServer();
    return { dir, service, discord, close };
  } catch (error) {
    await close();
    throw error;
  }
}
