import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Routes } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.ts';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { testEntries } from '../commands/world.ts';
import { restFor, startDiscordServer, type DiscordServer } from '../support/discord/index.ts';
import { collectOutput } from '../support/child-output.ts';

const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');

let discord: DiscordServer | undefined;
let service: RunningService | undefined;
let dir: string | undefined;
afterEach(async () => {
  await discord?.close();
  await service?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  discord = service = dir = undefined;
});

describe('wotd-bot start with DISCORD_TOKEN', () => {
  it('connects to Discord, answers /wotd from the configured service, keeps the token out of its logs, stops on SIGTERM', async () => {
    dir = await mkdtemp(join(tmpdir(), 'wotd-bot-discord-'));
    await writeWordDb(join(dir, 'words.sqlite'), testEntries());
    service = await startWotdService({ dbPath: join(dir, 'words.sqlite'), variant: 'A', port: 0, rateLimitPerMinute: 0 });
    discord = await startDiscordServer();
    const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'general' }] });
    await restFor(discord).put(Routes.applicationGuildCommands(discord.applicationId, guild.id), {
      body: commands.map((command) => command.data.toJSON()),
    });

    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (!/^(WOTD_|DISCORD_|REDIS_)/.test(key) && key !== 'LOG_LEVEL' && key !== 'STORE_URL') env[key] = value;
    }
    Object.assign(env, {
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      WOTD_API_URL: service.url,
      STORE_URL: `sqlite://${join(dir, 'store.sqlite')}`,
      LOG_LEVEL: 'info',
    });
    const child = spawn(process.execPath, [BIN, 'start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const { output, exited } = collectOutput(child);

    try {
      await discord.waitForReady(1, 15_000);
      const interaction = discord.invokeCommand({ name: 'wotd', options: { date: '2025-01-14' }, channelId: guild.channelId('general') });
      const reply = await interaction.waitForResponse(10_000);
      expect(reply.embeds[0]).toMatchObject({
        title: 'serendipity',
        footer: { text: '2025-01-14 · Word of the Day from wotd.site' },
      });
      expect(reply.ephemeral).toBe(false);
      expect(reply.allowedMentions).toMatchObject({ parse: [] });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    // The invite URL as a plain line of its own, to copy from a terminal or the journal.
    expect(output.stdout).toBe(
      `Add the bot to a server: https://discord.com/oauth2/authorize?client_id=${discord.applicationId}&scope=bot+applications.commands&permissions=84992\n`,
    );
    expect(output.stderr).toContain('connected to Discord');
    expect(output.stderr).toContain('scope=bot+applications.commands');
    expect(output.stderr).not.toContain(discord.token);
    // Every stderr line is the bot's own JSON log: discord.js's warning about the channel cache left off is not shown.
    for (const line of output.stderr.split('\n').filter(Boolean)) expect(() => JSON.parse(line), line).not.toThrow();
  });
});
