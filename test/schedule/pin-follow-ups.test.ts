import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDailyPoster } from '../../src/discord/daily-poster.ts';
import type { TurnPriority } from '../../src/schedule/poster.ts';
import { dailyPostRendering } from '../../src/replies/daily-embeds.ts';
import { slotFor } from '../../src/schedule/due.ts';
import { owedPinOf, PIN_OWNER_GRACE_MS } from '../../src/schedule/pin-follow-ups.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { dmTarget, type DeliveryRecord } from '../../src/schedule/subscription.ts';
import { DEFAULT_BOT_PERMISSIONS, startDiscordServer } from '../support/discord/index.ts';
import { startBotOnServer } from './bot-on-server.ts';
import { makeSubscription } from './helpers.ts';
import { reviewReminderPoster } from '../../src/learning/review-reminder.ts';
import { savePoster } from '../../src/learning/save-poster.ts';
import type { ChannelPoster } from '../../src/schedule/poster.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ADMIN = '500000000000000001';
const PIN = 'PUT /channels/:channel_id/messages/pins/:message_id';
const POST = 'POST /channels/:channel_id/messages';
/** How long a wait for the posts may take on a loaded machine (a bound, not a measure). */
const SETTLE = { timeout: 10_000, interval: 20 };

/** Two text channels subscribed with `pin` at 09:00, and schedulers made on demand over one store (a "restart"). */
async function world() {
  const discord = await startDiscordServer();
  cleanups.push(() => discord.close());
  const guild = discord.addGuild({
    name: 'Words',
    roles: [
      { name: 'admins', permissions: PermissionFlagsBits.ManageChannels },
      { name: 'posting', permissions: DEFAULT_BOT_PERMISSIONS | PermissionFlagsBits.PinMessages },
    ],
    members: [{ id: ADMIN, username: 'admin', roles: ['admins'] }],
    botMember: { roles: ['posting'] },
    channels: [{ name: 'general' }, { name: 'words' }, { name: 'news' }],
  });
  let clock = new Date('2026-06-15T08:00:00Z');
  const started = await startBotOnServer(discord, cleanups, { daily: { concurrency: 1, now: () => clock }, dailyPosts: false });
  const channels = [guild.channelId('words'), guild.channelId('news')];
  for (const channel of channels) {
    const response = await discord.invokeCommand({ name: 'wotd-subscribe', options: { channel, pin: true, time: '09:00' }, channelId: guild.channelId('general'), user: ADMIN }).waitForResponse();
    expect(response.content ?? response.embeds[0]?.description).toContain('pinned');
  }
  /**
   * A scheduler of one delivery slot (DELIVERY_CONCURRENCY=1) whose pins' turns of the pace (`after`) come only when
   * `openPins` is called: a pin whose turn is slow, as when posts keep the pace busy.
   */
  let pinFailures = 0;
  const scheduler = (options: { gatePins?: boolean } = {}) => {
    let openPins = () => {};
    const gate = options.gatePins ? new Promise<void>((resolve) => (openPins = resolve)) : Promise.resolve();
    const waitForTurn = async (priority?: TurnPriority) => {
      if (priority === 'after') await gate;
    };
    const daily = new DailyScheduler({
      store: started.daily.store,
      lookup: started.lookup,
      poster: createDailyPoster(started.bot.client.rest, { logger: started.logger, waitForTurn }),
      ...dailyPostRendering('https://wotd.site'),
      logger: started.logger,
      concurrency: 1,
      observer: { pinFailed: () => (pinFailures += 1) },
    });
    const tick = (at: string) => {
      clock = new Date(at);
      return daily.tick(clock);
    };
    return { daily, tick, openPins: () => openPins() };
  };
  const routes = (route: string) => discord.requests.filter((request) => request.route === route);
  const record = (channelId: string) => started.daily.store.getDelivery(channelId, '2026-06-15');
  return { discord, channels, scheduler, routes, record, pinFailures: () => pinFailures, ...started };
}

