import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startBotProcessWorld } from '../support/bot-process-world.ts';
import { childEnv } from '../support/child-env.ts';
import { Scrape } from './prom-text.ts';

const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');

let world: Awaited<ReturnType<typeof startBotProcessWorld>> | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('wotd-bot start with METRICS_PORT', () => {
  it('serves /healthz and /metrics while it runs, counts what it does, and closes the port on SIGTERM', async () => {
    world = await startBotProcessWorld('metrics');
    const { discord, guild, dir } = world;
    const env = childEnv({ ...world.settings, LOG_LEVEL: 'info', METRICS_PORT: '0' });
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
