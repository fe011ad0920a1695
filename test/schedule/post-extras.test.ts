import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BOT_PERMISSIONS } from '../support/discord/index.ts';
import { startPostingWorld, testScheduler } from './bot-on-server.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a thread on each post and publishing, end to end', () => {
  it('opens the thread and publishes after the post; a failed or repeated extra never fails or repeats the post', async () => {
    const { discord, guild, started, command: invoke } = await startPostingWorld(cleanups, {
      botPermissions: DEFAULT_BOT_PERMISSIONS | PermissionFlagsBits.CreatePublicThreads,
      channels: [{ name: 'news', type: 5 }],
    });
    const news = guild.channelId('news');
    const { daily, bot, lines } = started;

    const preview = await invoke('wotd-subscribe', { channel: news, thread: true, publish: true, preview: true });
    expect(preview.content).toContain('Each post opens a thread, such as “word-2026-06-15 — word of the day, 2026-06-15”.');
    expect(preview.content).toContain('Each post is published to the servers that follow the channel.');
    const subscribed = await invoke('wotd-subscribe', { channel: news, thread: true, publish: true });
    expect(subscribed.content).toContain('with a thread on each post, published to following servers.');
    expect((await invoke('wotd-subscriptions')).embeds[0]?.description).toContain('full style, thread on each post, published');

    // The first attempt "crashes" after Discord accepted the post; the retry finds the same message by its nonce.
    const scheduler = testScheduler(started, { crashes: 1 });
    await scheduler.tick(new Date('2026-06-15T09:00:00Z'));
    expect(await scheduler.tick(new Date('2026-06-15T09:01:00Z'))).toMatchObject({ sent: 1 });
    const [post] = discord.messagesIn(news);
    expect(discord.messagesIn(news)).toHaveLength(1);
    expect((post?.flags ?? 0) & 1).toBe(1);
    expect(discord.threadsIn(news)).toEqual([{ id: post?.id, name: 'word-2026-06-15 — word of the day, 2026-06-15', type: 10, parentId: news, autoArchiveDuration: 1440 }]);
    // The retry met the thread and the publication already there: noted, not warned about.
    expect(lines.filter((line) => line.msg === 'daily post sent, but its extra failed')).toEqual([]);

    // Next day the bot may no longer create threads: the post still goes out, publication too, and the failure is logged.
    discord.updateRole(guild.id, 'posting', { permissions: DEFAULT_BOT_PERMISSIONS });
    expect(await scheduler.tick(new Date('2026-06-16T09:00:00Z'))).toMatchObject({ sent: 1, failed: 0, retrying: 0 });
    const second = discord.messagesIn(news)[1];
    expect((second?.flags ?? 0) & 1).toBe(1);
    expect(discord.threadsIn(news)).toHaveLength(1);
    expect(lines.find((line) => line.msg === 'daily post sent, but its extra failed')).toMatchObject({ extra: 'thread', channelId: news, messageId: second?.id });
    expect((await daily.store.get(news))?.status.state).toBe('active');
    expect((await daily.store.getDelivery(news, '2026-06-16'))?.state).toBe('sent');
  });
});
