import { PermissionFlagsBits, Routes } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { discordMetricsView } from '../../src/discord/metrics-view.ts';
import { createBotMetrics } from '../../src/metrics/registry.ts';
import { DEFAULT_BOT_PERMISSIONS } from '../support/discord/index.ts';
import { startPostingWorld, testScheduler } from './bot-on-server.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const EXECUTE = 'POST /webhooks/:webhook_id/:webhook_token';

describe('daily posts through the bot’s own webhook (issue 35)', () => {
  it('checks the options, needs Manage Webhooks, creates the webhook once and reuses it, finds an earlier attempt’s post, recreates a deleted webhook once, then reports', async () => {
    const { discord, guild, started, command } = await startPostingWorld(cleanups, {
      botPermissions: DEFAULT_BOT_PERMISSIONS,
      roles: [{ name: 'readers', mentionable: true }],
      channels: [{ name: 'words' }],
    });
    const words = guild.channelId('words');
    const readers = guild.roleId('readers');
    const { daily, bot, lines } = started;
    const invoke = async (options: Record<string, string | boolean>, name = 'wotd-subscribe') => (await command(name, options)).content ?? '';

    // What Discord or the bot would refuse is said before anything is saved.
    expect(await invoke({ channel: words, 'webhook-name': 'Discord Owl' })).toContain('Discord does not allow “discord” in a webhook name.');
    expect(await invoke({ channel: words, 'webhook-name': 'owl@home' })).toContain('Discord does not allow @ in a webhook name.');
    expect(await invoke({ channel: words, 'webhook-name': 'Owl', 'webhook-avatar': 'http://example.com/owl.png' })).toContain('only https:// addresses are taken');
    expect(await invoke({ channel: words, 'webhook-name': 'Owl', 'webhook-avatar': 'https://me:secret@example.com/owl.png' })).toContain(
      'the address must not contain a user name or password',
    );
    expect(await invoke({ channel: words, 'webhook-avatar': 'https://example.com/owl.png' })).toContain('An avatar goes with a webhook name: give webhook-name too');
    expect(await invoke({ channel: words, 'webhook-name': 'Word Owl' })).toContain("I'm missing **Manage Webhooks** there.");
    expect(await daily.store.get(words)).toBeNull();

    discord.updateRole(guild.id, 'posting', { permissions: DEFAULT_BOT_PERMISSIONS | PermissionFlagsBits.ManageWebhooks });
    const subscribed = await invoke({ channel: words, role: readers, 'webhook-name': '  Word   Owl ', 'webhook-avatar': 'https://example.com/owl.png' });
    expect(subscribed).toContain('posted as “Word Owl” with the avatar <https://example.com/owl.png> through my webhook');
    expect(await daily.store.get(words)).toMatchObject({ webhookName: 'Word Owl', webhookAvatar: 'https://example.com/owl.png' });
    const listed = await command('wotd-subscriptions');
    expect(listed.embeds[0]?.description).toContain('as “Word Owl” with the avatar <https://example.com/owl.png>');

    // The first attempt "crashes" after Discord took the post: no nonce here, so the retry finds the webhook's message.
    const scheduler = testScheduler(started, { crashes: 1 });
    const requests = (route: string) => discord.requests.filter((request) => request.route === route && request.status < 300);
    await scheduler.tick(new Date('2026-06-15T09:00:00Z'));
    expect(await scheduler.tick(new Date('2026-06-15T09:01:00Z'))).toMatchObject({ sent: 1 });
    expect(discord.messagesIn(words)).toHaveLength(1);
    expect(requests(EXECUTE)).toHaveLength(1);
    expect(lines.some((line) => line.msg === 'an earlier attempt had posted; recorded it instead of posting again')).toBe(true);
    const [first] = requests(EXECUTE);
    expect(first?.query).toEqual({ wait: 'true' });
    expect(first?.body).toMatchObject({
      username: 'Word Owl',
      avatar_url: 'https://example.com/owl.png',
      content: `<@&${readers}>`,
      allowed_mentions: { parse: [], roles: [readers] },
    });
    const [post] = discord.messagesIn(words);
    const created = requests('POST /channels/:channel_id/webhooks');
    expect(created).toHaveLength(1);
    const webhookId = String((created[0]?.response as { id: string }).id);
    expect(post?.authorId).toBe(webhookId);
    expect(await daily.store.getDelivery(words, '2026-06-15')).toMatchObject({ state: 'sent', messageId: post?.id });
    // The token is a secret: in no log line, and not in the stored subscription.
    const token = String((created[0]?.response as { token: string }).token);
    expect(JSON.stringify(lines)).not.toContain(token);
    expect(JSON.stringify(await daily.store.get(words))).not.toContain(token);

    // The next day reuses it: no new list, no new webhook. A 429 from the webhook's own bucket is waited out and counted.
    const metrics = createBotMetrics({ mode: 'discord', defaultMetrics: false });
    metrics.watchDiscord(discordMetricsView(bot.client));
    discord.injectFault({ route: /^POST \/webhooks\/\d+\/[^/]+$/, status: 429, rateLimit: { global: false, retryAfterMs: 50 }, times: 1 });
    expect(await scheduler.tick(new Date('2026-06-16T09:00:00Z'))).toMatchObject({ sent: 1 });
    expect(await metrics.text()).toMatch(/^wotd_bot_429_responses_total\{service="discord_webhook"\} 1$/m);
    expect(requests('GET /channels/:channel_id/webhooks')).toHaveLength(1);
    expect(requests('POST /channels/:channel_id/webhooks')).toHaveLength(1);
    expect(discord.messagesIn(words)).toHaveLength(2);

    // Someone deletes it: the next post creates it anew, once, and goes out.
    await bot.client.rest.delete(Routes.webhook(webhookId));
    expect(await scheduler.tick(new Date('2026-06-17T09:00:00Z'))).toMatchObject({ sent: 1 });
    expect(requests('POST /channels/:channel_id/webhooks')).toHaveLength(2);
    expect(discord.messagesIn(words)).toHaveLength(3);
    expect(lines.some((line) => line.msg === "the bot's webhook in the channel was deleted; creating it again, once")).toBe(true);

    // Deleted again right after it was created anew: reported, not recreated again.
    discord.injectFault({ route: /^POST \/webhooks\/\d+\/[^/]+$/, status: 404, code: 10015, message: 'Unknown Webhook', times: 2 });
    expect(await scheduler.tick(new Date('2026-06-18T09:00:00Z'))).toMatchObject({ failed: 1 });
    // Looked up anew once (the fault answers only the executions, so the list still shows the webhook).
    expect(requests('GET /channels/:channel_id/webhooks')).toHaveLength(3);
    expect(requests(EXECUTE)).toHaveLength(3);
    expect((await daily.store.get(words))?.status).toMatchObject({
      state: 'failing',
      reason: { kind: 'webhookDeletedAgain', channelName: 'words' },
    });
    expect(discord.messagesIn(words)).toHaveLength(3);

    // Without Manage Webhooks (a fresh process knows no webhook), the post fails with the permission named.
    discord.updateRole(guild.id, 'posting', { permissions: DEFAULT_BOT_PERMISSIONS });
    const restarted = testScheduler(started);
    expect(await restarted.tick(new Date('2026-06-19T09:00:00Z'))).toMatchObject({ failed: 1 });
    expect((await daily.store.get(words))?.status).toMatchObject({ state: 'failing', reason: { kind: 'missingPermission', permission: 'ManageWebhooks', channelName: 'words' } });
    expect(discord.messagesIn(words)).toHaveLength(3);

    // An attempt whose outcome is unknown, and no Read Message History to look: the day is given up, not posted twice.
    discord.updateRole(guild.id, 'posting', { permissions: DEFAULT_BOT_PERMISSIONS | PermissionFlagsBits.ManageWebhooks });
    discord.injectFault({ route: 'GET /channels/:id/messages', status: 403, code: 50013, message: 'Missing Permissions', times: 1 });
    const blind = testScheduler(started, { crashes: 1 });
    await blind.tick(new Date('2026-06-20T09:00:00Z'));
    await blind.tick(new Date('2026-06-20T09:01:00Z'));
    expect(discord.messagesIn(words)).toHaveLength(4);
    expect(await daily.store.getDelivery(words, '2026-06-20')).toMatchObject({ state: 'failed', failure: { kind: 'missingPermission', permission: 'ReadMessageHistory', channelName: 'words' } });
  });
});
