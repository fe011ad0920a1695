import { afterEach, describe, expect, it } from 'vitest';
import { wotdSubscriptionsCommand } from '../../commands/wotd-subscriptions.ts';
import { createChannelPoster } from '../../src/discord/channel-poster.ts';
import { entryEmbed } from '../../src/replies/embeds.ts';
import type { BotServices, CommandContext, OutgoingMessage } from '../../src/replies/interactions.ts';
import { createBotMetrics } from '../../src/metrics/registry.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { createSubscriptionService } from '../../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { restFor, startDiscordServer } from '../support/discord/index.ts';
import { captureLogger, entryFor, FixedLookup, makeSubscription, tempStore } from './helpers.ts';

/**
 * Finding 4 (second half) of issue 20: a 400 from Discord on a daily post is a refusal of the message, which the
 * same message meets all day. The day is recorded as refused with Discord's code and message, shown by
 * /wotd-subscriptions and counted, and the subscription stays active for the next day. 403 and 404 keep their own
 * handling (failing for days, then off; disabled at once).
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const render = (entry: ReturnType<typeof entryFor>) => entryEmbed(entry, { siteUrl: 'https://wotd.site' });
const DAY = '2026-06-15';

async function world() {
  const discord = await startDiscordServer();
  cleanups.push(() => discord.close());
  const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'daily' }, { name: 'locked' }, { name: 'gone' }] });
  const temp = tempStore();
  cleanups.push(temp.cleanup);
  const store = await SubscriptionStore.open(temp.url);
  cleanups.push(() => store.close());
  const metrics = createBotMetrics({ mode: 'discord', defaultMetrics: false });
  const scheduler = new DailyScheduler({
    store,
    lookup: new FixedLookup(),
    poster: createChannelPoster(restFor(discord, { retries: 1, timeout: 5_000 })),
    render,
    logger: captureLogger().logger,
    concurrency: 4,
    observer: metrics.scheduler,
  });
  return { discord, guild, store, metrics, scheduler };
}

/** /wotd-subscriptions as an admin of the server runs it, at `at`; returns the text shown. */
async function listing(store: SubscriptionStore, guildId: string, at: Date): Promise<string> {
  const answers: OutgoingMessage[] = [];
  const context: CommandContext = {
    commandName: 'wotd-subscriptions',
    invoker: { userId: '400000000000000001', guildId, channelId: '1', canManageChannels: true },
    options: {
      getString: () => null,
      getInteger: () => null,
      getBoolean: () => null,
      getSubcommand: () => null,
      getChannel: () => null,
      getRole: () => null,
    },
    acknowledged: false,
    defer: async () => undefined,
    respond: async (message) => {
      answers.push(message);
    },
  };
  const services: BotServices = {
    lookup: new FixedLookup() as unknown as BotServices['lookup'],
    siteUrl: 'https://wotd.site',
    subscriptions: createSubscriptionService({ store, limit: 5, now: () => at }),
  };
  await wotdSubscriptionsCommand.execute(context, services);
  return answers.map((answer) => [answer.content ?? '', ...(answer.embeds ?? []).map((embed) => embed.description ?? '')].join('\n')).join('\n');
}

describe('a daily post Discord refuses (400)', () => {
  for (const [code, message] of [
    [50035, 'Invalid Form Body'],
    [50006, 'Cannot send an empty message'],
  ] as const) {
    it(`${code}: recorded as refused with Discord's code and message, not retried that day, shown and counted; the next day posts`, async () => {
      const { discord, guild, store, metrics, scheduler } = await world();
      const daily = guild.channelId('daily');
      await store.upsert(guild.id, daily, 50, () => makeSubscription({ guildId: guild.id, channelId: daily }));
      const refusing = discord.injectFault({ route: 'POST /channels/:id/messages', channelId: daily, status: 400, code, message });

      expect(await scheduler.tick(new Date(`${DAY}T09:00:00Z`))).toMatchObject({ sent: 0, failed: 1, retrying: 0 });
      expect(await store.getDelivery(daily, DAY)).toMatchObject({
        state: 'failed',
        refused: { status: 400, code, message: expect.stringContaining(message) },
      });
      expect((await store.get(daily))?.status).toEqual({ state: 'active' });
      expect(await metrics.text()).toMatch(/^wotd_bot_daily_posts_total\{outcome="refused"\} 1$/m);
      const shown = await listing(store, guild.id, new Date(`${DAY}T10:00:00Z`));
      expect(shown).toContain(`Discord refused today's post: ${message}`);
      expect(shown).toContain(`error ${code}`);

      // Not asked again all day, though the refusal is still in place.
      for (const hour of ['09:01', '09:30', '12:00', '23:59']) {
        expect(await scheduler.tick(new Date(`${DAY}T${hour}:00Z`))).toMatchObject({ total: 0 });
      }
      expect(refusing.hits).toBe(1);
      refusing.remove();
      expect(await scheduler.tick(new Date('2026-06-16T09:00:00Z'))).toMatchObject({ sent: 1 });
      expect(discord.messagesIn(daily).map((post) => post.embeds[0]?.title)).toEqual([render(entryFor('2026-06-16')).title]);
      expect((await store.get(daily))?.status).toEqual({ state: 'active' });
    });
  }

  it('keeps 403 (failing, retried the next day) and 404 Unknown Channel (disabled) as they were', async () => {
    const { discord, guild, store, scheduler } = await world();
    const locked = guild.channelId('locked');
    const gone = guild.channelId('gone');
    for (const channelId of [locked, gone]) await store.upsert(guild.id, channelId, 50, () => makeSubscription({ guildId: guild.id, channelId }));
    discord.injectFault({ channelId: locked, status: 403, code: 50013 });
    discord.deleteChannel(gone);

    expect(await scheduler.tick(new Date(`${DAY}T09:00:00Z`))).toMatchObject({ failed: 2 });
    expect((await store.get(locked))?.status).toMatchObject({ state: 'failing', failedDays: 1, reason: { kind: 'missingPermissions' } });
    expect((await store.get(gone))?.status).toMatchObject({ state: 'disabled', reason: { kind: 'channelGone' } });
    expect(await store.getDelivery(locked, DAY)).not.toHaveProperty('refused');
  });
});