describe('a daily post\'s pin, made after the post is recorded', () => {
  it("does not hold the post's delivery slot: with one slot and a slow pin, the next channel's post goes before the pin", async () => {
    const { discord, channels, scheduler, routes, record } = await world();
    const [first, second] = channels as [string, string];
    const { tick, openPins } = scheduler({ gatePins: true });
    const ticked = tick('2026-06-15T09:00:00Z');
    // Both posts are made while the first pin still waits for its turn.
    await vi.waitFor(() => expect(routes(POST)).toHaveLength(2), SETTLE);
    expect(routes(PIN)).toHaveLength(0);
    // Each post is recorded sent as it is made, owing its pin: a crash now posts nothing again.
    await vi.waitFor(async () => expect(await record(second)).toMatchObject({ state: 'sent', pinOwed: {} }), SETTLE);
    expect(await record(first)).toMatchObject({ state: 'sent', pinOwed: {} });

    openPins();
    expect(await ticked).toMatchObject({ sent: 2, failed: 0, retrying: 0 });
    expect(routes(PIN)).toHaveLength(2);
    for (const channel of channels) {
      expect(discord.messagesIn(channel).map((message) => message.pinned)).toEqual([true]);
      const settled = await record(channel);
      expect(settled).toMatchObject({ state: 'sent' });
      expect(settled).not.toHaveProperty('pinOwed');
    }
    // Settled: the channels are not due again today, and nothing is pinned twice.
    expect(await tick('2026-06-15T09:30:00Z')).toMatchObject({ total: 0, sent: 0 });
    expect(routes(PIN)).toHaveLength(2);
  });

  it('asks for no pin in a DM: a DM subscription with `pin` set is posted and recorded sent, owing nothing', async () => {
    const { discord, channels, scheduler, routes, record, daily } = await world();
    const user = discord.defaultUser.id;
    const dm = dmTarget(user);
    await daily.store.upsert(dm.guildId, dm.channelId, 5, () => makeSubscription({ ...dm, pin: true }));
    const { tick } = scheduler();
    expect(await tick('2026-06-15T09:00:00Z')).toMatchObject({ sent: 3, failed: 0, retrying: 0 });
    expect(discord.messagesIn(discord.dmChannelOf(user))).toHaveLength(1);
    const sent = await record(dm.channelId);
    expect(sent).toMatchObject({ state: 'sent' });
    expect(sent).not.toHaveProperty('pinOwed');
    expect(sent).not.toHaveProperty('pinFailures');
    expect(routes(PIN)).toHaveLength(channels.length);
  });

  it('survives a crash between the post and its pin: the restarted bot makes the pin once, and never posts again', async () => {
    const { discord, channels, scheduler, routes, record } = await world();
    // The first process posts both channels, and dies with both pins owed (their turns never come).
    void scheduler({ gatePins: true }).tick('2026-06-15T09:00:00Z');
    await vi.waitFor(async () => {
      for (const channel of channels) expect(await record(channel)).toMatchObject({ state: 'sent', pinOwed: {} });
    }, SETTLE);
    expect(routes(PIN)).toHaveLength(0);

    // The next process's first tick finds the channels still due, owing no post but their pins.
    const { tick } = scheduler();
    expect(await tick('2026-06-15T09:05:00Z')).toMatchObject({ total: 0, sent: 0 });
    expect(routes(POST)).toHaveLength(2);
    expect(routes(PIN)).toHaveLength(2);
    for (const channel of channels) {
      expect(discord.messagesIn(channel).map((message) => message.pinned)).toEqual([true]);
      expect(await record(channel)).not.toHaveProperty('pinOwed');
    }
    expect(await tick('2026-06-15T09:10:00Z')).toMatchObject({ total: 0 });
    expect(routes(PIN)).toHaveLength(2);

    // The next day's post unpins the post pinned late, as any other.
    expect(await tick('2026-06-16T09:00:00Z')).toMatchObject({ sent: 2 });
    for (const channel of channels) expect(discord.messagesIn(channel).map((message) => message.pinned)).toEqual([false, true]);
  });

  it('at shutdown, lets the pin in flight finish and leaves the others owed, logged; the next start makes them', async () => {
    const { discord, channels, scheduler, routes, record, lines } = await world();
    const [first, second] = channels as [string, string];
    const stopping = scheduler({ gatePins: true });
    const ticked = stopping.tick('2026-06-15T09:00:00Z');
    await vi.waitFor(async () => expect(await record(second)).toMatchObject({ state: 'sent', pinOwed: {} }), SETTLE);
    const stopped = stopping.daily.stop();
    stopping.openPins();
    await stopped;
    expect(await ticked).toMatchObject({ sent: 2 });
    // One pin worker (one slot): the first channel's pin was in flight, the second's not started.
    expect(discord.messagesIn(first).map((message) => message.pinned)).toEqual([true]);
    expect(await record(first)).not.toHaveProperty('pinOwed');
    expect(discord.messagesIn(second).map((message) => message.pinned)).toEqual([false]);
    expect(await record(second)).toMatchObject({ state: 'sent', pinOwed: {} });
    expect(lines.filter((line) => String(line.msg).startsWith('daily pins left owed'))).toMatchObject([{ leftOwed: 1 }]);

    expect(await scheduler().tick('2026-06-15T09:01:00Z')).toMatchObject({ total: 0 });
    expect(discord.messagesIn(second).map((message) => message.pinned)).toEqual([true]);
    expect(routes(POST)).toHaveLength(2);
    expect(routes(PIN)).toHaveLength(2);
  });
});

