import { Routes, type Client } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordClient } from '../../src/discord/client.ts';
import { saneRateLimitHeaders } from '../../src/discord/rate-limit-headers.ts';
import { startDiscordServer, type DiscordServer } from '../support/discord/index.ts';

/**
 * Discord's rate-limit numbers reach discord.js's timers only checked and bounded (found by
 * test/faults/discord-responses.test.ts): one answer with a huge X-RateLimit-Reset-After or Retry-After used to hold
 * its route, or with X-RateLimit-Global every request, for good (past Node's timer range discord.js spins on 1 ms
 * timers while the bucket stays "limited").
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('saneRateLimitHeaders', () => {
  const sane = (headers: Record<string, string>) => Object.fromEntries(saneRateLimitHeaders(new Headers(headers), 60));

  it('keeps what Discord really sends', () => {
    const real = { 'retry-after': '1', 'x-ratelimit-reset-after': '0.250', 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1750000000.123', 'x-ratelimit-bucket': 'abc' };
    expect(sane(real)).toEqual(real);
  });

  it('cuts waits to the bound', () => {
    for (const huge of ['61', '86400', '99999999999', '999999999999999']) {
      expect(sane({ 'retry-after': huge, 'x-ratelimit-reset-after': huge })).toEqual({ 'retry-after': '60', 'x-ratelimit-reset-after': '60' });
    }
  });

  it('drops numbers that are not (negative, NaN, Infinity, hex, exponents, empty, overlong)', () => {
    for (const garbage of ['-1', '-0.001', 'NaN', 'Infinity', '0x10', '1e3', '1e400', '', ' ', 'abc', '1,5', '9'.repeat(400)]) {
      expect(sane({ 'retry-after': garbage, 'x-ratelimit-reset-after': garbage, 'x-ratelimit-limit': garbage, 'x-ratelimit-remaining': garbage, 'x-ratelimit-reset': garbage })).toEqual({});
    }
    expect(sane({ 'x-ratelimit-remaining': '0.5' })).toEqual({});
  });
});

describe("the bot's client against rate-limit numbers no Discord should send", () => {
  async function world(): Promise<{ discord: DiscordServer; client: Client; channelId: string }> {
    const discord = await startDiscordServer();
    cleanups.push(() => discord.close());
    const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'general' }] });
    const client = createDiscordClient({ apiUrl: discord.apiUrl, maxRateLimitWaitS: 0.05 });
    client.rest.setToken(discord.token);
    cleanups.push(() => client.destroy());
    return { discord, client, channelId: guild.channelId('general') };
  }

  it('a bucket emptied "for 3,000 years" is free again within the bound', async () => {
    const { discord, client, channelId } = await world();
    discord.injectFault({
      route: 'GET /channels/:id',
      times: 1,
      answer: {
        status: 200,
        headers: { 'Content-Type': 'application/json', 'X-RateLimit-Limit': '1', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset-After': '99999999999' },
        body: JSON.stringify({ id: channelId, type: 0 }),
      },
    });
    await client.rest.get(Routes.channel(channelId));
    // Before the bound, this second request on the same route never went out.
    expect(await client.rest.get(Routes.channel(channelId))).toMatchObject({ id: channelId });
  }, 10_000);

  it('a global 429 with a Retry-After past the timer range stops every request only up to the bound', async () => {
    const { discord, client, channelId } = await world();
    discord.injectFault({
      route: 'GET /channels/:id',
      times: 1,
      answer: {
        status: 429,
        headers: { 'Content-Type': 'application/json', 'Retry-After': '99999999999', 'X-RateLimit-Global': 'true', 'X-RateLimit-Scope': 'global' },
        body: JSON.stringify({ message: 'You are being rate limited.', retry_after: 99999999999, global: true }),
      },
    });
    expect(await client.rest.get(Routes.channel(channelId))).toMatchObject({ id: channelId });
    expect(await client.rest.get(Routes.user())).toMatchObject({ id: discord.botUser.id });
  }, 10_000);
});
