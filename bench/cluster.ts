/**
 * npm run bench:cluster — four bot processes (`wotd-bot start --shards 4 --shard-ids i`) share one Redis, against the
 * local Discord-compatible server (global limit 50/s, 2,000 servers, 20,000 subscribed channels all due at once) and
 * our own Word-of-the-Day service with its 10-a-minute limit behind a recording proxy.
 *
 * 1. Fan-out: every channel must get exactly one post. One process is SIGKILLed at a random point of the fan-out and
 *    started again; its unfinished claims run out and the others (or it) finish its share.
 * 2. Lookups: 20,000 /wotd interactions spread over all servers (and so over all four processes, by shard), for
 *    dates the cache mostly lacks at first; the service must never see more than 10 requests in any 60 s.
 *
 * The database mirror is on (WOTD_MIRROR=on: our service's own /databases, behind the same proxy, so the listing and
 * the download count with every other request); `--mirror off` runs without it, for the comparison.
 *
 * The local Discord server runs in this process, on the same two cores as the bots, so it is kept from being what is
 * measured: it skips its spec check (the tests keep it), keeps idle connections 400 s as Discord does, takes REST
 * connections through its front door (a child process that accepts at once, where the busy harness would accept one
 * per event-loop turn; front-door.ts) and a lookup's losing wait (reply or follow-up) is stopped at once. Before the
 * last line, `lookups:` lines give the harness's event-loop utilization and delay over the lookups and the callbacks'
 * latencies (from dispatch to arrival).
 *
 * Options (environment): CLUSTER_CHANNELS (20000), CLUSTER_GUILDS (2000), CLUSTER_LOOKUPS (20000),
 * CLUSTER_LOOKUP_CONCURRENCY (100), CLUSTER_PROCESSES (4), CLUSTER_GLOBAL_LIMIT (50: the server's global limit per
 * second, told to the bots as DISCORD_GLOBAL_RATE_LIMIT, each with DELIVERY_CONCURRENCY as bench:fanout sizes it for
 * the whole pace), REDIS_BENCH_URL (redis://127.0.0.1:6379),
 * CLUSTER_NODE_ARGS (extra node flags for the bots, e.g. `--cpu-prof --cpu-prof-dir=DIR`). Ends with one
 * `bench cluster:` line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { commands } from '../commands/index.ts';
import { postsPerSecondFor } from '../src/discord/channel-poster.ts';
import { runDeployCommands } from '../src/discord/deploy-commands.ts';
import { SubscriptionStore } from '../src/schedule/subscription-store.ts';
import type { Subscription } from '../src/schedule/subscription.ts';
import { startWotdService } from '../src/service/server.ts';
import { addDays, utcDateOf } from '../src/wotd/dates.ts';
import { startDiscordServer, type GuildInfo } from '../test/support/discord/index.ts';
import { startLoopbackProxy } from '../test/support/wotd-world.ts';
import { subscribeEveryChannel } from './subscriptions.ts';

const CHANNELS = Number(process.env.CLUSTER_CHANNELS ?? 20_000);
const GUILDS = Number(process.env.CLUSTER_GUILDS ?? 2_000);
const LOOKUPS = Number(process.env.CLUSTER_LOOKUPS ?? 20_000);
const PROCESSES = Number(process.env.CLUSTER_PROCESSES ?? 4);
const GLOBAL_LIMIT = Math.max(1, Math.min(10_000, Math.floor(Number(process.env.CLUSTER_GLOBAL_LIMIT ?? 50)) || 50));
// As bench:fanout sizes it for one process holding the whole pace: here the pace is shared, so each has enough alone.
const CONCURRENCY = Math.max(20, Math.ceil(postsPerSecondFor(GLOBAL_LIMIT) / 5));
const REDIS_URL = process.env.REDIS_BENCH_URL ?? 'redis://127.0.0.1:6379';
const BIN = resolve(import.meta.dirname, '../bin/wotd-bot.js');
const LOOKUP_CONCURRENCY = Number(process.env.CLUSTER_LOOKUP_CONCURRENCY ?? 100);
/** Extra node flags for the bot processes, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (NODE_OPTIONS refuses those). */
const NODE_ARGS = (process.env.CLUSTER_NODE_ARGS ?? '').split(' ').filter(Boolean);
const { values: flags } = parseArgs({ options: { mirror: { type: 'string', default: 'on' } }, strict: true });
if (flags.mirror !== 'on' && flags.mirror !== 'off') throw new Error(`--mirror on|off, not ${flags.mirror}`);
const MIRROR = flags.mirror;

