/**
 * npm run bench:fanout — 10,000 channels due at the same minute, posted through discord.js's REST manager to the
 * local Discord-compatible server (50 requests/s global limit, per-channel message buckets), with subscriptions and
 * delivery records in a real SQLite store. Prints posts/s, seconds, 429s and peak RSS, then one `bench fanout:` line.
 *
 * Options (environment): FANOUT_CHANNELS (10000), DELIVERY_CONCURRENCY (20).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChannelPoster } from '../src/discord/channel-poster.ts';
import { entryEmbed } from '../src/discord/embeds.ts';
import { createLogger } from '../src/logger.ts';
import { DailyScheduler } from '../src/schedule/scheduler.ts';
import { SubscriptionStore } from '../src/schedule/subscription-store.ts';
import type { Subscription } from '../src/schedule/subscription.ts';
import type { Entry } from '../src/wotd/entry.ts';
import type { Lookup } from '../src/wotd/lookup.ts';
import { restFor, startDiscordServer } from '../test/support/discord/index.ts';

const CHANNELS = Number(process.env.FANOUT_CHANNELS ?? 10_000);
const CONCURRENCY = Number(process.env.DELIVERY_CONCURRENCY ?? 20);
const CHANNELS_PER_GUILD = 500;
const DUE_AT = new Date('2026-06-15T09:00:00Z');
const DAY = '2026-06-15';

const entry: Entry = {
  date: DAY,
  word: 'petrichor',
  pos: 'noun',
  ipa: '/ˈpɛt.ɹɪ.kɔː/',
  definition: 'The pleasant smell that accompanies the first rain after a dry spell.',
};

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 100);

const log = (text: string) => process.stdout.write(`${text}\n`);

const dir = mkdtempSync(join(tmpdir(), 'wotd-bench-fanout-'));
const discord = await startDiscordServer({ globalLimitPerSecond: 50 });
const store = await SubscriptionStore.open(`sqlite://${join(dir, 'store.sqlite')}`);
try {
  log(`bench fanout: setting up ${CHANNELS} channels in ${Math.ceil(CHANNELS / CHANNELS_PER_GUILD)} servers…`);
  const subscriptions: Subscription[] = [];
  for (let start = 0; start < CHANNELS; start += CHANNELS_PER_GUILD) {
    const count = Math.min(CHANNELS_PER_GUILD, CHANNELS - start);
    const guild = discord.addGuild({
      name: `Bench ${start / CHANNELS_PER_GUILD}`,
      channels: Array.from({ length: count }, (_, i) => ({ name: `words-${start + i}` })),
    });
    for (const channel of guild.channels) {
      if (channel.type !== 0) continue;
      subscriptions.push({
        guildId: guild.id,
        channelId: channel.id,
        channelName: channel.name,
        time: '09:00',
        timeZone: 'UTC',
        roleId: null,
        createdBy: 'bench',
        createdAt: '2026-06-01T00:00:00.000Z',
        enabledAt: '2026-06-01T00:00:00.000Z',
        status: { state: 'active' },
      });
    }
  }
  const setupStarted = performance.now();
  for (let start = 0; start < subscriptions.length; start += 200) {
    await Promise.all(
      subscriptions.slice(start, start + 200).map((subscription) =>
        store.upsert(subscription.guildId, subscription.channelId, CHANNELS, () => subscription),
      ),
    );
  }
  log(`bench fanout: ${subscriptions.length} subscriptions stored in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`);

  const logger = createLogger({ level: 'info' });
  const rest = restFor(discord);
  let rateLimited = 0;
  rest.on('rateLimited', () => {
    rateLimited += 1;
  });
  let lookups = 0;
  const scheduler = new DailyScheduler({
    store,
    lookup: {
      async getEntry(): Promise<Lookup<Entry>> {
        lookups += 1;
        return { value: entry, stale: false, fromCache: false };
      },
    },
    poster: createChannelPoster(rest),
    render: (value) => entryEmbed(value, { siteUrl: 'https://wotd.site' }),
    logger,
    concurrency: CONCURRENCY,
    progressEvery: 1000,
  });

  const started = performance.now();
  const report = await scheduler.tick(DUE_AT);
  const seconds = (performance.now() - started) / 1000;
  const again = await scheduler.tick(new Date(DUE_AT.getTime() + 60_000));

  const stats = discord.stats();
  const serverErrors = discord.requests.filter((request) => request.status >= 500).length;
  const messages = discord.allMessages();
  const channelsWithPost = new Set(messages.map((message) => message.channelId));
  const postsPerSecond = report.sent / seconds;
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const peakRssMb = peakRss / 1024 / 1024;

  log(`bench fanout: sent ${report.sent}, failed ${report.failed}, retrying ${report.retrying} of ${report.total} due (entry fetched ${lookups}×)`);
  log(`bench fanout: ${messages.length} messages in ${channelsWithPost.size} channels; a second tick found ${again.total} due`);
  log(`bench fanout: ${postsPerSecond.toFixed(1)} posts/s (target ≥ 45) over ${seconds.toFixed(1)} s`);
  log(`bench fanout: 429s received: ${stats.global429} global (target 0), ${stats.bucket429} per-route; discord.js waited out ${rateLimited} limits`);
  log(`bench fanout: busiest second accepted ${stats.maxAcceptedPerSecond} requests; ${serverErrors} answered 5xx; peak RSS ${peakRssMb.toFixed(0)} MB`);
  if (messages.length !== report.sent || channelsWithPost.size !== messages.length) {
    log('bench fanout: WARNING: messages and recorded posts disagree');
    process.exitCode = 1;
  }
  log(
    `bench fanout: channels=${subscriptions.length} posts=${messages.length} posts_per_s=${postsPerSecond.toFixed(1)} ` +
      `seconds=${seconds.toFixed(1)} global_429=${stats.global429} route_429=${stats.bucket429} peak_rss_mb=${peakRssMb.toFixed(0)}`,
  );
} finally {
  clearInterval(sampler);
  await store.close();
  await discord.close();
  rmSync(dir, { recursive: true, force: true });
}
