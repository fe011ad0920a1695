/**
 * npm run bench:fanout [-- --channels 10000 --global-limit 50 --concurrency 20 --mix]
 *
 * --mix (or FANOUT_MIX=1) subscribes the channels with the options admins use (issue 35), spread evenly: a tenth with
 * a colour, a tenth with an intro line and a role, a tenth on weekdays and a twentieth on days that leave out the due
 * day (no post: not owed), a twentieth paused; the rest as before. Across those, where they post: a tenth through a
 * webhook of the bot's (made beforehand, as on a day after the first: the bot finds it with one request), a quarter
 * as forum posts (in forum channels with two tags; every other one tagged) and a tenth pinned (not in forums; see
 * bench/subscriptions.ts). Only the channels that post that day are counted; webhook429 counts the 429s answered to
 * webhook executions (their own per-webhook buckets), forum_posts the forum posts made, pins_expected the pins owed
 * and pins_seen the messages pinned. Pins take a turn of the pace only when no post waits, so the last come after the
 * last post: they are waited for (at least PINS_WAIT_MIN_MS, longer for many), and the fan-out fails without them.
 *
 * The daily fan-out as it runs in production: `wotd-bot start` (what `npm start` runs) in a process of its own,
 * against the local Discord-compatible server, with its global limit set to --global-limit requests/s and
 * per-channel message buckets, and our own Word-of-the-Day service. Every channel is subscribed, in a temporary SQLite
 * store built beforehand (through SubscriptionStore.putMany), for a whole minute a minute and more ahead (see
 * IDLE_LEAD_MS): the bot starts, lists every subscription at its first tick and at the next minute's, finds none due
 * and sits idle; when the due minute begins it owes every channel its post. The bot is told the same limit (DISCORD_GLOBAL_RATE_LIMIT),
 * from which it paces its posts at 94%.
 *
 * Measured from outside the bot, so the harness's own work is not counted:
 * - start-up: from spawning the process to its "connected to Discord" log line, and to its answer to a /wotd sent
 *   right then (while its first tick lists every subscription);
 * - idle: the bot's RSS a second before the posts fall due, with every subscription stored and listed;
 * - the fan-out: posts per second as the server saw them (from the first post to the last), their ratio to the
 *   limit (limit_ratio); every request counted against the global limit from the first post to the fan-out's last
 *   request (a pin, with --mix), per second, over the limit (request_ratio); the 429s the server answered, the bot's peak RSS (VmHWM, its whole life) and its CPU time (user + system)
 *   from the idle reading to the last post, per post;
 * - the JS heap: the bot runs with --trace-gc, and the most its V8 heaps held at any collection (bench/gc-trace.ts);
 * - exactly once: every channel has one message (a forum post's, in its thread, counts for its forum), and the store
 *   records every post as sent.
 *
 * Options may also be given as FANOUT_CHANNELS, FANOUT_GLOBAL_LIMIT and DELIVERY_CONCURRENCY. FANOUT_NODE_FLAGS adds
 * flags to the bot's node, with absolute paths (it runs in a temporary folder), e.g.
 * "--cpu-prof --cpu-prof-dir=/tmp/prof" (see bench/cpuprofile-top.ts) or "--trace-gc". Reads /proc (Linux).
 * Ends with one `bench fanout: …` line.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { commands } from '../commands/index.ts';
import { postsPerSecondFor } from '../src/discord/channel-poster.ts';
import { runDeployCommands } from '../src/discord/deploy-commands.ts';
import { SubscriptionStore } from '../src/schedule/subscription-store.ts';
import type { Subscription } from '../src/schedule/subscription.ts';
import { startWotdService } from '../src/service/server.ts';
import { utcDateOf, type IsoDate } from '../src/wotd/dates.ts';
import { postsOnWeekday } from '../src/schedule/post-rules.ts';
import { startDiscordServer, type GuildInfo } from '../test/support/discord/index.ts';
import { gcTrace } from './gc-trace.ts';
import { processMemory } from './proc-memory.ts';
import { MIX_PIN, MIX_WEBHOOK, mixChannelSpec, mixOptions, mixPinned, mixPlaceOf, subscribeEveryChannel } from './subscriptions.ts';
import { PermissionFlagsBits } from 'discord.js';
import { DEFAULT_BOT_PERMISSIONS } from '../test/support/discord/index.ts';

const { values: flags } = parseArgs({
  options: {
    channels: { type: 'string', default: process.env.FANOUT_CHANNELS ?? '10000' },
    'global-limit': { type: 'string', default: process.env.FANOUT_GLOBAL_LIMIT ?? '50' },
    concurrency: { type: 'string', default: process.env.DELIVERY_CONCURRENCY },
    mix: { type: 'boolean', default: process.env.FANOUT_MIX === '1' },
  },
});

function wholeNumber(name: string, raw: string | undefined, fallback?: number): number {
  if (raw === undefined && fallback !== undefined) return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) {
    process.stderr.write(`bench fanout: --${name} ${JSON.stringify(raw)}: expected a whole number of at least 1\n`);
    process.exit(2);
  }
  return value;
}

const CHANNELS = wholeNumber('channels', flags.channels);
const GLOBAL_LIMIT = wholeNumber('global-limit', flags['global-limit']);
/** Enough posts in flight to keep the pace when each takes up to ~200 ms (its turn, store writes, the round trip). */
const CONCURRENCY = wholeNumber('concurrency', flags.concurrency, Math.max(20, Math.ceil(postsPerSecondFor(GLOBAL_LIMIT) / 5)));
/** Discord allows 500 channels in a server. */
const CHANNELS_PER_GUILD = 500;
const BIN = resolve(import.meta.dirname, '../bin/wotd-bot.js');
const WORDS_DB = resolve(import.meta.dirname, '../data/words.sqlite');
const CLOCK_TICKS_PER_SECOND = 100;
/**
 * The posts fall due a minute after the first whole minute at least this long after the bench starts (time to build
 * the store, start the bot and list the subscriptions): so the bot is idle through one ordinary minute's tick, which
 * lists every subscription and finds none due, and the idle reading comes 59 s after it. An idle bot is one between
 * such ticks; V8 gives back the start-up's garbage only once a collection has seen the bot allocate slowly, which the
 * start-up alone does not show it.
 */
