import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Routes } from 'discord.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { commands } from '../../commands/index.ts';
import { startWotdService, type RunningService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { testEntries } from '../commands/world.ts';
import { restFor, startDiscordServer, type DiscordServer } from '../support/discord/index.ts';
import { Scrape } from './prom-text.ts';

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

describe('wotd-bot start with METRICS_PORT', () => {
  it('serves /healthz and /metrics while it runs, counts what it does, and closes the port on SIGTERM', async () => {
    dir = await mkdtemp(join(tmpdir(), 'wotd-bot-metrics-'));
    await writeWordDb(join(dir, 'words.sqlite'), testEntries());
    service = await startWotdService({ dbPath: join(dir, 'words.sqlite'), variant: 'A', port: 0, rateLimitPerMinute: 0 });
    discord = await startDiscordServer();
    const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'general' }] });
    await restFor(discord).put(Routes.applicationGuildCommands(discord.applicationId, guild.id), {
      body: commands.map((command) => command.data.toJSON()),
    });

    const env: NodeJS.ProcessEnv = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (!/^(WOTD_|DISCORD_|REDIS_|METRICS_)/.test(key) && key !== 'LOG_LEVEL' && key !== 'STORE_URL') env[key] = value;
    }
    Object.assign(env, {
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      WOTD_API_URL: service.url,
      STORE_URL: `sqlite://${join(dir, 'store.sqlite')}`,
      LOG_LEVEL: 'info',
      METRICS_PORT: '0',
    });
    const child = spawn(process.execPath, [BIN, 'start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));

    let url = '';
    try {
      url = await vi.waitFor(
        () => {
          const found = /health at (http:\/\/127\.0\.0\.1:\d+)\/healthz/.exec(stderr)?.[1];
          if (!found) throw new Error(`no metrics URL logged yet:\n${stderr}`);
          return found;
        },
        { timeout: 15_000, interval: 50 },
      );
      // Healthy once connected and the scheduler's first pass (at start) is done.
      const healthy = await vi.waitFor(
        async () => {
          const response = await fetch(`${url}/healthz`);
          expect(response.status).toBe(200);
          const body = (await response.json()) as Record<string, unknown>;
          expect(body.lastTickAgeSeconds).toEqual(expect.any(Number));
          return body;
        },
        { timeout: 15_000, interval: 100 },
      );
      expect(healthy).toMatchObject({ status: 'ok', gateway: { status: 'ok' }, store: 'ok', scheduler: 'ok' });
  
      await discord.invokeCommand({ name: 'wotd', options: { date: 'never' }, channelId: guild.channelId('general') }).waitForResponse(10_000);
      const scrape = await vi.waitFor(async () => {
        const current = Scrape.of(await (await fetch(`${url}/metrics`)).text());
        expect(current.get('wotd_bot_interactions_total', { kind: 'command', name: 'wotd', outcome: 'user_error' })).toBe(1);
        return current;
      });
      expect(scrape.get('wotd_bot_gateway_connected', { shard: '0' })).toBe(1);
      expect(scrape.get('wotd_bot_scheduler_ticks_total', { outcome: 'ok' })).toBeGreaterThanOrEqual(1);
      expect(scrape.get('wotd_bot_subscriptions', { state: 'active' })).toBe(0);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});
