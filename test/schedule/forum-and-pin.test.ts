import { PermissionFlagsBits, Routes } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createDailyPoster } from '../../src/discord/daily-poster.ts';
import { DeliveryError } from '../../src/schedule/poster.ts';
import { DEFAULT_BOT_PERMISSIONS, type startDiscordServer } from '../support/discord/index.ts';
import { startPostingWorld, testScheduler } from './bot-on-server.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const TITLE = 'word-2026-06-15 — word of the day, 2026-06-15';

async function world(botPermissions: bigint, server: Parameters<typeof startDiscordServer>[0] = {}) {
  let clock = new Date('2026-06-15T08:00:00Z');
  const { discord, guild, started, command } = await startPostingWorld(cleanups, {
    botPermissions,
    channels: [
      { name: 'words' },
      { name: 'daily', type: 15, availableTags: ['Words', 'Misc'], requireTag: true },
      { name: 'clips', type: 16, availableTags: ['Words'] },
    ],
    server,
    daily: { now: () => clock },
  });
  const invoke = async (name: string, options: Record<string, string | boolean> = {}, locale?: string) => {
    const response = await command(name, options, locale);
    return `${response.content ?? ''}${response.embeds[0]?.description ?? ''}`;
  };
  let pinFailures = 0;
  const scheduler = testScheduler(started, {
    poster: createDailyPoster(started.bot.client.rest, { logger: started.logger }),
    observer: { pinFailed: () => (pinFailures += 1) },
  });
  const tick = (at: string) => {
    clock = new Date(at);
    return scheduler.tick(clock);
  };
  const warnings = (msg: string) => started.lines.filter((line) => line.msg === msg);
  return { discord, guild, ...started, invoke, scheduler, tick, warnings, crashNext: scheduler.crashNext, pinFailures: () => pinFailures };
}

