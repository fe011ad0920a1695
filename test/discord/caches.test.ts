import { afterAll, beforeAll, expect, it } from 'vitest';
import { botPermissionsIn } from '../../src/discord/bot-permissions.ts';
import { startBotWorld, waitForSent, type BotWorld } from './bot-world.ts';

let world: BotWorld;

beforeAll(async () => {
  world = await startBotWorld();
});

afterAll(async () => {
  await world?.close();
});

it('keeps only a few of the members and users that interactions bring, and always the bot itself', async () => {
  await world.wotd.adapter.getEntry('2025-01-14');
  for (let i = 0; i < 30; i += 1) {
    const handle = world.discord.invokeCommand({
      name: 'wotd',
      options: { date: '2025-01-14' },
      channelId: world.channelId,
      user: { username: `member${i}` },
    });
    await waitForSent(world.discord, handle, 1);
  }
  const guild = world.bot.client.guilds.cache.get(world.guild.id);
  expect(guild?.members.cache.size).toBeLessThanOrEqual(20);
  expect(guild?.members.me?.id).toBe(world.bot.client.user.id);
  expect(world.bot.client.users.cache.has(world.bot.client.user.id)).toBe(true);
  // No channel objects are kept; the permission check before subscribing reads the channel and finds the bot's member.
  expect(world.bot.client.channels.cache.size).toBe(0);
  expect(guild?.channels.cache.size).toBe(0);
  expect(await botPermissionsIn(guild ?? null, world.channelId)).toEqual(new Set(['ViewChannel', 'SendMessages', 'EmbedLinks', 'ReadMessageHistory']));
});
