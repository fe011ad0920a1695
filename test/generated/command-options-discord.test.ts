import { PermissionFlagsBits } from 'discord.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.ts';
import { startDiscordBot, type DiscordBot } from '../../src/discord/bot.ts';
import { runDeployCommands } from '../../src/discord/deploy-commands.ts';
import type { OutgoingMessage } from '../../src/replies/interactions.ts';
import { createSubscriptionService } from '../../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { quiet, sentFor, type SentCall } from '../discord/bot-world.ts';
import { capturingLogger, SITE_URL, startWotdWorld } from '../discord/world.ts';
import { tempStore } from '../schedule/helpers.ts';
import { startDiscordServer, type DiscordServer, type GuildInfo, type InteractionHandle } from '../support/discord/index.ts';
import type { WotdWorld } from '../support/wotd-world.ts';
import { expectInert, textOf } from './discord-checks.ts';
import { DATES, expectSpecific, nastyText, PROPERTY_TIMEOUT_MS, settings, trackUnhandled, withinBound } from './generated.ts';

/**
 * A sample of the generated option values of command-options.test.ts, end to end: the real discord.js client
 * against the local Discord server, commands registered by deploy-commands, our service behind the real adapter,
 * and a real subscription store. Each interaction gets one specific answer that Discord accepts, with
 * allowed_mentions that ping nobody, and nothing is logged as a failure of the bot.
 */

const SEED = 8_080;
const SAMPLE = 50;

let discord: DiscordServer;
let guild: GuildInfo;
let wotd: WotdWorld;
let bot: DiscordBot;
let store: SubscriptionStore;
let cleanup: () => void;
let logs: ReturnType<typeof capturingLogger>;
const unhandled = trackUnhandled();

beforeAll(async () => {
  discord = await startDiscordServer();
  guild = discord.addGuild({
    name: 'Words',
    channels: [{ name: 'general' }, { name: 'news', type: 5 }, { name: '**loud** @everyone' }],
    roles: [{ name: 'readers', mentionable: true }, { name: '<@&1> __x__', mentionable: true }],
  });
  wotd = await startWotdWorld();
  logs = capturingLogger([discord.token]);
  const env = { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl };
  const deployed = await runDeployCommands([], { env, stdout: quiet(), stderr: quiet(), commands });
  if (deployed !== 0) throw new Error(`deploy-commands exited with ${deployed}`);
  const temp = tempStore();
  cleanup = temp.cleanup;
  store = await SubscriptionStore.open(temp.url);
  bot = await startDiscordBot({
    config: { ...env, DISCORD_APPLICATION_ID: undefined },
    commands,
    services: {
      lookup: wotd.adapter,
      siteUrl: SITE_URL,
      logger: logs.logger,
      subscriptions: createSubscriptionService({ store, limit: 5, now: wotd.now }),
    },
    logger: logs.logger,
  });
}, 60_000);

afterAll(async () => {
  unhandled.stop();
  await bot?.stop();
  await store?.close();
  await wotd?.close();
  await discord?.close();
  cleanup?.();
  expect(unhandled.problems).toEqual([]);
});

/** Within a string option's registered bounds, as Discord's client would send it. */
const within = (near: string[], min: number, max: number) =>
  fc
    .oneof({ weight: 2, arbitrary: fc.constantFrom(...near) }, { weight: 3, arbitrary: nastyText({ extra: near, maxPieces: 6 }) })
    .map((text) => text.slice(0, max).replace(/[\ud800-\udbff]$/, ''))
    .filter((text) => text.length >= min && text.trim() !== '');

type Invocation = { name: string; options: Record<string, string | number>; admin: boolean };

function invocations(): fc.Arbitrary<Invocation> {
  const channel = fc.constantFrom(guild.channelId('general'), guild.channelId('news'), guild.channelId('**loud** @everyone'));
  const role = fc.constantFrom(guild.roleId('readers'), guild.roleId('<@&1> __x__'), guild.everyoneRoleId);
  const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
  const defined = (options: Record<string, string | number | undefined>) =>
    Object.fromEntries(Object.entries(options).filter((entry): entry is [string, string | number] => entry[1] !== undefined));
  const date = optional(within(DATES, 1, 32));
  // The bounds /wotd-subscribe registers: a time of 3 to 5 characters, a zone of at most 64.
  const time = within(['09:00', '7:30', '24:00', '12:60', '<@1>'], 3, 5);
  const timezone = within(['UTC', 'Europe/London', 'Mars/Olympus'], 1, 64);
  return fc.oneof(
    date.map((value) => ({ name: 'wotd', options: defined({ date: value }), admin: false })),
    fc
      .tuple(date, optional(fc.integer({ min: 1, max: 8 })))
      .map(([value, limit]) => ({ name: 'wotd-history', options: defined({ date: value, limit }), admin: false })),
    within(['serendipity', 'ECHO', 'quixotic', 'zzz', 'mark_down'], 1, 100).map((word) => ({ name: 'wotd-find', options: { word }, admin: false })),
    fc
      .tuple(channel, optional(time), optional(timezone), optional(role))
      .map(([where, at, zone, mention]) => ({
        name: 'wotd-subscribe',
        options: defined({ channel: where, time: at, timezone: zone, role: mention }),
        admin: true,
      })),
    channel.map((where) => ({ name: 'wotd-unsubscribe', options: { channel: where }, admin: true })),
  );
}