describe('daily posts in a forum', () => {
  it('checks the tag when subscribing, and makes one post a day, titled and tagged, even when a retry follows an unknown outcome', async () => {
    const { discord, guild, bot, daily, invoke, tick, crashNext } = await world(DEFAULT_BOT_PERMISSIONS);
    const forum = guild.channelId('daily');
    expect(await invoke('wotd-subscribe', { channel: forum })).toContain('requires a tag on every post. Choose one with `forum-tag`: **Words** and **Misc**.');
    expect(await invoke('wotd-subscribe', { channel: forum, 'forum-tag': 'news' })).toContain('has no tag “news”. Its tags: **Words** and **Misc**.');
    expect(await invoke('wotd-subscribe', { channel: guild.channelId('words'), 'forum-tag': 'Words' })).toContain('is not a forum');
    expect(await invoke('wotd-subscribe', { channel: forum, 'forum-tag': 'words', thread: true, pin: true })).toContain(
      'is a forum: each daily post there is a post of its own, so **thread** and **pin** do not apply.',
    );
    expect(await invoke('wotd-subscribe', { channel: forum, 'forum-tag': 'words', 'webhook-name': 'Word Owl' })).toContain(
      'is a forum: each daily post there is a post of its own, so **webhook-name** does not apply.',
    );
    const preview = await invoke('wotd-subscribe', { channel: forum, 'forum-tag': 'words', preview: true });
    expect(preview).toContain(`Each day is a new post in the forum, titled like “${TITLE}”.`);
    expect(preview).toContain('Each post gets the tag Words.');
    expect(await invoke('wotd-subscribe', { channel: forum, 'forum-tag': 'words', time: '09:00' })).toContain(', tagged Words');
    expect(await invoke('wotd-subscriptions')).toContain('a new forum post each day, tag Words');

    // The first attempt dies after Discord made the post; there is no nonce for forum posts, so the retry must find it.
    crashNext();
    await tick('2026-06-15T09:00:00Z');
    expect((await daily.store.getDelivery(forum, '2026-06-15'))?.state).toBe('sending');
    expect(await tick('2026-06-15T09:10:00Z')).toMatchObject({ sent: 1 });
    const threads = discord.threadsIn(forum);
    expect(threads).toEqual([{ id: threads[0]?.id, name: TITLE, type: 11, parentId: forum, autoArchiveDuration: 4320 }]);
    expect(await daily.store.getDelivery(forum, '2026-06-15')).toMatchObject({ state: 'sent', messageId: threads[0]?.id });
    const [starter] = discord.messagesIn(threads[0]?.id ?? '');
    expect(starter?.embeds[0]?.title).toBe('word-2026-06-15');
    const tags = ((await bot.client.rest.get(Routes.channel(forum))) as { available_tags: Array<{ id: string; name: string }> }).available_tags;
    const active = (await bot.client.rest.get(Routes.guildActiveThreads(guild.id))) as { threads: Array<{ id: string; applied_tags?: string[] }> };
    expect(active.threads.find((thread) => thread.id === threads[0]?.id)?.applied_tags).toEqual([tags.find((tag) => tag.name === 'Words')?.id]);

    // The next day is a new post of its own.
    expect(await tick('2026-06-16T09:00:00Z')).toMatchObject({ sent: 1 });
    expect(discord.threadsIn(forum).map((thread) => thread.name)).toEqual([TITLE, 'word-2026-06-16 — word of the day, 2026-06-16']);
  });

  it('posts in a media channel as in a forum: a post of its own each day, its starter message the embed alone', async () => {
    const { discord, guild, daily, invoke, tick } = await world(DEFAULT_BOT_PERMISSIONS);
    const media = guild.channelId('clips');
    expect(await invoke('wotd-subscribe', { channel: media, pin: true })).toContain('is a media channel: each daily post there is a post of its own, so **pin** does not apply.');
    expect(await invoke('wotd-subscribe', { channel: media, 'forum-tag': 'words', time: '09:00' })).toContain(', tagged Words');
    expect(await tick('2026-06-15T09:00:00Z')).toMatchObject({ sent: 1 });
    const [thread] = discord.threadsIn(media);
    expect(thread).toMatchObject({ name: TITLE, parentId: media });
    expect(await daily.store.getDelivery(media, '2026-06-15')).toMatchObject({ state: 'sent', messageId: thread?.id });
    const [starter] = discord.messagesIn(thread?.id ?? '');
    expect(starter).toMatchObject({ content: '', files: [] });
    expect(starter?.embeds.map((embed) => embed.title)).toEqual(['word-2026-06-15']);
    expect(await tick('2026-06-15T09:30:00Z')).toMatchObject({ sent: 0 });
    expect(discord.threadsIn(media)).toHaveLength(1);
  });

  it("asks Discord for the bot's id once, whichever kinds of post it looks through", async () => {
    const { discord, guild, bot, logger } = await world(DEFAULT_BOT_PERMISSIONS);
    const poster = createDailyPoster(bot.client.rest, { logger });
    const since = new Date();
    const base = { embeds: [{ title: 'word' }], mentionRoleId: null, nonce: 'n1' };
    const before = discord.requests.length;
    expect(await poster.findEarlierPost({ ...base, channelId: guild.channelId('words') }, since)).toBeNull();
    expect(await poster.findEarlierPost({ ...base, channelId: guild.channelId('daily'), forumPost: { title: 'word' } }, since)).toBeNull();
    expect(await poster.findEarlierPost({ ...base, channelId: guild.channelId('words'), webhook: { name: 'Word Owl' } }, since)).toBeNull();
    expect(discord.requests.slice(before).filter((request) => request.route === 'GET /users/@me')).toHaveLength(1);
  });

  it("refuses a post without the tag the forum requires (40067) with that reason, not Discord's sentence", async () => {
    const { guild, bot, logger } = await world(DEFAULT_BOT_PERMISSIONS);
    const poster = createDailyPoster(bot.client.rest, { logger });
    const message = { channelId: guild.channelId('daily'), embeds: [{ title: 'word' }], mentionRoleId: null, nonce: 'n1', forumPost: { title: 'word' } };
    const failure = await poster.post(message).then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(DeliveryError);
    expect(failure).toMatchObject({ kind: 'refused', reason: { kind: 'forumTagRequired' }, refusal: { code: 40067 } });
  });
});