/** The reason a lookup's losing wait is stopped with (one Error: a DOMException per abort costs a stack each). */
const LOST_RACE = new Error('the other wait answered first');
const log = (text: string) => process.stdout.write(`bench cluster: ${text}\n`);
const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

const dir = mkdtempSync(join(tmpdir(), 'wotd-bench-cluster-'));
const prefix = `wotd-bench:${randomUUID()}:`;
// The spec check stays in the tests (it fails a test on any violation); here nothing reads it, and it was a fifth of
// the harness's time while the harness shares the cores with the bots it measures. Idle connections stay open 400 s,
// as Discord's do: with 5 s, every bot connection had closed by the lookups, and the 100 lookups that start at once
// all opened new ones, which a busy harness accepts one per event-loop turn (libuv), some after the 3 s. Even with
// them kept, the 100 lookups that start at once need more connections than the paced fan-out left open, so REST goes
// through the front door (front-door.ts): a child process accepts at once and relays each connection over one of 256
// connections to the harness opened while it was idle.
const discord = await startDiscordServer({
  globalLimitPerSecond: GLOBAL_LIMIT,
  shards: PROCESSES,
  interactionDeadlineMs: 3_000,
  specCheck: false,
  keepAliveTimeoutMs: 400_000,
  frontDoorSpares: 256,
});
const service = await startWotdService({ dbPath: 'data/words.sqlite', variant: 'A', rateLimitPerMinute: 10 });
const upstream = await startLoopbackProxy(service.url);
const processes = new Map<number, ChildProcess>();
let exitCode = 0;
/** The bot processes' logs stay on disk when anything went wrong. */
let keepLogs = false;

function startProcess(index: number): ChildProcess {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^(WOTD_|DISCORD_|REDIS_|STORE_URL|LOG_LEVEL)/.test(key)) env[key] = value;
  Object.assign(env, {
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    REDIS_URL,
    REDIS_KEY_PREFIX: prefix,
    WOTD_API_URL: upstream.url,
    WOTD_API_VARIANT: 'A',
    WOTD_MIRROR: MIRROR,
    LOG_LEVEL: 'info',
    DISCORD_GLOBAL_RATE_LIMIT: String(GLOBAL_LIMIT),
    DELIVERY_CONCURRENCY: String(CONCURRENCY),
  });
  const child = spawn(process.execPath, [...NODE_ARGS, BIN, 'start', '--shards', String(PROCESSES), '--shard-ids', String(index)], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const file = createWriteStream(join(dir, `process-${index}.log`), { flags: 'a' });
  child.stdout?.pipe(file);
  child.stderr?.pipe(file);
  processes.set(index, child);
  return child;
}

/** Polls `done` twice a second: the harness's own waitFor re-checks on every request, too costly at this size. */
async function until(done: () => boolean, what: string, timeoutMs = 30 * 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(500);
  }
}

function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  return new Promise((done, fail) => {
    let seen = '';
    const timer = setTimeout(() => fail(new Error(`no "${pattern.source}" within ${timeoutMs} ms`)), timeoutMs);
    // The bot logs to standard error.
    child.stderr?.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString('utf8')).slice(-4_000);
      if (pattern.test(seen)) {
        clearTimeout(timer);
        done();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`process exited with ${code} before "${pattern.source}"`));
    });
  });
}

async function subscribeAll(guilds: GuildInfo[], time: string): Promise<number> {
  const store = await SubscriptionStore.open({ url: REDIS_URL, keyPrefix: prefix });
  try {
    const all: Subscription[] = subscribeEveryChannel(guilds, time, 'bench');
    let next = 0;
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        for (let i = next++; i < all.length; i = next++) {
          const subscription = all[i];
          if (subscription) await store.upsert(subscription.guildId, subscription.channelId, 1_000, () => subscription);
        }
      }),
    );
    return all.length;
  } finally {
    await store.close();
  }
}

