import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_DRAIN_TIMEOUT_MS } from '../../src/discord/bot.ts';
import type { RunningService } from '../../src/service/server.ts';
import type { DiscordServer } from '../support/discord/index.ts';
import { startServiceAndDiscord, type ServiceAndDiscord } from '../support/service-and-discord.ts';
import { childEnv } from '../support/child-env.ts';

/**
 * The deployment recipes in deploy/, checked as files: the systemd unit by systemd-analyze and its options, the pm2
 * ecosystem file started, scraped and stopped by pm2 with a clean stop in its log. docs/deploying.md's commands,
 * from `npm pack` to the upgrade (the tarball installed and run as systemd runs it), are run by
 * deploying-page.test.ts. The bot runs on Discord (the local Discord-compatible server) against our service, both
 * on loopback; the compiled bot in dist/ is what vitest's global set-up built.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const PM2 = join(ROOT, 'node_modules/pm2/bin/pm2');

let world: ServiceAndDiscord | undefined;
let discord: DiscordServer;
let service: RunningService;
let dir: string;

beforeAll(async () => {
  world = await startServiceAndDiscord('deploy');
  ({ dir, service, discord } = world);
});
afterAll(async () => {
  await world?.close();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/** What a service manager hands the bot: this environment without our settings, plus an EnvironmentFile's worth. */
function serviceEnv(metricsPort: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = childEnv({}, ['PM2_']);
  return {
    ...env,
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    WOTD_API_URL: service.url,
    WOTD_MIRROR: 'off',
    METRICS_PORT: String(metricsPort),
    ...extra,
  };
}

function run(file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(file, args, { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, timeout: options.timeout ?? 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

async function healthy(port: number): Promise<{ status: number; body: { status?: string; gateway?: { status?: string } } }> {
  return vi.waitFor(
    async () => {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      const body = (await response.json()) as { status?: string };
      if (response.status !== 200) throw new Error(`not healthy yet: ${response.status} ${JSON.stringify(body)}`);
      return { status: response.status, body };
    },
    { timeout: 30_000, interval: 100 },
  );
}

describe('deploy/wotd-bot.service (systemd)', () => {
  it('passes systemd-analyze verify, which does see a broken line', async () => {
    // Only node's path differs between machines; the unit is checked as shipped otherwise.
    const unit = (await readFile(join(ROOT, 'deploy/wotd-bot.service'), 'utf8')).replace(/^ExecStart=\/usr\/bin\/node /m, `ExecStart=${process.execPath} `);
    const file = join(dir, 'wotd-bot.service');
    await writeFile(file, unit);
    const verified = await run('systemd-analyze', ['verify', file]);
    expect(verified, verified.stderr).toMatchObject({ code: 0, stderr: '' });

    await writeFile(file, unit.replace('Restart=on-failure', 'Restart=sometimes'));
    expect((await run('systemd-analyze', ['verify', file])).stderr).toMatch(/Failed to parse service restart specifier/);
  });

  it('restarts on failure but not on a setting to fix, runs as its own user, and waits for the drain before SIGKILL', async () => {
    const unit = await readFile(join(ROOT, 'deploy/wotd-bot.service'), 'utf8');
    const option = (name: string) => new RegExp(`^${name}=(.*)$`, 'm').exec(unit)?.[1];
    expect(option('Restart')).toBe('on-failure');
    expect(option('RestartPreventExitStatus')).toBe('2');
    expect(option('User')).toBe('wotd-bot');
    expect(option('EnvironmentFile')).toBe('/etc/wotd-bot/env');
    expect(option('ExecStart')).toMatch(/\/bin\/wotd-bot\.js start$/);
    expect(Number(option('TimeoutStopSec')) * 1000).toBeGreaterThan(DEFAULT_DRAIN_TIMEOUT_MS * 2);
    // ProtectSystem=strict leaves the bot its working folder only (StateDirectory): it must be that folder.
    expect(option('ProtectSystem')).toBe('strict');
    expect(option('WorkingDirectory')).toBe(`/var/lib/${option('StateDirectory')}`);
    // V8's JIT needs writable, executable memory: this option would stop node at once.
    expect(unit).not.toMatch(/^MemoryDenyWriteExecute=(yes|true|1)/m);
  });
});

describe('deploy/ecosystem.config.cjs (pm2)', () => {
  it('pm2 starts the bot from its working folder, /healthz answers 200, pm2 stops it cleanly', async () => {
    const home = join(dir, 'pm2-home');
    const work = join(dir, 'pm2-work');
    await mkdir(work);
    const port = await freePort();
    const env = { ...serviceEnv(port), PM2_HOME: home };
    const pm2 = (...args: string[]) => run(process.execPath, [PM2, ...args], { cwd: work, env });
    try {
      const started = await pm2('start', join(ROOT, 'deploy/ecosystem.config.cjs'));
      expect(started.code, started.stderr).toBe(0);
      const { body } = await healthy(port);
      expect(body).toMatchObject({ status: 'ok', gateway: { status: 'ok' } });
      // The store is kept in the folder pm2 was started from.
      expect(existsSync(join(work, 'data/store.sqlite'))).toBe(true);

      const stopped = await pm2('stop', 'wotd-bot');
      expect(stopped.code, stopped.stderr).toBe(0);
      const [app] = JSON.parse((await pm2('jlist')).stdout) as Array<{ name: string; pm2_env: { status: string; restart_time: number } }>;
      expect(app).toMatchObject({ name: 'wotd-bot', pm2_env: { status: 'stopped', restart_time: 0 } });
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
      // A clean stop on pm2's signal: the bot's log says so, and the process exited by itself (pm2 opens an IPC
      // channel to it, which would keep node running until pm2's SIGKILL at kill_timeout).
      const log = await readFile(join(home, 'logs/wotd-bot-error.log'), 'utf8');
      expect(log).toContain('"msg":"shutting down"');
      expect(log).toContain('"msg":"disconnected from Discord"');
      expect(await readFile(join(home, 'pm2.log'), 'utf8')).not.toMatch(/SIGKILL/);
    } finally {
      await pm2('kill');
    }
  }, 90_000);
});