const IDLE_LEAD_MS = 20_000;
const MINUTE_MS = 60_000;
/** After the last post, the pins still owed are waited for at least this long (longer for many: 3 s per limit's worth). */
const PINS_WAIT_MIN_MS = 30_000;

const postsOn = (subscription: Subscription, day: IsoDate): boolean => postsOnWeekday(subscription, day);
const log = (text: string) => process.stdout.write(`bench fanout: ${text}\n`);
const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));
const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** The bot process's resident memory now and at its peak, and its CPU time so far, from /proc. */
function processFigures(pid: number): { rssMb: number; peakRssMb: number; cpuMs: number } {
  // Fields after the command name (which may hold spaces, so it is skipped by its closing parenthesis).
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const { rssMb, peakRssMb } = processMemory(pid);
  return { rssMb, peakRssMb, cpuMs: (ticks * 1000) / CLOCK_TICKS_PER_SECOND };
}

/** Resolves with the time (performance.now()) of the first line of the bot's log matching `pattern`. */
function watchLog(child: ChildProcess, pattern: RegExp): Promise<number> {
  return new Promise((done, fail) => {
    let seen = '';
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString('utf8')).slice(-8_000);
      if (!pattern.test(seen)) return;
      child.stderr?.off('data', onData);
      done(performance.now());
    };
    child.stderr?.on('data', onData);
    child.once('exit', (code) => fail(new Error(`the bot exited with ${code} before logging ${pattern.source}`)));
  });
}

