import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createChannelPoster, dmChannels, postsPerSecondFor } from '../../src/discord/channel-poster.ts';
import { deliveryNonce, isDeliveryError } from '../../src/schedule/poster.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { restFor, startDiscordServer, type DiscordServer } from '../support/discord/index.ts';
import { render, schedulerFor } from './discord-scheduler.ts';
import { sqliteBackend, storeBackends, type StoreBackend } from '../support/store-backends.ts';
import { captureLogger, entryFor, FixedLookup, makeSubscription } from './helpers.ts';

/** The scheduler and the discord.js REST poster against the local Discord-compatible server. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function world(options: Parameters<typeof startDiscordServer>[0] = {}, backend: StoreBackend = sqliteBackend) {
  const discord = await startDiscordServer(options);
  cleanups.push(() => discord.close());
  const guild = discord.addGuild({
    name: 'Words',
    roles: [{ name: 'word-fans' }],
    channels: [
      { name: 'daily' },
      { name: 'news', type: 5 },
      { name: 'locked', permissionOverwrites: [{ id: '@bot', deny: PermissionFlagsBits.SendMessages }] },
      { name: 'hidden', permissionOverwrites: [{ id: '@bot', deny: PermissionFlagsBits.ViewChannel }] },
    ],
  });
  const location = await backend.fresh();
  const store = await SubscriptionStore.open(location);
  cleanups.push(() => store.close());
  return { discord, guild, store, location };
}


async function subscribe(store: SubscriptionStore, guildId: string, channelId: string, roleId: string | null = null) {
  await store.upsert(guildId, channelId, 50, () => makeSubscription({ guildId, channelId, roleId }));
}

const nine = new Date('2026-06-15T09:00:00Z');

describe('daily posts through the local Discord-compatible server', () => {
  it('posts the /wotd embed with the role mention, pinging only that role, with nonce and enforce_nonce', async () => {
    const { discord, guild, store } = await world();
    const daily = guild.channelId('daily');
    const news = guild.channelId('news');
    const role = guild.roleId('word-fans');
    await subscribe(store, guild.id, daily, role);
    await subscribe(store, guild.id, news);
    const { scheduler } = schedulerFor(discord, store);

    expect(await scheduler.tick(nine)).toMatchObject({ sent: 2 });
    const [message] = discord.messagesIn(daily);
    expect(message).toMatchObject({
      content: `<@&${role}>`,
      embeds: [expect.objectContaining({ title: render(entryFor('2026-06-15')).title, description: render(entryFor('2026-06-15')).description })],
      allowedMentions: { parse: [], roles: [role] },
      nonce: deliveryNonce(daily, '2026-06-15'),
    });
    expect(discord.posts(daily)[0]?.body).toMatchObject({ enforce_nonce: true });
    expect(discord.messagesIn(news)).toHaveLength(1);
    expect(discord.messagesIn(news)[0]?.allowedMentions).toEqual({ parse: [], roles: [] });
    expect(await store.getDelivery(daily, '2026-06-15')).toMatchObject({ state: 'sent', messageId: message?.id });
  });

  it('remembers a bounded number of DM channels: the oldest is forgotten, and opening it again gives the same channel', async () => {
    const { discord, guild } = await world();
    const users = ['700000000000000001', '700000000000000002', '700000000000000003'];
    for (const [index, id] of users.entries()) discord.addMember(guild.id, { id, username: `member-${index}` });
    const opens = () => discord.requests.filter((request) => request.route === 'POST /users/@me/channels').length;
    const channelOf = dmChannels(restFor(discord), 2);

    const first = await channelOf(`dm:${users[0]}`);
    await channelOf(`dm:${users[1]}`);
    expect(await channelOf(`dm:${users[0]}`)).toBe(first);
    expect(opens()).toBe(2);
    await channelOf(`dm:${users[2]}`);
    expect(await channelOf(`dm:${users[0]}`)).toBe(first);
    expect(opens()).toBe(4);
    expect(await channelOf(guild.channelId('daily'))).toBe(guild.channelId('daily'));
    expect(opens()).toBe(4);
  });

  it('refuses a DM channel answer without a channel id, posting to no made-up channel', async () => {
    const { discord, guild } = await world();
    const member = '700000000000000009';
    discord.addMember(guild.id, { id: member, username: 'member-9' });
    discord.injectFault({ route: 'POST /users/@me/channels', answer: { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{}' }, times: 1 });
    const poster = createChannelPoster(restFor(discord, { retries: 0 }), { postsPerSecond: 0, selfId: discord.botUser.id });
    const message = { channelId: `dm:${member}`, embeds: [render(entryFor('2026-06-14'))], mentionRoleId: null, nonce: 'dm-1' };
    const failure = await poster.post(message).then(
      () => new Error('expected the post to fail'),
      (error: unknown) => error,
    );
    expect(isDeliveryError(failure) && failure.kind).toBe('transient');
    expect(failure).toMatchObject({ kind: 'transient', reason: { kind: 'noDmChannel' } });
    expect(discord.requests.filter((request) => request.route === 'POST /channels/:channel_id/messages')).toEqual([]);
    // The next post opens the channel again, and lands.
    await poster.post(message);
    expect(discord.messagesIn(discord.dmChannelOf(member))).toHaveLength(1);
  });

  it('403: missing access or permissions marks the subscription failing with the reason', async () => {
    const { discord, guild, store } = await world();
    const locked = guild.channelId('locked');
    const hidden = guild.channelId('hidden');
    const daily = guild.channelId('daily');
    await subscribe(store, guild.id, locked);
    await subscribe(store, guild.id, hidden);
    await subscribe(store, guild.id, daily);
    discord.injectFault({ channelId: daily, status: 403, code: 50001, times: 1 });
    const { scheduler } = schedulerFor(discord, store);

    expect(await scheduler.tick(nine)).toMatchObject({ failed: 3, sent: 0 });
    expect((await store.get(locked))?.status).toMatchObject({ state: 'failing', failedDays: 1, reason: { kind: 'missingPermissions' } });
    expect((await store.get(hidden))?.status).toMatchObject({ state: 'failing', reason: { kind: 'missingAccess' } });
    expect((await store.get(daily))?.status).toMatchObject({ state: 'failing', reason: { kind: 'missingAccess' } });
    // Not retried the same day; retried (and recovered where the fault is gone) the next.
    expect(await scheduler.tick(new Date('2026-06-15T12:00:00Z'))).toMatchObject({ total: 0 });
    expect(await scheduler.tick(new Date('2026-06-16T09:00:00Z'))).toMatchObject({ sent: 1, failed: 2 });
    expect((await store.get(daily))?.status).toEqual({ state: 'active' });
    expect((await store.get(locked))?.status).toMatchObject({ state: 'failing', failedDays: 2 });
    expect(discord.messagesIn(locked)).toHaveLength(0);
  });

  it('404 Unknown Channel disables the subscription at once', async () => {
    const { discord, guild, store } = await world();
    const daily = guild.channelId('daily');
    const news = guild.channelId('news');
    await subscribe(store, guild.id, daily);
    await subscribe(store, guild.id, news);
    discord.deleteChannel(daily);
    discord.injectFault({ channelId: news, status: 404 });
    const { scheduler } = schedulerFor(discord, store);
    expect(await scheduler.tick(nine)).toMatchObject({ failed: 2 });
    expect((await store.get(daily))?.status).toMatchObject({ state: 'disabled', reason: { kind: 'channelGone' } });
    expect((await store.get(news))?.status).toMatchObject({ state: 'disabled' });
    expect(await store.listGuild(guild.id)).toHaveLength(2);
  });

  it('500: a passing error is absorbed by the REST retries; a lasting one is retried later the same day', async () => {
    const { discord, guild, store } = await world();
    const daily = guild.channelId('daily');
    const news = guild.channelId('news');
    await subscribe(store, guild.id, daily);
    await subscribe(store, guild.id, news);
    discord.injectFault({ channelId: daily, status: 500, times: 1 });
    const lasting = discord.injectFault({ channelId: news, status: 503 });
    const { scheduler } = schedulerFor(discord, store);

    expect(await scheduler.tick(nine)).toMatchObject({ sent: 1, retrying: 1 });
    expect(discord.messagesIn(daily)).toHaveLength(1);
    expect(await store.getDelivery(news, '2026-06-15')).toMatchObject({ state: 'retrying', nextAttemptAt: '2026-06-15T09:01:00.000Z' });
    expect((await store.get(news))?.status).toEqual({ state: 'active' });
    lasting.remove();
    expect(await scheduler.tick(new Date('2026-06-15T09:01:00Z'))).toMatchObject({ sent: 1 });
    expect(discord.messagesIn(news)).toHaveLength(1);
  });

  it('a timeout is retried the same day: Discord had created the message, so the retry finds it and it stays one', async () => {
    const { discord, guild, store } = await world();
    const daily = guild.channelId('daily');
    await subscribe(store, guild.id, daily);
    const slow = discord.injectFault({ channelId: daily, delayMs: 600, times: 1 });
    const rest = restFor(discord, { retries: 0, timeout: 150 });
    const { logger } = captureLogger();
    const scheduler = new DailyScheduler({ store, lookup: new FixedLookup(), poster: createChannelPoster(rest), render, logger, concurrency: 2 });

    expect(await scheduler.tick(nine)).toMatchObject({ retrying: 1 });
    expect(await store.getDelivery(daily, '2026-06-15')).toMatchObject({ state: 'retrying', failure: { kind: 'timeout' } });
    await discord.waitForMessages(daily, 1);
    expect(slow.hits).toBe(1);
    expect(await scheduler.tick(new Date('2026-06-15T09:01:00Z'))).toMatchObject({ sent: 1 });
    expect(discord.posts(daily)).toHaveLength(1);
    expect(discord.messagesIn(daily)).toHaveLength(1);
  });

  it('429: rate limits are waited out by discord.js and every channel still gets exactly one post', async () => {
    const { discord, guild, store } = await world({ globalLimitPerSecond: 3 });
    // Eight posts start within ~170 ms, so at most two of the server's one-second windows see them: one gets at least 4.
    const channels = Array.from({ length: 8 }, (_, i) => discord.addChannel(guild.id, { name: `extra-${i}` }).id);
    for (const id of channels) await subscribe(store, guild.id, id);
    const { scheduler } = schedulerFor(discord, store);

    expect(await scheduler.tick(nine)).toMatchObject({ sent: 8, failed: 0, retrying: 0 });
    expect(discord.stats().global429).toBeGreaterThan(0);
    for (const id of channels) expect(discord.messagesIn(id)).toHaveLength(1);
  });

  it('under a raised global limit, posts paced from it (94%) never draw a global 429', async () => {
    const limit = 200;
    expect(postsPerSecondFor(50)).toBe(47);
    expect(postsPerSecondFor(limit)).toBe(188);
    const { discord, guild, store } = await world({ globalLimitPerSecond: limit });
    const channels = Array.from({ length: 250 }, (_, i) => discord.addChannel(guild.id, { name: `many-${i}` }).id);
    await store.putMany(channels.map((channelId) => makeSubscription({ guildId: guild.id, channelId })));
    const rest = restFor(discord, { globalRequestsPerSecond: limit });
    const poster = createChannelPoster(rest, { postsPerSecond: postsPerSecondFor(limit) });
    const { scheduler } = schedulerFor(discord, store, { poster, concurrency: 50 });

    expect(await scheduler.tick(nine)).toMatchObject({ sent: 250, failed: 0, retrying: 0 });
    expect(discord.stats()).toMatchObject({ global429: 0, bucket429: 0 });
    for (const id of channels) expect(discord.messagesIn(id)).toHaveLength(1);
  });

  it('maps REST errors to forbidden, gone and transient', async () => {
    const { discord, guild } = await world();
    const poster = createChannelPoster(restFor(discord, { retries: 0 }));
    const post = (channelId: string) =>
      poster.post({ channelId, embeds: [render(entryFor('2026-06-15'))], mentionRoleId: null, nonce: 'n1' }).then(
        () => null,
        (error: unknown) => (isDeliveryError(error) ? error.kind : 'other'),
      );
    discord.injectFault({ channelId: guild.channelId('daily'), status: 502, times: 1 });
    expect(await post(guild.channelId('daily'))).toBe('transient');
    expect(await post(guild.channelId('locked'))).toBe('forbidden');
    expect(await post(guild.channelId('hidden'))).toBe('forbidden');
    expect(await post('123456789012345678')).toBe('gone');
  });
});

// Exactly once rests on the store: the same crashes and restarts on every store the bot runs on.
for (const backend of storeBackends) {
  backend.describe(`exactly once, on ${backend.name}`, () => {
    const worldOn = (options: Parameters<typeof startDiscordServer>[0] = {}) => world(options, backend);

      it('exactly once: a crash between the send and the record, then a restart, leaves one message in the channel', async () => {
        const { discord, guild, store, location } = await worldOn();
        const daily = guild.channelId('daily');
        await subscribe(store, guild.id, daily);
        const crashing = schedulerFor(discord, store, {
          hooks: {
            afterSend() {
              throw new Error('process killed');
            },
          },
        });
        await crashing.scheduler.tick(nine);
        expect((await store.getDelivery(daily, '2026-06-15'))?.state).toBe('sending');
        await store.close();

        const reopened = await SubscriptionStore.open(location);
        cleanups.push(() => reopened.close());
        const restarted = schedulerFor(discord, reopened);
        expect(await restarted.scheduler.tick(new Date('2026-06-15T09:01:00Z'))).toMatchObject({ sent: 1 });

        // The restart found the post in the channel, so it did not even need the nonce.
        expect(discord.posts(daily)).toHaveLength(1);
        expect(discord.messagesIn(daily)).toHaveLength(1);
        expect(await reopened.getDelivery(daily, '2026-06-15')).toMatchObject({ state: 'sent', messageId: discord.messagesIn(daily)[0]?.id });
      });

      describe('past the nonce window', () => {
        const crashAfterSend = { afterSend: () => Promise.reject(new Error('process killed')) };
        const pastTheWindow = () => new Promise((resolve) => setTimeout(resolve, 60));

        it('a restart hours after a crash between post and record finds the post, even behind 150 newer messages', async () => {
          const { discord, guild, store } = await worldOn({ nonceWindowMs: 20, perChannelMessages: { limit: 1000, windowMs: 1000 }, globalLimitPerSecond: 1000 });
          const daily = guild.channelId('daily');
          await subscribe(store, guild.id, daily);
          await schedulerFor(discord, store, { hooks: crashAfterSend }).scheduler.tick(nine);
          const [first] = discord.messagesIn(daily);
          expect((await store.getDelivery(daily, '2026-06-15'))?.state).toBe('sending');
          await pastTheWindow();
          // The channel goes on without the bot: the post is now two pages of history back.
          const rest = restFor(discord);
          await Promise.all(Array.from({ length: 150 }, (_, i) => rest.post(`/channels/${daily}/messages`, { body: { content: `chatter ${i}` } })));

          const { scheduler, lines } = schedulerFor(discord, store);
          expect(await scheduler.tick(new Date('2026-06-15T15:00:00Z'))).toMatchObject({ sent: 1 });
          expect(discord.messagesIn(daily).filter((m) => m.embeds.length > 0)).toHaveLength(1);
          expect(await store.getDelivery(daily, '2026-06-15')).toMatchObject({ state: 'sent', messageId: first?.id });
          expect(lines.some((l) => l.msg === 'an earlier attempt had posted; recorded it instead of posting again')).toBe(true);
        });

        it('a post found after a crash between Discord creating it and publishing it is published then, and not posted again', async () => {
          const { discord, guild, store } = await worldOn({ nonceWindowMs: 20 });
          const news = guild.channelId('news');
          await store.upsert(guild.id, news, 50, () => makeSubscription({ guildId: guild.id, channelId: news, publish: true }));
          await store.putDelivery({ channelId: news, day: '2026-06-15', state: 'sending', nonce: deliveryNonce(news, '2026-06-15'), attempts: 1, attemptStartedAt: new Date().toISOString(), updatedAt: nine.toISOString() });
          await restFor(discord).post(`/channels/${news}/messages`, { body: { embeds: [render(entryFor('2026-06-15'))] } });
          expect((discord.messagesIn(news)[0]?.flags ?? 0) & 1).toBe(0);
          await pastTheWindow();

          const { scheduler } = schedulerFor(discord, store);
          expect(await scheduler.tick(new Date('2026-06-15T15:00:00Z'))).toMatchObject({ sent: 1 });
          const posts = discord.messagesIn(news);
          expect(posts).toHaveLength(1);
          // Flag 1: crossposted (published).
          expect((posts[0]?.flags ?? 0) & 1).toBe(1);
          expect(await store.getDelivery(news, '2026-06-15')).toMatchObject({ state: 'sent', messageId: posts[0]?.id });
        });

        it('a crash before the post reached Discord posts once; the /wotd-like reply already there does not count', async () => {
          const { discord, guild, store } = await worldOn({ nonceWindowMs: 20 });
          const daily = guild.channelId('daily');
          await subscribe(store, guild.id, daily);
          // The channel holds the bot's post of another day, and the crash came before this day's post left.
          const rest = restFor(discord);
          await rest.post(`/channels/${daily}/messages`, { body: { embeds: [render(entryFor('2026-06-14'))] } });
          await store.putDelivery({ channelId: daily, day: '2026-06-15', state: 'sending', nonce: deliveryNonce(daily, '2026-06-15'), attempts: 1, updatedAt: nine.toISOString() });
          await pastTheWindow();

          const { scheduler } = schedulerFor(discord, store);
          expect(await scheduler.tick(new Date('2026-06-15T15:00:00Z'))).toMatchObject({ sent: 1 });
          const posted = discord.messagesIn(daily).map((m) => m.embeds[0]?.title);
          expect(posted).toEqual(['word-2026-06-14', 'word-2026-06-15']);
        });

        it('a timeout whose post Discord did make is found on the retry after the window', async () => {
          const { discord, guild, store } = await worldOn({ nonceWindowMs: 20 });
          const daily = guild.channelId('daily');
          await subscribe(store, guild.id, daily);
          discord.injectFault({ channelId: daily, delayMs: 400, times: 1 });
          const { logger } = captureLogger();
          const scheduler = new DailyScheduler({ store, lookup: new FixedLookup(), poster: createChannelPoster(restFor(discord, { retries: 0, timeout: 100 })), render, logger, concurrency: 2 });

          expect(await scheduler.tick(nine)).toMatchObject({ retrying: 1 });
          await discord.waitForMessages(daily, 1);
          await pastTheWindow();
          expect(await scheduler.tick(new Date('2026-06-15T09:01:00Z'))).toMatchObject({ sent: 1 });
          expect(discord.posts(daily)).toHaveLength(1);
          expect(discord.messagesIn(daily)).toHaveLength(1);
        });

        it('a look that fails keeps the record unsure and the channel unposted until it can look', async () => {
          const { discord, guild, store } = await worldOn({ nonceWindowMs: 20 });
          const daily = guild.channelId('daily');
          await subscribe(store, guild.id, daily);
          await schedulerFor(discord, store, { hooks: crashAfterSend }).scheduler.tick(nine);
          const crashed = await store.getDelivery(daily, '2026-06-15');
          if (crashed?.state !== 'sending') throw new Error('the crash left no sending record');
          await pastTheWindow();
          const broken = discord.injectFault({ route: 'GET /channels/:id/messages', status: 500 });
          const { scheduler } = schedulerFor(discord, store);

          expect(await scheduler.tick(new Date('2026-06-15T12:00:00Z'))).toMatchObject({ retrying: 1 });
          expect(await store.getDelivery(daily, '2026-06-15')).toMatchObject({ state: 'retrying', attemptStartedAt: crashed?.attemptStartedAt });
          broken.remove();
          expect(await scheduler.tick(new Date('2026-06-15T13:00:00Z'))).toMatchObject({ sent: 1 });
          expect(discord.messagesIn(daily)).toHaveLength(1);
        });

        it('without Read Message History it says so and posts with the same nonce', async () => {
          const { discord, guild, store } = await worldOn({ nonceWindowMs: 60_000 });
          const channel = discord.addChannel(guild.id, { name: 'no-history', permissionOverwrites: [{ id: '@bot', deny: PermissionFlagsBits.ReadMessageHistory }] }).id;
          await subscribe(store, guild.id, channel);
          await schedulerFor(discord, store, { hooks: crashAfterSend }).scheduler.tick(nine);

          const { scheduler, lines } = schedulerFor(discord, store);
          expect(await scheduler.tick(new Date('2026-06-15T09:01:00Z'))).toMatchObject({ sent: 1 });
          expect(discord.messagesIn(channel)).toHaveLength(1);
          expect(lines.some((l) => l.msg === "could not look for an earlier attempt's post; posting with the same nonce")).toBe(true);
        });
      });
  });
}
