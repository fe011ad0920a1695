/**
 * npm run bench:startup [-- --runs 3 --settle-ms 3000]
 *
 * What a host pays to start the bot and keep it idle: `wotd-bot start` (what `npm start` runs) in a process of its
 * own, in Discord mode against the local Discord-compatible server (one server, one channel, no subscriptions) and our
 * own Word-of-the-Day service, with METRICS_PORT=0. Each run measures, from outside the bot:
 * - ready_ms: from the spawn to the first /healthz answering 200 with status ok (connected, first scheduler pass done);
 * - idle_rss_mb: the process's resident memory --settle-ms after that, and peak_rss_mb its peak (VmHWM) by then;
 * - help_ms: the wall time of `wotd-bot --help` (loading the command-line dispatcher only), run apart.
 * Each figure is the median of --runs runs. Reads /proc (Linux). Ends with one `bench startup: …` line.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Routes } from 'discord.js';
import { commands } from '../commands/index.ts';
import { startWotdService } from '../src/service/server.ts';
import { restFor, startDiscordServer } from '../test/support/discord/index.ts';
import { processMemory } from './proc-memory.ts';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'settle-ms': { type: 'string', default: '3000' },
  },
});

function wholeNumber(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    process.stderr.write(`bench startup: --${name} ${JSON.stringify(raw)}: expected a whole number from ${min} to ${max}\n`);
    process.exit(2);
  }
  return value;
}

const RUNS = wholeNumber('runs', flags.runs, 1, 50);
const SETTLE_MS = wholeNumber('settle-ms', flags['settle-ms'], 0, 60_000);
const READY_TIMEOUT_MS = 30_000;
const BIN = resolve(import.meta.dirname, '../bin/wotd-bot.js');
const WORDS_DB = resolve(import.meta.dirname, '../data/words.sqlite');

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(WOTD_|DISCORD_|REDIS_|METRICS_|STORE_URL$|LOG_LEVEL$|NODE_OPTIONS$)/.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

async function healthUrl(child: ChildProcess, deadline: number): Promise<string> {
  let seen = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (seen = (seen + chunk).slice(-16_000)));
  for (;;) {
    const found = /health at (http:\/\/127\.0\.0\.1:\d+)\/healthz/.exec(seen)?.[1];
    if (found) return found;
    if (child.exitCode !== null) throw new Error(`the bot exited with ${child.exitCode} before serving /healthz:\n${seen}`);
    if (Date.now() > deadline) throw new Error(`no health URL logged within ${READY_TIMEOUT_MS} ms:\n${seen}`);
    await sleep(10);
  }
}

async function untilHealthy(url: string, child: ChildProcess, deadline: number): Promise<void> {
  for (;;) {
    const body = await fetch(`${url}/healthz`).then(
      async (response) => (response.status === 200 ? ((await response.json()) as { status?: unknown }) : null),
      () => null,
    );
    if (body?.status === 'ok') return;
    if (child.exitCode !== null) throw new Error(`the bot exited with ${child.exitCode} before it was healthy`);
    if (Date.now() > deadline) throw new Error(`the bot was not healthy within ${READY_TIMEOUT_MS} ms`);
    await sleep(10);
  }
}

function timeHelp(env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  const started = performance.now();
  return new Promise((done, fail) => {
    execFile(process.execPath, [BIN, '--help'], { env, cwd, timeout: 30_000 }, (error) =>
      error ? fail(error) : done(performance.now() - started),
    );
  });
}

const discord = await startDiscordServer();
const service = await startWotdService({ dbPath: WORDS_DB, variant: 'A', host: '127.0.0.1', port: 0, rateLimitPerMinute: 0 });
const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'general' }] });
await restFor(discord).put(Routes.applicationGuildCommands(discord.applicationId, guild.id), {
  body: commands.map((command) => command.data.toJSON()),
});

const ready: number[] = [];
const idle: number[] = [];
const peak: number[] = [];
const help: number[] = [];
let exitCode = 0;
try {
  for (let run = 0; run < RUNS; run += 1) {
    const dir = mkdtempSync(join(tmpdir(), 'wotd-bench-startup-'));
    const env = childEnv({
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      WOTD_API_URL: service.url,
      STORE_URL: `sqlite://${join(dir, 'store.sqlite')}`,
      METRICS_PORT: '0',
      LOG_LEVEL: 'info',
    });
    let child: ChildProcess | undefined;
    try {
      const spawnedAt = performance.now();
      child = spawn(process.execPath, [BIN, 'start'], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
      const deadline = Date.now() + READY_TIMEOUT_MS;
      await untilHealthy(await healthUrl(child, deadline), child, deadline);
      ready.push(performance.now() - spawnedAt);
      await sleep(SETTLE_MS);
      const { rssMb, peakRssMb } = processMemory(child.pid ?? 0);
      idle.push(rssMb);
      peak.push(peakRssMb);
      const exited = new Promise<void>((done) => child?.once('close', () => done()));
      child.kill('SIGTERM');
      await exited;
      help.push(await timeHelp(env, dir));
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }
  process.stdout.write(
    `bench startup: runs=${RUNS} node=${process.version} ready_ms=${median(ready).toFixed(0)} help_ms=${median(help).toFixed(0)} ` +
      `idle_rss_mb=${median(idle).toFixed(1)} peak_rss_mb=${median(peak).toFixed(1)}\n`,
  );
} catch (error) {
  process.stderr.write(`bench startup: ${error instanceof Error ? error.message : String(error)}\n`);
  exitCode = 1;
} finally {
  await service.close();
  await discord.close();
}
process.exitCode = exitCode;