async function until(done: () => boolean, what: string, timeoutMs: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the bot exited (${child.exitCode ?? child.signalCode}) before ${what}`);
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(100);
  }
}

const dir = mkdtempSync(join(tmpdir(), 'wotd-bench-fanout-'));
const storeUrl = `sqlite://${join(dir, 'store.sqlite')}`;
const discord = await startDiscordServer({ globalLimitPerSecond: GLOBAL_LIMIT });
const service = await startWotdService({ dbPath: WORDS_DB, variant: 'A', rateLimitPerMinute: 10 });
let bot: ChildProcess | undefined;
let keepDir = false;
let exitCode = 0;

try {
  // Due at a whole minute (UTC) ahead: every tick before it finds nothing due, the one at it every channel owed.
  const dueAt = Math.ceil((Date.now() + IDLE_LEAD_MS) / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  const dueTime = new Date(dueAt).toISOString().slice(11, 16);
  const day = utcDateOf(new Date(dueAt));

  const built = performance.now();
  const guilds: GuildInfo[] = discord.addGuilds(Math.ceil(CHANNELS / CHANNELS_PER_GUILD), (index) => ({
    name: `Bench ${index}`,
    channels: Array.from({ length: Math.min(CHANNELS_PER_GUILD, CHANNELS - index * CHANNELS_PER_GUILD) }, (_, i) =>
      flags.mix === true ? mixChannelSpec(index * CHANNELS_PER_GUILD + i, `words-${i}`) : { name: `words-${i}` },
    ),
  }));
  // Where the start-up probe asks /wotd: a channel of its own, so its answer is not mistaken for a daily post.
  const probeChannel = discord.addGuild({ name: 'Probe', channels: [{ name: 'commands' }] }).channelId('commands');
  const subscribed: Subscription[] = subscribeEveryChannel(guilds, dueTime, 'bench');
  const channelsById = new Map(guilds.flatMap((guild) => guild.channels.map((channel) => [channel.id, channel] as const)));
  const mixed =
    flags.mix === true
      ? subscribed.map((subscription, index) => {
          const channel = channelsById.get(subscription.channelId);
          if (!channel) throw new Error(`no channel ${subscription.channelId}`);
          return mixOptions(subscription, index, day, channel);
        })
      : subscribed;
  // The channels that post on the due day: a paused one or one whose days leave the day out owes nothing.
  const subscriptions = mixed.filter((subscription) => subscription.pause === undefined && postsOn(subscription, day));
  const stored = performance.now();
  const store = await SubscriptionStore.open(storeUrl);
  try {
    for (let start = 0; start < mixed.length; start += 5 * CHANNELS_PER_GUILD) {
      await store.putMany(mixed.slice(start, start + 5 * CHANNELS_PER_GUILD));
    }
  } finally {
    await store.close();
  }
  if (flags.mix === true) {
    // The bot may manage webhooks and pin everywhere, and each webhook channel has the bot's webhook from an earlier day.
    const permissions = DEFAULT_BOT_PERMISSIONS | PermissionFlagsBits.ManageWebhooks | PermissionFlagsBits.PinMessages;
    for (const guild of guilds) discord.updateRole(guild.id, guild.botRoleId ?? '', { permissions });
    for (const subscription of mixed) if (subscription.webhookName !== undefined) discord.addChannelWebhook(subscription.channelId, MIX_WEBHOOK.name);
    const posting = new Set(subscriptions.map((subscription) => subscription.channelId));
    const shares = new Map<string, number>();
    mixed.forEach((subscription, index) => {
      if (!posting.has(subscription.channelId)) return;
      // A forum post is not pinned (the poster leaves pin out there).
      const pinned = mixPinned(index) && subscription.forum !== true;
      for (const share of [mixPlaceOf(index), pinned ? MIX_PIN : undefined]) {
        if (share === undefined) continue;
        const name = share.apply ? share.name : `${share.name} (not on this branch yet: posted plainly)`;
        shares.set(name, (shares.get(name) ?? 0) + 1);
      }
    });
    log(`mix: ${mixed.length} subscriptions, ${subscriptions.length} of them post on ${day}; of those: ${[...shares].map(([name, count]) => `${count} ${name}`).join(', ')}`);
  }
  log(
    `${mixed.length} channels in ${guilds.length} servers built in ${seconds(stored - built)} s; ` +
      `subscribed in the store in ${seconds(performance.now() - stored)} s`,
  );
  const discard = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const env = { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl };
  if ((await runDeployCommands([], { env, stdout: discard, stderr: process.stderr, commands })) !== 0) throw new Error('deploy-commands failed');

  const childEnv: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^(WOTD_|DISCORD_|REDIS_|STORE_URL|LOG_LEVEL|DELIVERY_)/.test(key)) childEnv[key] = value;
  Object.assign(childEnv, {
    ...env,
    DISCORD_GLOBAL_RATE_LIMIT: String(GLOBAL_LIMIT),
    DELIVERY_CONCURRENCY: String(CONCURRENCY),
    STORE_URL: storeUrl,
    WOTD_API_URL: service.url,
    WOTD_API_VARIANT: 'A',
    LOG_LEVEL: 'info',
  });

  // 1. Start-up: spawn to "connected", and to the answer of a /wotd sent at once.
  const spawnedAt = performance.now();
  const nodeFlags = (process.env.FANOUT_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  // What the flags make the bot print stays readable afterwards.
  if (nodeFlags.length > 0) keepDir = true;
  const child = spawn(process.execPath, ['--trace-gc', ...nodeFlags, BIN, 'start'], { cwd: dir, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  bot = child;
  const logFile = createWriteStream(join(dir, 'bot.log'));
  const heap = gcTrace();
  // --trace-gc prints to standard output, the bot's log goes to standard error.
  child.stdout?.on('data', (chunk: Buffer) => heap.write(chunk));
  child.stderr?.pipe(logFile);
  const fanOutStarted = watchLog(child, /"msg":"daily fan-out started"/);
  fanOutStarted.catch(() => undefined);
  const readyAt = await watchLog(child, /connected to Discord as/);
  const atReady = processFigures(child.pid ?? 0);
  const probe = discord.invokeCommand({ name: 'wotd', channelId: probeChannel });
  const answer = await probe.waitForCallback(10_000);
  const answeredAt = performance.now();
  const startupMs = readyAt - spawnedAt;
  const answerMs = answeredAt - spawnedAt;
  log(
    `start-up: connected ${startupMs.toFixed(0)} ms after the spawn (target ≤ 5000) with ${mixed.length} subscriptions stored; ` +
      `a /wotd sent then was acknowledged ${answer.latencyMs} ms later (${answerMs.toFixed(0)} ms after the spawn); rss ${atReady.rssMb.toFixed(0)} MB`,
  );

  // 2. Idle: every subscription listed by the first tick, none due yet.
  await until(() => Date.now() >= dueAt - 1_000, 'the idle reading', dueAt - Date.now() + 5_000, child);
  const atIdle = processFigures(child.pid ?? 0);
  const idleHeapMb = heap.heldMb();
  log(
    `idle: rss ${atIdle.rssMb.toFixed(0)} MB, JS heap ${idleHeapMb.toFixed(0)} MB, ${((dueAt - 1_000 - performance.timeOrigin - readyAt) / 1000).toFixed(0)} s after connecting ` +
      `with ${mixed.length} subscriptions listed; the posts fall due at ${new Date(dueAt).toISOString().slice(11, 19)} UTC`,
  );

  // 3. The fan-out. How busy the harness (this process: the fake Discord) was tells whether it held the bot back.
  const harnessLoop = performance.eventLoopUtilization();
  const posted = () => discord.stats().perSecond.reduce((sum, second) => sum + second.posts, 0);
  const progress = setInterval(() => {
    const figures = processFigures(child.pid ?? 0);
    log(`… ${posted()} of ${subscriptions.length} posted; bot rss ${figures.rssMb.toFixed(0)} MB`);
  }, 30_000);
  try {
    await until(() => posted() >= subscriptions.length, 'every channel posted', Math.max(120_000, (subscriptions.length / GLOBAL_LIMIT) * 3_000), child);
  } finally {
    clearInterval(progress);
  }
  const atEnd = processFigures(child.pid ?? 0);
  const harnessBusy = performance.eventLoopUtilization(harnessLoop).utilization;
  // Pins wait for the posts (they take a turn only when no post waits), so the last ones come after the last post.
  const pinsExpected = subscriptions.filter((subscription) => subscription.pin === true && subscription.forum !== true).length;
  const pinsDeadline = Date.now() + Math.max(PINS_WAIT_MIN_MS, (pinsExpected / GLOBAL_LIMIT) * 3_000);
  while (discord.stats().pins < pinsExpected && Date.now() < pinsDeadline && child.exitCode === null) await sleep(100);
  const listedMs = (await fanOutStarted) + performance.timeOrigin - dueAt;

  const posts = discord.posts();
  const firstAt = posts[0]?.at ?? 0;
  const lastAt = posts.at(-1)?.at ?? firstAt;
  const postsPerSecond = (posts.length - 1) / Math.max(0.001, (lastAt - firstAt) / 1000);
  const ratio = postsPerSecond / GLOBAL_LIMIT;
  const stats = discord.stats();
  // Every request the server counted against the global limit, from the first post to the last of the fan-out's
  // requests (the last post, or the last pin after it), per second, over the limit.
  const fanOutRequests = discord.requests.filter((request) => request.countedGlobally && request.at >= firstAt);
  const requestsEndAt = Math.max(lastAt, fanOutRequests.at(-1)?.at ?? lastAt);
  const requestRatio = (fanOutRequests.length - 1) / Math.max(0.001, (requestsEndAt - firstAt) / 1000) / GLOBAL_LIMIT;
  const cpuMsPerPost = (atEnd.cpuMs - atIdle.cpuMs) / posts.length;
  const postingSeconds = stats.perSecond.filter((second) => second.posts > 0).map((second) => second.posts);
  const fullSeconds = postingSeconds.slice(1, -1).sort((a, b) => a - b);

  // 4. Exactly once: one message per channel, and every post recorded as sent once the bot has stopped.
  await sleep(2_000);
  child.kill('SIGTERM');
  const exited = await Promise.race([new Promise((done) => child.once('exit', done)).then(() => true), sleep(15_000).then(() => false)]);
  if (!exited) throw new Error('the bot did not stop within 15 s of SIGTERM');
  // A forum post's message is in its thread (the thread's id is the message's): it counts in the forum's channel.
  const forumOf = new Map<string, string>();
  for (const channel of channelsById.values()) if (channel.type === 15) for (const thread of discord.threadsIn(channel.id)) forumOf.set(thread.id, channel.id);
  const perChannel = new Map<string, number>();
  for (const message of discord.allMessages()) {
    const channelId = forumOf.get(message.channelId) ?? message.channelId;
    if (channelId !== probeChannel) perChannel.set(channelId, (perChannel.get(channelId) ?? 0) + 1);
  }
  const duplicates = [...perChannel.values()].reduce((sum, count) => sum + count - 1, 0);
  const missing = subscriptions.filter((subscription) => !perChannel.has(subscription.channelId)).length;
  const check = await SubscriptionStore.open(storeUrl);
  let recordedSent = 0;
  try {
    const records = await check.getDeliveries(subscriptions.map((subscription) => subscription.channelId), day);
    recordedSent = records.filter((record) => record?.state === 'sent').length;
  } finally {
    await check.close();
  }

  log(
    `fan-out: ${posts.length} posts in ${seconds(lastAt - firstAt)} s, ${postsPerSecond.toFixed(1)} posts/s = ${ratio.toFixed(3)} of the ${GLOBAL_LIMIT}/s limit ` +
      `(target ≥ 0.9; posts paced at ${postsPerSecondFor(GLOBAL_LIMIT)}/s, ${CONCURRENCY} in flight); ` +
      `full seconds carried ${fullSeconds[0] ?? 0} to ${fullSeconds.at(-1) ?? 0} posts, median ${fullSeconds[Math.floor(fullSeconds.length / 2)] ?? 0}`,
  );
  log(
    `fan-out: the tick at the due minute listed the subscriptions and started posting ${listedMs.toFixed(0)} ms after the minute began; ` +
      `the harness's event loop was busy ${(harnessBusy * 100).toFixed(0)}% of the fan-out`,
  );
  log(
    `429s: ${stats.global429} global (target 0), ${stats.bucket429} per-route (${stats.webhook429} of them to webhook executions); busiest second accepted ${stats.maxAcceptedPerSecond} requests`,
  );
  // Where a global 429 came from: what else the bot sent in that second, and where the second fell in the fan-out.
  for (const second of stats.perSecond.filter((entry) => entry.global429 > 0).slice(0, 5)) {
    const inSecond = discord.requests.filter((request) => Math.floor(request.at / 1000) === second.second && request.countedGlobally);
    const routes = new Map<string, number>();
    for (const request of inSecond) routes.set(request.route ?? request.path, (routes.get(request.route ?? request.path) ?? 0) + 1);
    log(
      `  ${second.global429} global 429s ${((second.second * 1000 - firstAt) / 1000).toFixed(0)} s into the fan-out, beside ${second.accepted} accepted: ` +
        [...routes].map(([route, count]) => `${count}× ${route}`).join(', '),
    );
  }
  log(
    `bot process: peak RSS ${atEnd.peakRssMb.toFixed(0)} MB, ${atEnd.rssMb.toFixed(0)} MB at the end; ` +
      `JS heap at most ${heap.peakMb().toFixed(0)} MB (${heap.collections()} collections); ` +
      `CPU ${seconds(atEnd.cpuMs - atIdle.cpuMs)} s from the idle reading to the last post = ${cpuMsPerPost.toFixed(2)} ms per post`,
  );
  log(`exactly once: ${perChannel.size} channels with a message, ${duplicates} duplicates, ${missing} missing; ${recordedSent} recorded as sent`);
  const owedForumPosts = subscriptions.filter((subscription) => subscription.forum === true).length;
  if (flags.mix === true) {
    log(
      `forum posts: ${stats.forumPosts} of ${owedForumPosts} owed; pins: ${stats.pins} of ${pinsExpected} owed, the last ${seconds(requestsEndAt - lastAt)} s after the last post; ` +
        `${fanOutRequests.length} requests counted against the limit in ${seconds(requestsEndAt - firstAt)} s = ${requestRatio.toFixed(3)} of it`,
    );
  }
  // A channel that does not post that day (paused, not one of its days) must have no message.
  const posting = new Set(subscriptions.map((subscription) => subscription.channelId));
  const unexpected = [...perChannel.keys()].filter((channelId) => !posting.has(channelId)).length;
  if (unexpected > 0) log(`${unexpected} channels that do not post today got a message`);
  if (duplicates > 0 || missing > 0 || unexpected > 0 || recordedSent !== subscriptions.length || stats.global429 > 0 || stats.pins < pinsExpected) exitCode = 1;
  process.stdout.write(
    `bench fanout: channels=${subscriptions.length}${flags.mix === true ? ` mix=1 subscribed=${mixed.length}` : ''} global_limit=${GLOBAL_LIMIT} concurrency=${CONCURRENCY} posts=${posts.length} ` +
      `posts_per_s=${postsPerSecond.toFixed(1)} limit_ratio=${ratio.toFixed(3)} seconds=${seconds(lastAt - firstAt)} ` +
      `requests=${fanOutRequests.length} request_ratio=${requestRatio.toFixed(3)} request_seconds=${seconds(requestsEndAt - firstAt)} ` +
      `global_429=${stats.global429} route_429=${stats.bucket429} webhook429=${stats.webhook429} forum_posts=${stats.forumPosts} pins_expected=${pinsExpected} pins_seen=${stats.pins} duplicates=${duplicates} missing=${missing} ` +
      `ready_rss_mb=${atReady.rssMb.toFixed(0)} idle_rss_mb=${atIdle.rssMb.toFixed(0)} peak_rss_mb=${atEnd.peakRssMb.toFixed(0)} ` +
      `peak_heap_mb=${heap.peakMb().toFixed(0)} cpu_ms_per_post=${cpuMsPerPost.toFixed(2)} ` +
      `startup_ms=${startupMs.toFixed(0)} startup_answer_ms=${answerMs.toFixed(0)}\n`,
  );
} catch (error) {
  exitCode = 1;
  keepDir = true;
  log(`failed: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  if (bot && bot.exitCode === null && bot.signalCode === null) {
    bot.kill('SIGKILL');
    await new Promise((done) => bot?.once('exit', done));
  }
  await service.close();
  await discord.close();
  if (keepDir) log(`the bot's log is in ${join(dir, 'bot.log')}`);
  else rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
