import { Events, type Client } from 'discord.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDiscordClient } from '../../src/discord/client.ts';
import { createAdminNotifier } from '../../src/discord/admin-notifier.ts';
import { watchSubscriptionTargets } from '../../src/discord/subscription-events.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { startDiscordServer, type DiscordServer } from '../support/discord/index.ts';
import { captureLogger, makeSubscription, tempStore } from './helpers.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('gateway events disable subscriptions', () => {
  it('CHANNEL_DELETE disables that channel\'s subscription; GUILD_DELETE disables the whole server\'s; nothing is deleted', async () => {
    const discord = await startDiscordServer();
    cleanups.push(() => discord.close());
    const words = discord.addGuild({ name: 'Words', channels: [{ name: 'daily' }, { name: 'other' }] });
    const second = discord.addGuild({ name: 'Second', channels: [{ name: 'a' }, { name: 'b' }] });
    const temp = tempStore();
    cleanups.push(temp.cleanup);
    const store = await SubscriptionStore.open(temp.url);
    cleanups.push(() => store.close());
    for (const [guildId, channelId] of [
      [words.id, words.channelId('daily')],
      [words.id, words.channelId('other')],
      [second.id, second.channelId('a')],
      [second.id, second.channelId('b')],
    ] as const) {
      await store.upsert(guildId, channelId, 5, () => makeSubscription({ guildId, channelId }));
    }
    // The bot's own client, which caches no channels: the deletion must be seen all the same.
    const client = await loginBotClient(discord);
    cleanups.push(() => client.destroy());
    expect(client.channels.cache.size).toBe(0);
    const stop = watchSubscriptionTargets(client, store, captureLogger().logger, () => new Date('2026-06-15T10:00:00Z'));
    cleanups.push(stop);

    discord.deleteChannel(words.channelId('daily'));
    await vi.waitFor(async () => expect((await store.get(words.channelId('daily')))?.status.state).toBe('disabled'));
    expect((await store.get(words.channelId('daily')))?.status).toEqual({
      state: 'disabled',
      reason: { kind: 'channelDeleted' },
      at: '2026-06-15T10:00:00.000Z',
      channelGone: true,
    });
    expect((await store.get(words.channelId('other')))?.status.state).toBe('active');

    discord.removeGuild(second.id);
    await vi.waitFor(async () => {
      const states = (await store.listGuild(second.id)).map((s) => s.status);
      expect(states).toEqual([
        expect.objectContaining({ state: 'disabled', reason: { kind: 'botRemoved' } }),
        expect.objectContaining({ state: 'disabled', reason: { kind: 'botRemoved' } }),
      ]);
    });
    expect(await store.listAll()).toHaveLength(4);
  });
});

describe('gateway events tell the admin', () => {
  it('a deleted channel and the bot\'s removal DM the member who configured the subscription, once, with the fix', async () => {
    const discord = await startDiscordServer();
    cleanups.push(() => discord.close());
    const words = discord.addGuild({ name: 'Words', channels: [{ name: 'daily' }, { name: 'other' }] });
    // The admin shares another server with the bot, so a DM still reaches them after the bot leaves Words.
    const elsewhere = discord.addGuild({ name: 'Elsewhere', channels: [{ name: 'x' }] });
    const admin = '700000000000000001';
    discord.addMember(words.id, { id: admin, username: 'admin' });
    discord.addMember(elsewhere.id, { id: admin, username: 'admin' });
    const temp = tempStore();
    cleanups.push(temp.cleanup);
    const store = await SubscriptionStore.open(temp.url);
    cleanups.push(() => store.close());
    for (const name of ['daily', 'other']) {
      const channelId = words.channelId(name);
      await store.upsert(words.id, channelId, 5, () => makeSubscription({ guildId: words.id, channelId, channelName: name, createdBy: admin }));
    }
    const client = await loginBotClient(discord);
    cleanups.push(() => client.destroy());
    const { logger } = captureLogger();
    const stop = watchSubscriptionTargets(client, store, logger, () => new Date('2026-06-15T10:00:00Z'), createAdminNotifier(client.rest, { logger }));
    cleanups.push(stop);
    const dms = () => discord.messagesIn(discord.dmChannelOf(admin)).map((message) => message.content);

    discord.deleteChannel(words.channelId('daily'));
    await vi.waitFor(() => expect(dms()).toHaveLength(1));
    expect(dms()[0]).toContain(`⛔ The daily word in <#${words.channelId('daily')}> (#daily) is switched off: the channel no longer exists`);
    discord.removeGuild(words.id);
    await vi.waitFor(() => expect(dms()).toHaveLength(2));
    expect(dms()[1]).toBe(
      `⛔ The daily word in <#${words.channelId('other')}> (#other) is switched off: I was removed from its server. To switch it back on, add me to ` +
        "the server again, then run /wotd-subscribe channel:#other. Unless I am added back within 30 days, the server's daily-post settings are erased.",
    );
    expect((await store.get(words.channelId('other')))?.noticeOwed).toBeUndefined();
  });
});

async function loginBotClient(discord: DiscordServer): Promise<Client<true>> {
  const client = createDiscordClient({ apiUrl: discord.apiUrl });
  const ready = new Promise<Client<true>>((resolve) => client.once(Events.ClientReady, resolve));
  await client.login(discord.token);
  return ready;
}
