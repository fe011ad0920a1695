import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startBotProcessWorld } from '../support/bot-process-world.ts';
import { childEnv } from '../support/child-env.ts';
import { collectOutput } from '../support/child-output.ts';

const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');

let world: Awaited<ReturnType<typeof startBotProcessWorld>> | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('wotd-bot start with DISCORD_TOKEN', () => {
  it('connects to Discord, answers /wotd from the configured service, keeps the token out of its logs, stops on SIGTERM', async () => {
    world = await startBotProcessWorld('discord');
    const { discord, guild, dir } = world;
    const env = childEnv({ ...world.settings, LOG_LEVEL: 'info' });
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