/** The call that carries the answer: a reply (callback 4 or 7), the edit of a deferral, or a follow-up. */
function answerOf(calls: SentCall[]): SentCall | undefined {
  return calls.find((call) => {
    if (call.call === 'POST callback') return [4, 7].includes((call.body as { type: number }).type);
    return call.call === 'PATCH @original' || call.call === 'POST followup';
  });
}

function messageOf(call: SentCall): { message: OutgoingMessage; allowedMentions: unknown; ephemeral: boolean } {
  const data = (call.call === 'POST callback' ? (call.body as { data: Record<string, unknown> }).data : call.body) as Record<string, unknown>;
  return {
    message: { content: data.content as string | undefined, embeds: data.embeds as OutgoingMessage['embeds'] },
    allowedMentions: data.allowed_mentions,
    ephemeral: ((data.flags as number | undefined) ?? 0) % 128 >= 64,
  };
}

describe(`a sample of ${SAMPLE} generated option values, through discord.js and the local Discord server`, () => {
  it('each gets one specific answer Discord accepts, pinging nobody', async () => {
    await fc.assert(
      fc.asyncProperty(invocations(), async ({ name, options, admin }) => {
        const where = `/${name} ${JSON.stringify(options)}`;
        const handle: InteractionHandle = discord.invokeCommand({
          name,
          options,
          channelId: guild.channelId('general'),
          ...(admin ? { memberPermissions: PermissionFlagsBits.ManageChannels | PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages } : {}),
        });
        const answer = await withinBound(
          where,
          discord.waitFor(() => answerOf(sentFor(discord, handle)), `the answer to ${where}`, 8_000),
        );
        // Discord accepted every request the bot made for it.
        for (const request of discord.requests.filter((candidate) => decodeURIComponent(candidate.path).includes(handle.token))) {
          expect(request.status, `${where}: ${request.method} ${request.path} → ${request.status} ${JSON.stringify(request.response)}`).toBeLessThan(300);
        }
        const { message, allowedMentions, ephemeral } = messageOf(answer);
        expect(allowedMentions, where).toEqual({ parse: [], roles: [] });
        const text = textOf(message);
        expectSpecific(text, where, Object.values(options).join(' '));
        if (!message.embeds?.length) expect(ephemeral, `${where}: a note that is not private: ${text}`).toBe(true);
        const ownTags = [options.channel ? `<#${String(options.channel)}>` : '', options.role ? `<@&${String(options.role)}>` : '', /<t:\d+:[A-Za-z]>/g];
        expectInert(message, where, ownTags.filter((tag) => tag !== ''));
      }),
      settings(SEED, SAMPLE),
    );
    expect(logs.lines.filter((line) => /command failed|could not send/.test(line))).toEqual([]);
  }, PROPERTY_TIMEOUT_MS);

  it('autocomplete of any typed word or time zone answers with choices Discord accepts', async () => {
    const typed = fc.oneof(fc.constantFrom('', 'se', 'ECH', 'europe/', 'new york', '<@1>', ' '), nastyText({ maxPieces: 3 }).map((text) => text.slice(0, 100)));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(['wotd-find', 'word'], ['wotd-subscribe', 'timezone']), typed, async ([name, focused], value) => {
        const base: Record<string, string> = name === 'wotd-subscribe' ? { channel: guild.channelId('general') } : {};
        const choices = await withinBound(
          `autocomplete /${name} ${focused}:${JSON.stringify(value)}`,
          discord.autocomplete({
            name,
            options: { ...base, [focused]: value },
            focused,
            channelId: guild.channelId('general'),
            ...(name === 'wotd-subscribe' ? { memberPermissions: PermissionFlagsBits.ManageChannels } : {}),
          }),
        );
        expect(choices.length).toBeLessThanOrEqual(25);
      }),
      settings(SEED, 20),
    );
  }, PROPERTY_TIMEOUT_MS);
});
