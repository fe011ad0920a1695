/**
 * npm run bench:idle-probe -- [--channels 10000] [--seconds N] [--command] [--metrics]
 *
 * A quicker look at the idle bot than bench:fanout (a minute and a half, not five): the compiled bot
 * (`bin/wotd-bot.js start`) with --channels subscriptions due hours ahead, against the local Discord-compatible server
 * and our own service. It reads the bot's memory when bench:fanout reads idle_rss_mb (a second before the second
 * whole minute at least 20 s after the start), or after --seconds: RSS split into anonymous and file-backed memory
 * (/proc/PID/status), and with --metrics the V8 heap spaces (used/committed MB, from /metrics: this loads prom-client,
 * a few MB more). --command sends a /wotd once connected, as bench:fanout does.
 * Environment: PROBE_NODE_FLAGS adds flags to the bot's node, PROBE_ENV="K=V K=V" variables; PROBE_TIMELINE=1
 * prints the RSS every 0.5 s then 5 s, PROBE_MAPS=1 the resident memory by mapping, PROBE_SNAPSHOT=1 sends SIGUSR2
 * (with PROBE_NODE_FLAGS=--heapsnapshot-signal=SIGUSR2), PROBE_KEEP=1 keeps the folder with the log (and snapshot).
 * Ends with one `bench idle-probe: …` line. Reads /proc (Linux).
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Writable } from 'node:stream';
import { commands } from '../commands/index.ts';
import { runDeployCommands } from '../src/discord/deploy-commands.ts';
import { SubscriptionStore } from '../src/schedule/subscription-store.ts';
import type { Subscription } from '../src/schedule/subscription.ts';
import { startWotdService } from '../src/service/server.ts';
import { startDiscordServer } from '../test/support/discord/index.ts';
import { processMemory } from './proc-memory.ts';
import { subscribeEveryChannel } from './subscriptions.ts';

const { values } = parseArgs({ options: { channels: { type: 'string', default: '10000' }, seconds: { type: 'string', default: '0' }, metrics: { type: 'boolean', default: false }, command: { type: 'boolean', default: false } } });
const CHANNELS = Number(values.channels);
const SECONDS = Number(values.seconds);
const BIN = resolve(import.meta.dirname, '../bin/wotd-bot.js');
const WORDS_DB = resolve(import.meta.dirname, '../data/words.sqlite');
const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

const dir = mkdtempSync(join(tmpdir(), 'wotd-idle-probe-'));
const storeUrl = `sqlite://${join(dir, 'store.sqlite')}`;
const discord = await startDiscordServer({ globalLimitPerSecond: 50 });
const service = await startWotdService({ dbPath: WORDS_DB, variant: 'A', rateLimitPerMinute: 10 });
const due = new Date(Date.now() + 6 * 3600_000).toISOString().slice(11, 16);
const guilds = discord.addGuilds(Math.ceil(CHANNELS / 500), (index) => ({
  name: `P ${index}`,
  channels: Array.from({ length: Math.min(500, CHANNELS - index * 500) }, (_, i) => ({ name: `w-${i}` })),
}));
const subs: Subscription[] = subscribeEveryChannel(guilds, due, 'probe');
const probeChannel = discord.addGuild({ name: 'Probe', channels: [{ name: 'commands' }] }).channelId('commands');
const discard = new Writable({ write: (_chunk, _encoding, callback) => callback() });
if ((await runDeployCommands([], { env: { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl }, stdout: discard, stderr: process.stderr, commands })) !== 0) throw new Error('deploy-commands failed');
const store = await SubscriptionStore.open(storeUrl);
for (let i = 0; i < subs.length; i += 2500) await store.putMany(subs.slice(i, i + 2500));
await store.close();
const extraEnv = Object.fromEntries((process.env.PROBE_ENV ?? '').split(/\s+/).filter(Boolean).map((pair) => pair.split('=', 2) as [string, string]));
const metricsPort = 19000 + Math.floor(Math.random() * 1000);
const env: NodeJS.ProcessEnv = {};
for (const [key, value] of Object.entries(process.env)) if (!/^(WOTD_|DISCORD_|REDIS_|STORE_URL|LOG_LEVEL|DELIVERY_|METRICS_)/.test(key)) env[key] = value;
Object.assign(env, {
  DISCORD_TOKEN: discord.token,
  DISCORD_API_URL: discord.apiUrl,
  STORE_URL: storeUrl,
  WOTD_API_URL: service.url,
  WOTD_API_VARIANT: 'A',
  LOG_LEVEL: 'info',
  ...(values.metrics ? { METRICS_PORT: String(metricsPort) } : {}),
  ...extraEnv,
});
const flags = (process.env.PROBE_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
const child = spawn(process.execPath, [...flags, BIN, 'start'], { cwd: dir, env, stdio: ['ignore', 'inherit', 'pipe'] });
const log = createWriteStream(join(dir, 'bot.log'));
child.stderr?.pipe(log);
const started = Date.now();
if (values.command) {
  // As bench:fanout does: a /wotd once connected.
  await new Promise<void>((done) => {
    const onData = (chunk: Buffer) => {
      if (!/connected to Discord as/.test(chunk.toString('utf8'))) return;
      child.stderr?.off('data', onData);
      done();
    };
    child.stderr?.on('data', onData);
  });
  const answer = await discord.invokeCommand({ name: 'wotd', channelId: probeChannel }).waitForCallback(10_000);
  process.stdout.write(`command answered in ${answer.latencyMs} ms\n`);
}
// As bench:fanout reads it: a second before the whole minute after the first whole minute 20 s or more ahead.
const readAt = SECONDS > 0 ? started + SECONDS * 1000 : Math.ceil((started + 20_000) / 60_000) * 60_000 + 59_000;
const timeline: string[] = [];
while (Date.now() < readAt) {
  const elapsed = Date.now() - started;
  await sleep(Math.min(readAt - Date.now(), elapsed < 15_000 ? 500 : 5_000));
  try {
    timeline.push(`${((Date.now() - started) / 1000).toFixed(1)}s:${processMemory(child.pid ?? 0).rssMb.toFixed(0)}`);
  } catch {
    break;
  }
}
if (process.env.PROBE_TIMELINE) process.stdout.write(`timeline ${timeline.join(' ')}\n`);
const pid = child.pid ?? 0;
const memory = processMemory(pid);
const parts = [`rss_mb=${memory.rssMb.toFixed(1)}`, `anon_mb=${memory.anonMb.toFixed(1)}`, `file_mb=${memory.fileMb.toFixed(1)}`, `peak_rss_mb=${memory.peakRssMb.toFixed(1)}`, `threads=${memory.threads}`];
if (process.env.PROBE_MAPS) {
  const smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const byName = new Map<string, number>();
  let name = '';
  for (const line of smaps.split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) name = head[1] || '[anon]';
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) byName.set(name, (byName.get(name) ?? 0) + Number(rss[1]) / 1024);
  }
  for (const [n, mb] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, 12)) process.stdout.write(`  ${mb.toFixed(1)} MB ${n}\n`);
  // Anonymous mappings with more than 512 kB resident: size and resident.
  const sizes = new Map<string, { count: number; rss: number }>();
  const blocks = smaps.split(/\n(?=[0-9a-f]+-[0-9a-f]+ )/);
  for (const block of blocks) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+[ \t]*(.*)$/m.exec(block);
    const rss = Number(/^Rss:\s+(\d+) kB/m.exec(block)?.[1] ?? 0);
    if (!head || head[4] || rss === 0) continue;
    const size = (parseInt(head[2] as string, 16) - parseInt(head[1] as string, 16)) / 1048576;
    const key = `${head[3]} ${size >= 1 ? size.toFixed(0) : size.toFixed(2)}MB`;
    const bucket = sizes.get(key) ?? { count: 0, rss: 0 };
    bucket.count++;
    bucket.rss += rss / 1024;
    sizes.set(key, bucket);
  }
  for (const [key, { count, rss }] of [...sizes].sort((a, b) => b[1].rss - a[1].rss).slice(0, 15)) process.stdout.write(`  anon ${key} x${count} rss=${rss.toFixed(1)}\n`);
}
if (values.metrics) {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const spaces = new Map<string, Record<string, number>>();
  for (const match of text.matchAll(/^nodejs_heap_space_size_(total|used)_bytes\{space="([^"]+)"\} (\S+)/gm)) {
    const [, kind, space, value] = match as unknown as [string, string, string, string];
    spaces.set(space, { ...spaces.get(space), [kind]: Number(value) / 1048576 });
  }
  parts.push([...spaces].map(([space, v]) => `${space}=${(v.used ?? 0).toFixed(1)}/${(v.total ?? 0).toFixed(1)}`).join(' '));
  const ext = /^nodejs_external_memory_bytes\S* (\S+)/m.exec(text)?.[1];
  if (ext) parts.push(`external=${(Number(ext) / 1048576).toFixed(1)}`);
}
process.stdout.write(`bench idle-probe: channels=${CHANNELS} command=${values.command} ${parts.join(' ')} seconds=${((Date.now() - started) / 1000).toFixed(0)} flags=${JSON.stringify(flags.join(' '))} env=${JSON.stringify(process.env.PROBE_ENV ?? '')}\n`);
if (process.env.PROBE_SNAPSHOT) {
  child.kill('SIGUSR2');
  await sleep(15_000);
}
child.kill('SIGTERM');
await new Promise((done) => child.once('exit', done));
if (process.env.PROBE_KEEP) process.stdout.write(`log: ${join(dir, 'bot.log')}\n`);
else rmSync(dir, { recursive: true, force: true });
await service.close();
await discord.close();
process.exit(0);
