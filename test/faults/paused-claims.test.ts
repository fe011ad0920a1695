import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, expect } from 'vitest';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { startWotdService } from '../../src/service/server.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { utcDateOf } from '../../src/wotd/dates.ts';
import { makeSubscription } from '../schedule/helpers.ts';
import { startDiscordServer } from '../support/discord/index.ts';
import { postgresClusterBackend, storeEnv } from '../support/store-backends.ts';
import { entriesWithToday } from './bot-process.ts';
import { faultCell } from './tally.ts';
import { childEnv } from '../support/child-env.ts';

/**
 * The time family's pause (issue 31), with real processes and the leases they really run on: two `wotd-bot start`
 * cluster members on PostgreSQL (the claims in the store) with a 3 s claim lease (DELIVERY_CLAIM_LEASE_MS). One is
 * stopped with SIGSTOP while it holds the claim on a channel's day, in the middle of that day's delivery (looking in
 * the channel for an earlier attempt's post), and stays stopped past its lease and past the next minute of the
 * scheduler: the other member claims the day at that minute's tick and posts it. Resumed, the paused one finds its
 * claim may have run out and records and posts nothing (or, stopped past its request's timeout, looks again and
 * records the other's post); the beat of the minute it slept through joins the pass it was in instead of starting a
 * second one. The pause lasts until a minute
 * boundary has passed, so 10 to 60 s (the scheduler ticks at each minute of the wall clock, which no test can move in
 * a real process). Discord's nonce window is cut to 50 ms here, so only the claim can stop a second post.
 */

const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');
const LEASE_MS = 3_000;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

async function until(what: string, ready: () => boolean | Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(20);
  }
}