/** The most requests the service saw in any 60 s, and how many it refused. */
function upstreamFigures(): { maxPerMinute: number; refused: number; total: number } {
  const times = upstream.log.map((entry) => entry.at).sort((a, b) => a - b);
  let maxPerMinute = 0;
  let first = 0;
  for (let last = 0; last < times.length; last++) {
    while ((times[last] ?? 0) - (times[first] ?? 0) >= 60_000) first++;
    maxPerMinute = Math.max(maxPerMinute, last - first + 1);
  }
  return { maxPerMinute, refused: upstream.log.filter((entry) => entry.status === 429).length, total: times.length };
}

/**
 * Where the global 429s came from: for each second that had one (counted from the processes' start) and the second
 * before it, the requests that arrived, by route, and how many of each were refused; without any, the busiest second.
 */
function explainBusySeconds(startedAt: number): void {
  const limited = new Set(discord.requests.filter((request) => request.limited === 'global').map((request) => Math.floor(request.at / 1000)));
  const busiest = discord.stats().perSecond.reduce((most, second) => (second.accepted > (most?.accepted ?? -1) ? second : most), discord.stats().perSecond[0]);
  if (limited.size === 0 && busiest) limited.add(busiest.second);
  const seconds = [...new Set([...limited].flatMap((second) => [second - 1, second]))].sort((x, y) => x - y).slice(0, 12);
  for (const second of seconds) {
    const routes = new Map<string, { accepted: number; refused: number }>();
    for (const request of discord.requests) {
      if (Math.floor(request.at / 1000) !== second) continue;
      const key = request.route ?? `${request.method} ${request.path}`;
      const counts = routes.get(key) ?? { accepted: 0, refused: 0 };
      if (request.limited === 'global') counts.refused++;
      else if (request.countedGlobally) counts.accepted++;
      routes.set(key, counts);
    }
    const parts = [...routes].map(([route, counts]) => `${route} ${counts.accepted}${counts.refused > 0 ? ` (+${counts.refused} refused)` : ''}`);
    log(`fan-out: requests in second ${(second - Math.floor(startedAt / 1000)).toString()}: ${parts.join(', ')}`);
  }
}