describe('pinning the daily post', () => {
  it("pins today's post and unpins yesterday's; without Pin Messages the post is still made once and the reason shown", async () => {
    const { discord, guild, daily, invoke, tick, crashNext, pinFailures } = await world(DEFAULT_BOT_PERMISSIONS | PermissionFlagsBits.PinMessages);
    const words = guild.channelId('words');
    const preview = await invoke('wotd-subscribe', { channel: words, pin: true, preview: true });
    expect(preview).toContain('Each post is pinned, and my previous daily post there unpinned.');
    expect(await invoke('wotd-subscribe', { channel: words, pin: true, time: '09:00' })).toContain(', pinned (the previous post unpinned)');

    expect(await tick('2026-06-15T09:00:00Z')).toMatchObject({ sent: 1 });
    // A retry after an unknown outcome finds the post and pins it (again: pinning is idempotent).
    crashNext();
    await tick('2026-06-16T09:00:00Z');
    expect(await tick('2026-06-16T09:10:00Z')).toMatchObject({ sent: 1 });
    expect(discord.messagesIn(words).map((message) => message.pinned)).toEqual([false, true]);

    discord.updateRole(guild.id, 'posting', { permissions: DEFAULT_BOT_PERMISSIONS });
    expect(await tick('2026-06-17T09:00:00Z')).toMatchObject({ sent: 1, failed: 0, retrying: 0 });
    expect(discord.messagesIn(words).map((message) => message.pinned)).toEqual([false, true, false]);
    expect(await daily.store.getDelivery(words, '2026-06-17')).toMatchObject({
      state: 'sent',
      pinFailures: [{ what: 'pin', reason: { kind: 'missingPermission', permission: 'PinMessages', channelName: 'words' } }],
    });
    expect(pinFailures()).toBe(1);
    expect((await daily.store.get(words))?.status.state).toBe('active');
    expect(await invoke('wotd-subscriptions')).toContain("(today's post was made, but not pinned: Missing Pin Messages in #words)");
    // Not posted again for the failed pin.
    expect(await tick('2026-06-17T09:30:00Z')).toMatchObject({ sent: 0 });
    expect(discord.messagesIn(words)).toHaveLength(3);

    expect(await invoke('wotd-subscribe', { channel: words, pin: true })).toContain("I can't post in");
    expect(await invoke('wotd-subscribe', { channel: words, pin: true })).toContain('**Pin Messages**');
    expect(await invoke('wotd-subscribe', { channel: words, reset: 'pin' })).toContain('Changed: pinning each post from on to off');
  });

  it("a pin whose turn of the posts' pace cannot be had fails with the posts' reason for it (noTurn); the post stands", async () => {
    const { discord, guild, bot, logger } = await world(DEFAULT_BOT_PERMISSIONS | PermissionFlagsBits.PinMessages);
    let turns = 0;
    const waitForTurn = async () => {
      turns += 1;
      // The post's turn is had; the pin's (the second) is not: cluster mode's shared pace out of reach.
      if (turns === 2) throw new Error('the shared pace is out of reach');
    };
    const poster = createDailyPoster(bot.client.rest, { logger, waitForTurn });
    const words = guild.channelId('words');
    const posted = await poster.post({ channelId: words, channelName: 'words', embeds: [{ title: 'word' }], mentionRoleId: null, nonce: 'n1', pin: {} });
    const failures = await poster.pin?.({ channelId: words, channelName: 'words', messageId: posted.messageId });
    expect(failures).toEqual([{ what: 'pin', reason: { kind: 'noTurn', detail: 'the shared pace is out of reach' } }]);
    expect(discord.messagesIn(words)).toMatchObject([{ id: posted.messageId, pinned: false }]);
  });

  it("a channel at Discord's 50 pins, and a failed unpin of yesterday's post: each logged, counted and shown in the reader's language, the post made once", async () => {
    // 48 pins of others' making, posted faster than Discord's five messages per five seconds in one channel.
    const { discord, guild, bot, daily, invoke, tick, warnings, pinFailures } = await world(DEFAULT_BOT_PERMISSIONS | PermissionFlagsBits.PinMessages, {
      perChannelMessages: { limit: 60, windowMs: 5000 },
    });
    const words = guild.channelId('words');
    for (let i = 0; i < 48; i += 1) {
      const { id } = (await bot.client.rest.post(Routes.channelMessages(words), { body: { content: `notice ${i}` } })) as { id: string };
      await bot.client.rest.put(Routes.channelMessagesPin(words, id));
    }
    await invoke('wotd-subscribe', { channel: words, pin: true, time: '09:00' });
    const pinned = () => discord.messagesIn(words).filter((message) => message.pinned).length;
    const status = (locale: string) => invoke('wotd-subscriptions', {}, locale);
    expect(await tick('2026-06-15T09:00:00Z')).toMatchObject({ sent: 1 });
    expect(pinned()).toBe(49);
    const first = discord.messagesIn(words).at(-1)?.id;
    expect(await daily.store.getDelivery(words, '2026-06-15')).toMatchObject({ state: 'sent', messageId: first });

    // The unpin of yesterday's post fails (Discord answers 500 however often it is asked); today's is pinned.
    const unpinFails = discord.injectFault({ route: 'DELETE /channels/:channel_id/messages/pins/:message_id', status: 500 });
    expect(await tick('2026-06-16T09:00:00Z')).toMatchObject({ sent: 1, failed: 0, retrying: 0 });
    unpinFails.remove();
    expect(unpinFails.hits).toBeGreaterThan(0);
    expect(discord.messagesIn(words).find((message) => message.id === first)?.pinned).toBe(true);
    expect(pinned()).toBe(50);
    expect(await daily.store.getDelivery(words, '2026-06-16')).toMatchObject({ state: 'sent', pinFailures: [{ what: 'unpin', reason: { kind: 'httpStatus', status: 500 } }] });
    expect(pinFailures()).toBe(1);
    expect(warnings('daily post sent, but pinning failed')).toHaveLength(1);
    expect(await status('fr')).toContain('(la publication du jour est faite, mais la précédente n’a pas été désépinglée : Discord a répondu HTTP 500)');
    expect(await tick('2026-06-16T09:30:00Z')).toMatchObject({ sent: 0 });

    // Now the channel is at 50: today's pin is refused (30003), and yesterday's post is still unpinned.
    expect(await tick('2026-06-17T09:00:00Z')).toMatchObject({ sent: 1, failed: 0, retrying: 0 });
    expect(await daily.store.getDelivery(words, '2026-06-17')).toMatchObject({ state: 'sent', pinFailures: [{ what: 'pin', reason: { kind: 'pinLimit' } }] });
    expect(pinned()).toBe(49);
    expect(discord.messagesIn(words).at(-1)?.pinned).toBe(false);
    expect(pinFailures()).toBe(2);
    expect(warnings('daily post sent, but pinning failed').at(-1)).toMatchObject({ reason: [{ what: 'pin', reason: { kind: 'pinLimit' } }] });
    expect((await daily.store.get(words))?.status.state).toBe('active');
    expect(await status('de')).toContain('(der heutige Beitrag ist gepostet, aber nicht angeheftet: Im Kanal sind schon so viele Nachrichten angeheftet, wie Discord erlaubt)');
    expect(await tick('2026-06-17T09:30:00Z')).toMatchObject({ sent: 0 });
    expect(discord.messagesIn(words)).toHaveLength(48 + 3);
  });
});