postgresClusterBackend.describe('a cluster member paused (SIGSTOP) past its claim lease and a minute of the scheduler', () => {
  faultCell('time', 'a process paused (SIGSTOP) past its claim lease and a minute tick, then resumed', 'daily posts (cluster on PostgreSQL, real processes)', async (figures) => {
    const location = await postgresClusterBackend.fresh();
    const dir = await mkdtemp(join(tmpdir(), 'wotd-paused-claim-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    await writeWordDb(join(dir, 'words.sqlite'), entriesWithToday());
    const service = await startWotdService({ dbPath: join(dir, 'words.sqlite'), variant: 'A', port: 0, rateLimitPerMinute: 0 });
    cleanups.push(() => service.close());
    const discord = await startDiscordServer({ nonceWindowMs: 50 });
    cleanups.push(() => discord.close());
    const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'words' }] });
    const channel = guild.channels[0]?.id ?? '';

    const env = childEnv({
      ...storeEnv(location),
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      WOTD_API_URL: service.url,
      WOTD_API_VARIANT: 'A',
      WOTD_MIRROR: 'off',
      LOG_LEVEL: 'info',
      METRICS_PORT: '0',
      DELIVERY_CLAIM_LEASE_MS: String(LEASE_MS),
    });
    const member = () => {
      const child = spawn(process.execPath, [BIN, 'start'], { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
      cleanups.push(async () => {
        if (child.exitCode === null) child.kill('SIGCONT');
        if (child.exitCode === null) child.kill('SIGKILL');
        await exited;
      });
      return { child, exited, stderr: () => stderr };
    };

    // The survivor first, while nothing is subscribed: its next chance at the day is its next minute's tick.
    const survivor = member();
    await discord.waitForReady(1, 30_000);
    // The pause must begin well before a minute boundary, to leave the survivor its claim at that minute's tick; the
    // subscription is stored after that minute's tick, so the survivor's first chance at the day is the next one.
    if (new Date().getUTCSeconds() > 45) await sleep((61 - new Date().getUTCSeconds()) * 1000);
    const day = utcDateOf(new Date());
    const seeding = await SubscriptionStore.open(location);
    try {
      await seeding.upsert(guild.id, channel, 100, () => makeSubscription({ guildId: guild.id, channelId: channel, channelName: 'words', time: '00:00' }));
      // An attempt of earlier today that ended without a word: the next one looks in the channel first.
      const earlier = `${day}T00:00:30.000Z`;
      await seeding.putDelivery({ channelId: channel, day, state: 'sending', nonce: 'n', attempts: 1, attemptStartedAt: earlier, updatedAt: earlier });
    } finally {
      await seeding.close();
    }
    const look = discord.injectFault({ route: new RegExp(`^GET /channels/${channel}/messages`), delayMs: 1_000, times: 1 });
    const paused = member();
    await until('the member looked in the channel under its claim', () => look.hits === 1 || paused.child.exitCode !== null, 30_000);
    paused.child.kill('SIGSTOP');
    const stoppedAt = Date.now();
    await until('the survivor posted the day', () => discord.messagesIn(channel).length > 0, 75_000);
    const boundary = Math.ceil(stoppedAt / 60_000) * 60_000;
    expect(Date.now(), 'the pause covered a minute boundary of the scheduler').toBeGreaterThan(boundary);
    expect(Date.now() - stoppedAt).toBeGreaterThan(LEASE_MS);
    const pausedMs = Date.now() - stoppedAt;
    paused.child.kill('SIGCONT');
    const resumedMinute = Math.floor(Date.now() / 60_000);

    // Resumed, it either finds its claim may have run out, or (stopped longer than its request timeout, which then
    // fires first and is retried) looks again and finds the other's post: it records that, and posts nothing.
    const gaveUp = "the claim on this channel's day may have run out";
    const found = 'an earlier attempt had posted; recorded it instead of posting again';
    await until('the resumed member left the day alone', () => paused.stderr().includes(gaveUp) || paused.stderr().includes(found), 30_000);
    // The minute it slept through beats late, on resume, and joins the pass still running (the one it was stopped in)
    // rather than starting a second beside it: one pass, which ends with nothing posted.
    const metricsUrl = /"msg":"health at (http:\/\/[^/"]+)\/healthz/.exec(paused.stderr())?.[1];
    expect(metricsUrl, paused.stderr()).toBeDefined();
    const ticks = async () => Number(/wotd_bot_scheduler_ticks_total\{outcome="ok"\} (\d+)/.exec(await (await fetch(`${metricsUrl}/metrics`)).text())?.[1] ?? 0);
    await until('the pass it was stopped in ended', async () => (await ticks()) >= 1, 15_000);
    await sleep(500);
    const passes = await ticks();
    // Within the minute it resumed in (a later minute's tick is a pass of its own).
    if (Math.floor(Date.now() / 60_000) === resumedMinute) expect(passes, 'the late beat started no second pass beside it').toBe(1);
    const posts = discord.messagesIn(channel).length;
    figures.duplicated = Math.max(0, posts - 1);
    figures.lost = posts === 0 ? 1 : 0;
    const store = await SubscriptionStore.open(location);
    try {
      expect(await store.getDelivery(channel, day)).toMatchObject({ state: 'sent', messageId: discord.messagesIn(channel)[0]?.id });
    } finally {
      await store.close();
    }
    expect(paused.stderr(), 'a pause is not a clock jump').not.toContain('wall clock jumped');
    for (const bot of [paused, survivor]) bot.child.kill('SIGTERM');
    expect(await paused.exited, paused.stderr()).toBe(0);
    expect(await survivor.exited, survivor.stderr()).toBe(0);
    const minute = new Date(boundary).toISOString().slice(11, 16);
    const what = paused.stderr().includes(gaveUp) ? 'gave its claim up' : "found the other's post and recorded it";
    return `paused ${Math.round(pausedMs / 1000)} s (lease ${LEASE_MS / 1000} s, past the ${minute} tick): resumed, ${what}, posted nothing (its late beat joined that pass); the other posted the day once`;
  }, 150_000);
});