try {
  // Guild ids one millisecond apart land on consecutive shards, so every process gets a quarter.
  const perGuild = Math.ceil(CHANNELS / GUILDS);
  const guilds = discord.addGuilds(GUILDS, (index) => ({
    name: `Bench ${index}`,
    channels: Array.from({ length: Math.min(perGuild, CHANNELS - index * perGuild) }, (_, i) => ({ name: `words-${i}` })),
  }));
  const discard = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const env = { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl };
  if ((await runDeployCommands([], { env, stdout: discard, stderr: process.stderr, commands })) !== 0) throw new Error('deploy-commands failed');

  // Due a minute ago (UTC), so the first tick of every process finds all of them owed.
  const now = new Date();
  const dueTime = new Date(now.getTime() - 60_000).toISOString().slice(11, 16);
  if (dueTime > now.toISOString().slice(11, 16)) throw new Error('started in the first minute of a UTC day; run again in a minute');
  const setupStarted = performance.now();
  const subscribed = await subscribeAll(guilds, dueTime);
  log(`${subscribed} channels in ${guilds.length} servers subscribed on Redis in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`);

  // 1. The fan-out, with one process killed somewhere in it.
  const fanOutStarted = Date.now();
  const ready = Array.from({ length: PROCESSES }, (_, index) => waitForLine(startProcess(index), /connected to Discord/));
  await Promise.all(ready);
  log(`${PROCESSES} processes connected in ${((Date.now() - fanOutStarted) / 1000).toFixed(1)} s`);
  const victim = Math.floor(Math.random() * PROCESSES);
  const killAt = Math.floor(subscribed * (0.1 + Math.random() * 0.6));
  await until(() => discord.posts().length >= killAt, 'the kill point');
  processes.get(victim)?.kill('SIGKILL');
  log(`SIGKILLed process ${victim} after ${discord.allMessages().length} posts; starting it again`);
  await sleep(1_000);
  await waitForLine(startProcess(victim), /connected to Discord/);

  const delivered = () => new Set(discord.posts().map((request) => request.path)).size;
  const progress = setInterval(() => log(`… ${delivered()} of ${subscribed} channels posted`), 30_000);
  try {
    await until(() => delivered() >= subscribed, 'every channel posted', Number(process.env.CLUSTER_WAIT_MS ?? 10 * 60_000));
  } catch (error) {
    const posted = new Set(discord.posts().map((request) => request.path.split('/')[2]));
    const missing = guilds.flatMap((guild) => guild.channels.map((channel) => channel.id)).filter((id) => !posted.has(id));
    const store = await SubscriptionStore.open({ url: REDIS_URL, keyPrefix: prefix });
    for (const id of missing.slice(0, 5)) {
      const record = await store.getDelivery(id, utcDateOf(new Date()));
      const requests = discord.requests.filter((request) => request.path.includes(id)).map((request) => `${request.method} ${request.status}`);
      log(`missing ${id}: messages ${discord.messagesIn(id).length}, requests [${requests.join(', ')}], record ${JSON.stringify(record)}`);
    }
    await store.close();
    throw error;
  } finally {
    clearInterval(progress);
  }
  // Give a late double the chance to show up before counting.
  await sleep(5_000);
  const messages = discord.allMessages();
  const perChannel = new Map<string, number>();
  for (const message of messages) perChannel.set(message.channelId, (perChannel.get(message.channelId) ?? 0) + 1);
  const duplicates = [...perChannel.values()].reduce((sum, count) => sum + Math.max(0, count - 1), 0);
  const missing = subscribed - perChannel.size;
  // Throughput is the fan-out's own: posts over the seconds in which posts went out. The wait for the killed
  // process's claims to run out before its last few channels are taken over is reported as all_posted_s.
  const stats = discord.stats();
  const firstPosts = [...new Map(discord.posts().map((request) => [request.path, request.at] as const)).values()].sort((x, y) => x - y);
  const firstPost = firstPosts[0] ?? 0;
  const allDoneSeconds = ((firstPosts.at(-1) ?? firstPost) - firstPost) / 1000;
  const postingSeconds = stats.perSecond.filter((second) => second.posts > 0);
  const postsPerSecond = postingSeconds.reduce((sum, second) => sum + second.posts, 0) / Math.max(1, postingSeconds.length);
  log(
    `fan-out: ${perChannel.size} channels posted, ${duplicates} duplicates, ${missing} missing; ${postsPerSecond.toFixed(1)} posts/s ` +
      `over the ${postingSeconds.length} s with posts; all done ${allDoneSeconds.toFixed(0)} s after the first`,
  );
  const postCounts = postingSeconds.map((second) => second.posts).sort((x, y) => x - y);
  log(`fan-out: posts per second while posting: min ${postCounts[0] ?? 0}, median ${postCounts[Math.floor(postCounts.length / 2)] ?? 0}, max ${postCounts.at(-1) ?? 0}`);
  log(`fan-out: busiest second accepted ${stats.maxAcceptedPerSecond} requests; global 429s ${stats.global429}, per-route 429s ${stats.bucket429}`);
  explainBusySeconds(fanOutStarted);

  // 2. Lookups spread over every server, so over every process.
  const today = utcDateOf(new Date());
  const lookupStarted = performance.now();
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const eluStart = performance.eventLoopUtilization();
  const callbacksBefore = discord.callbacks().length;
  let answered = 0;
  let busy = 0;
  let failed = 0;
  const failures = new Map<string, number>();
  const fail = (reason: string) => {
    failed++;
    failures.set(reason, (failures.get(reason) ?? 0) + 1);
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: LOOKUP_CONCURRENCY }, async () => {
      for (let i = next++; i < LOOKUPS; i = next++) {
        const guild = guilds[i % guilds.length];
        if (!guild) continue;
        // Eight weeks of dates: the shared cache holds them all after about seven history pages.
        const date = addDays(today, -1 - (i % 56));
        try {
          const handle = discord.invokeCommand({ name: 'wotd', options: { date }, channelId: guild.channels[0]?.id ?? '' });
          // A private answer after a deferral comes as a follow-up, not as an edit of the original. The wait that
          // lost is stopped: left to its timeout, it would be re-checked on every harness change for a minute.
          const raced = new AbortController();
          const shown = await Promise.any([handle.waitForResponse(60_000, raced.signal), handle.waitForFollowUp(0, 60_000, raced.signal)]).finally(() => raced.abort(LOST_RACE));
          if (shown.embeds.length > 0) answered++;
          else if (/busy/i.test(shown.content ?? '')) busy++;
          else fail((shown.content ?? 'an empty reply').slice(0, 100));
        } catch {
          // Neither a reply nor a follow-up within a minute: the bot answered after Discord's 3 s (10062).
          fail('no answer (the bot replied after the 3 s deadline)');
        }
      }
    }),
  );
  const lookupSeconds = (performance.now() - lookupStarted) / 1000;
  loopDelay.disable();
  const elu = performance.eventLoopUtilization(eluStart);
  log(`lookups: harness event loop utilization ${elu.utilization.toFixed(2)}, delay p50 ${(loopDelay.percentile(50) / 1e6).toFixed(0)} ms, p99 ${(loopDelay.percentile(99) / 1e6).toFixed(0)} ms, max ${(loopDelay.max / 1e6).toFixed(0)} ms`);
  const lookupCallbacks = discord.callbacks().slice(callbacksBefore);
  const latencies = lookupCallbacks.map((c) => c.latencyMs).sort((x, y) => x - y);
  const pct = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const byType = new Map<string, number>();
  for (const c of lookupCallbacks) {
    const key = `${c.type}/${c.status}`;
    byType.set(key, (byType.get(key) ?? 0) + 1);
  }
  log(`lookups: ${latencies.length} callbacks (type/status ${[...byType].map(([k, v]) => `${k}×${v}`).join(' ')}), latency p50 ${pct(0.5)} ms, p90 ${pct(0.9)}, p99 ${pct(0.99)}, p99.9 ${pct(0.999)}, max ${latencies.at(-1) ?? 0}; over 1.5 s ${latencies.filter((l) => l > 1500).length}, over 3 s ${latencies.filter((l) => l > 3000).length}`);
  const shownFailures = [...failures].sort((x, y) => y[1] - x[1]).slice(0, 5);
  for (const [reason, count] of shownFailures) log(`lookups: ${count} × ${reason}`);
  if (failed > 0) keepLogs = true;
  const figures = upstreamFigures();
  const siteRequests = upstream.log.filter((entry) => entry.path.startsWith('/databases')).map((entry) => `${entry.path} ${entry.status ?? '?'}`);
  log(`mirror ${MIRROR}: the site saw ${siteRequests.length} requests (${siteRequests.join(', ') || 'none'})`);
  log(
    `lookups: ${LOOKUPS} in ${lookupSeconds.toFixed(1)} s at ${LOOKUP_CONCURRENCY} in flight: ${answered} answered, ${busy} "busy, try again", ${failed} unanswered; ` +
      `the service saw ${figures.total} requests in all, at most ${figures.maxPerMinute} in any 60 s, ${figures.refused} refused`,
  );
  for (const error of discord.internalErrors.slice(0, 5)) log(`harness internal error: ${error.message}`);
  if (failed > 0 || duplicates > 0 || missing > 0 || stats.global429 > 0 || figures.maxPerMinute > 10 || figures.refused > 0 || discord.internalErrors.length > 0) exitCode = 1;
  log(`logs of the bot processes: ${dir}`);
  process.stdout.write(
    `bench cluster: mirror=${MIRROR} processes=${PROCESSES} channels=${subscribed} global_limit=${GLOBAL_LIMIT} posts_per_s=${postsPerSecond.toFixed(1)} limit_ratio=${(postsPerSecond / GLOBAL_LIMIT).toFixed(3)} all_posted_s=${allDoneSeconds.toFixed(0)} duplicates=${duplicates} ` +
      `missing=${missing} global_429=${stats.global429} upstream_max_per_min=${figures.maxPerMinute} upstream_429=${figures.refused} ` +
      `lookups=${LOOKUPS} lookups_unanswered=${failed}\n`,
  );
} catch (error) {
  exitCode = 1;
  log(`failed: ${error instanceof Error ? error.message : String(error)} (bot logs in ${dir})`);
} finally {
  for (const child of processes.values()) child.kill('SIGTERM');
  await sleep(2_000);
  for (const child of processes.values()) if (child.exitCode === null) child.kill('SIGKILL');
  await upstream.close();
  await service.close();
  await discord.close();
  const redis = new Redis(REDIS_URL);
  for (const pattern of [`${prefix}*`, `mutex:${prefix}*`, `semaphore:${prefix}*`]) {
    let cursor = '0';
    do {
      const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = nextCursor;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  }
  redis.disconnect();
  if (exitCode === 0 && keepLogs === false) rmSync(dir, { recursive: true, force: true });
  process.exit(exitCode);
}