describe('a pin whose settled record cannot be written', () => {
  it('is logged as an error and counted, and stays owed: the next tick pins again and settles it', async () => {
    const { channels, scheduler, routes, record, lines, pinFailures, daily } = await world();
    const store = daily.store;
    const put = store.putDelivery.bind(store);
    let failing = true;
    store.putDelivery = (written, move) =>
      failing && written.state === 'sent' && written.pinOwed === undefined ? Promise.reject(new Error('disk I/O error')) : put(written, move);
    const { tick } = scheduler();
    expect(await tick('2026-06-15T09:00:00Z')).toMatchObject({ sent: 2 });
    expect(routes(PIN)).toHaveLength(2);
    expect(pinFailures()).toBe(2);
    expect(lines.filter((line) => line.msg === "the daily post's pin could not be recorded; the next tick makes it again")).toHaveLength(2);
    for (const channel of channels) expect(await record(channel)).toMatchObject({ state: 'sent', pinOwed: {} });

    failing = false;
    expect(await tick('2026-06-15T09:01:00Z')).toMatchObject({ total: 0 });
    expect(routes(PIN)).toHaveLength(4);
    expect(routes(POST)).toHaveLength(2);
    for (const channel of channels) expect(await record(channel)).not.toHaveProperty('pinOwed');
    expect(pinFailures()).toBe(2);
  });
});

describe('owedPinOf: which due channel still owes its pin', () => {
  const subscription = makeSubscription({ pin: true });
  const slot = slotFor(subscription, '2026-06-15');
  const sent: DeliveryRecord = { channelId: 'c1', day: '2026-06-15', state: 'sent', nonce: 'n', attempts: 1, messageId: 'm1', pinOwed: { unpin: 'm0' }, updatedAt: '2026-06-15T09:00:00.000Z' };
  const at = (ms: number) => new Date(Date.parse(sent.updatedAt) + ms);

  it('is the latest sent post owing its pin; none once the pin is made', () => {
    expect(owedPinOf(subscription, [slot], () => sent, 1, at(1000), false)).toMatchObject({ record: { messageId: 'm1', pinOwed: { unpin: 'm0' } }, slot, dueAt: 1, pickedUp: true });
    const { pinOwed, ...pinned } = sent;
    expect(pinOwed).toBeDefined();
    expect(owedPinOf(subscription, [slot], () => pinned, 1, at(1000), false)).toBeNull();
  });

  it("in cluster mode, leaves a pin owed lately to the process that made the post, and takes over one owed for long", () => {
    expect(owedPinOf(subscription, [slot], () => sent, 1, at(PIN_OWNER_GRACE_MS - 1000), true)).toBe('later');
    expect(owedPinOf(subscription, [slot], () => sent, 1, at(PIN_OWNER_GRACE_MS + 1000), true)).toMatchObject({ record: { messageId: 'm1' } });
  });
});

describe('the posters that decorate the daily poster', () => {
  it('keep its pin (the scheduler pins only through a poster that can)', async () => {
    const pinned: string[] = [];
    const inner: ChannelPoster = {
      post: () => Promise.resolve({ messageId: 'm1' }),
      findEarlierPost: () => Promise.resolve(null),
      pin: (target) => {
        pinned.push(target.messageId);
        return Promise.resolve([]);
      },
    };
    const subscriptionOf = () => Promise.resolve(null);
    const saving = savePoster(inner, { subscriptionOf, button: () => ({ customId: 'save', label: 'Save' }) });
    const reminding = reviewReminderPoster(saving, { store: { countDue: () => Promise.resolve(0) }, subscriptionOf, line: () => '', now: () => 0 });
    expect(await reminding.pin?.({ channelId: 'c1', messageId: 'm1' })).toEqual([]);
    expect(pinned).toEqual(['m1']);
  });
});
