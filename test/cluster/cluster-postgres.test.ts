import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { startWotdService } from '../../src/service/server.ts';
import { utcDateOf } from '../../src/wotd/dates.ts';
import { makeSubscription } from '../schedule/helpers.ts';
import { startDiscordServer } from '../support/discord/index.ts';
import { postgresAdmin } from '../support/postgres.ts';
import { keysUnder } from '../support/redis.ts';
import { postgresClusterBackend, schemaOf, storeEnv } from '../support/store-backends.ts';
import { childEnv } from '../support/child-env.ts';

/**
 * Cluster mode on a PostgreSQL store, as operators run it: two `wotd-bot start` processes with STORE_URL=postgres://…
 * and REDIS_URL. The subscriptions, delivery records, cache and the claims on each day's post are in PostgreSQL;
 * Redis holds only what coordinates the processes (locks, budget, pace).
 */

const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');
const WORDS = resolve(import.meta.dirname, '../../data/words.sqlite');
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

postgresClusterBackend.describe('two bot processes in cluster mode on PostgreSQL', () => {
  it('post each channel once, keep the durable data and the claims in PostgreSQL, and nothing of it on Redis', async () => {
    const location = await postgresClusterBackend.fresh();
    const schema = schemaOf(location);
    const discord = await startDiscordServer();
    cleanups.push(() => discord.close());
    const service = await startWotdService({ dbPath: WORDS, variant: 'A', port: 0, rateLimitPerMinute: 0 });
    cleanups.push(() => service.close());
    const guild = discord.addGuild({ name: 'Words', channels: Array.from({ length: 16 }, (_, i) => ({ name: `words-${i}` })) });
    const channelIds = guild.channels.map((channel) => channel.id);
    const seeding = await SubscriptionStore.open(location);
    // Due since midnight UTC: every channel is owed today's post from the first tick on.
    for (const channelId of channelIds) await seeding.upsert(guild.id, channelId, 100, () => makeSubscription({ guildId: guild.id, channelId, time: '00:00' }));
    await seeding.close();

    const env = childEnv({
      ...storeEnv(location),
      DISCORD_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      WOTD_API_URL: service.url,
      WOTD_API_VARIANT: 'A',
      LOG_LEVEL: 'info',
    });
    const bots = [0, 1].map(() => {
      const child = spawn(process.execPath, [BIN, 'start'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
      cleanups.push(() => void child.kill('SIGKILL'));
      return { child, exited, stderr: () => stderr };
    });

    const day = utcDateOf(new Date());
    try {
      await discord.waitForReady(2, 30_000);
      await expect.poll(() => new Set(discord.allMessages().map((message) => message.channelId)).size, { timeout: 60_000, interval: 250 }).toBe(16);
      // Time for a second post to show, were there one.
      await new Promise((done) => setTimeout(done, 1_000));
    } finally {
      for (const bot of bots) bot.child.kill('SIGTERM');
    }
    for (const bot of bots) expect(await bot.exited, bot.stderr()).toBe(0);

    expect(channelIds.map((channelId) => discord.messagesIn(channelId).length)).toEqual(channelIds.map(() => 1));
    const store = await SubscriptionStore.open(location);
    try {
      const records = await store.getDeliveries(channelIds, day);
      expect(records.map((record, i) => record?.state === 'sent' && record.messageId === discord.messagesIn(channelIds[i] ?? '')[0]?.id)).toEqual(channelIds.map(() => true));
    } finally {
      await store.close();
    }
    // Both processes claimed in PostgreSQL (each claim a row, deleted when its post was done).
    const claimed = async () =>
      Number((await postgresAdmin().query<{ n: string }>("SELECT n_tup_ins AS n FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'wotd_delivery_claims'", [schema])).rows[0]?.n ?? 0);
    await expect.poll(claimed, { timeout: 5_000 }).toBeGreaterThanOrEqual(16);
    const onRedis = (await keysUnder(location.keyPrefix ?? '')).filter((key) => /(subscriptions|deliveries|wotd-cache)::/.test(key));
    expect(onRedis).toEqual([]);
    for (const bot of bots) {
      expect(bot.stderr()).toContain('"store":"PostgreSQL","msg":"running as a cluster member on Redis"');
      // The durable data is not on Redis: its persistence does not matter, and is not looked at.
      expect(bot.stderr()).not.toContain('Redis keeps');
    }
  }, 120_000);
});
