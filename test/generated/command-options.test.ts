import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wotdCommand } from '../../commands/wotd.ts';
import { wotdFindCommand } from '../../commands/wotd-find.ts';
import { wotdHistoryCommand } from '../../commands/wotd-history.ts';
import { wotdSubscribeCommand } from '../../commands/wotd-subscribe.ts';
import { wotdSubscriptionsCommand } from '../../commands/wotd-subscriptions.ts';
import { wotdUnsubscribeCommand } from '../../commands/wotd-unsubscribe.ts';
import type {
  AutocompleteChoice,
  BotServices,
  ButtonContext,
  ChannelPermission,
  ChannelRef,
  CommandContext,
  OutgoingMessage,
  RoleRef,
  SlashCommand,
} from '../../src/replies/interactions.ts';
import { createSubscriptionService } from '../../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { canonicalTimeZone } from '../../src/schedule/zoned-time.ts';
import { RECURRING, startCommandWorld, type CommandWorld } from '../commands/world.ts';
import { tempStore } from '../schedule/helpers.ts';
import { expectAnswer } from './discord-checks.ts';
import {
  DATES,
  nastyText,
  NUMBERS,
  optionCounts,
  PROPERTY_TIMEOUT_MS,
  RUNS,
  RUNS_WITH_OPTIONAL,
  settings,
  trackUnhandled,
  withinBound,
  WORLD_RATE_LIMIT,
} from './generated.ts';

/**
 * Generated option values for every slash command, through each command's real execute (and autocomplete, and its
 * buttons) in-process, with our service behind the real adapter and a real subscription store: each gets one
 * specific answer that pings nobody, quotes the member's input inertly, fits Discord, and comes in bounded time.
 * test/generated/command-options-discord.test.ts runs a sample through discord.js and the local Discord server.
 */

const SEED = 2_468;
const GUILD = '100000000000000001';
const ALL: ChannelPermission[] = ['ViewChannel', 'SendMessages', 'EmbedLinks', 'ReadMessageHistory'];

/** What a member's invocation carries, beyond its options. */
interface Invocation {
  strings?: Record<string, string>;
  integers?: Record<string, number>;
  booleans?: Record<string, boolean>;
  subcommand?: string;
  channel?: ChannelRef | null;
  role?: RoleRef | null;
  guildId?: string | null;
  canManageChannels?: boolean;
  /** The bot's permissions in any channel; null: the transport cannot tell. */
  permissions?: ChannelPermission[] | null;
}

interface Recorded {
  deferrals: number;
  answers: OutgoingMessage[];
}

/** A context that records, and checks what Discord would: one deferral at most, and only before an answer. */
function recorder(invocation: Invocation): { recorded: Recorded; base: Omit<CommandContext, 'commandName' | 'options'> } {
  const recorded: Recorded = { deferrals: 0, answers: [] };
  const base: Omit<CommandContext, 'commandName' | 'options'> = {
    invoker: {
      userId: '400000000000000001',
      guildId: invocation.guildId === undefined ? GUILD : invocation.guildId,
      channelId: '200000000000000009',
      canManageChannels: invocation.canManageChannels ?? true,
    },
    get acknowledged() {
      return recorded.deferrals > 0 || recorded.answers.length > 0;
    },
    async defer() {
      if (recorded.deferrals > 0 || recorded.answers.length > 0) throw new Error('deferred after the interaction was acknowledged');
      recorded.deferrals += 1;
    },
    async respond(message) {
      recorded.answers.push(message);
    },
  };
  if (invocation.permissions !== null) base.botPermissionsIn = async () => new Set(invocation.permissions ?? ALL);
  // The member may manage every channel alike here; per-channel overwrites are test/schedule/admin-permissions-*'s.
  base.memberCanManageChannel = async () => invocation.canManageChannels ?? true;
  return { recorded, base };
}

async function execute(command: SlashCommand, invocation: Invocation): Promise<OutgoingMessage> {
  const { recorded, base } = recorder(invocation);
  const context: CommandContext = {
    ...base,
    commandName: command.data.name,
    options: {
      getString: (name) => invocation.strings?.[name] ?? null,
      getInteger: (name) => invocation.integers?.[name] ?? null,
      getChannel: () => invocation.channel ?? null,
      getRole: () => invocation.role ?? null,
      getBoolean: (name) => invocation.booleans?.[name] ?? null,
      getSubcommand: () => invocation.subcommand ?? null,
    },
  };
  Object.defineProperty(context, 'acknowledged', { get: () => recorded.deferrals > 0 || recorded.answers.length > 0 });
  const where = `/${command.data.name} ${JSON.stringify(invocation).slice(0, 300)}`;
  await withinBound(where, command.execute(context, services));
  expect(recorded.answers, `${where}: answers`).toHaveLength(1);
  return recorded.answers[0] as OutgoingMessage;
}

async function press(command: SlashCommand, customId: string): Promise<OutgoingMessage> {
  const { recorded, base } = recorder({});
  const context: ButtonContext = { ...base, customId, update: async (message) => void recorded.answers.push(message) };
  Object.defineProperty(context, 'acknowledged', { get: () => recorded.deferrals > 0 || recorded.answers.length > 0 });
  const handler = command.button;
  if (!handler) throw new Error(`/${command.data.name} has no buttons`);
  await withinBound(`press ${JSON.stringify(customId)}`, handler.handle(context, services));
  expect(recorded.answers, `press ${JSON.stringify(customId)}: answers`).toHaveLength(1);
  return recorded.answers[0] as OutgoingMessage;
}

/** What the service side can always answer with, whatever was asked. */
const SERVICE_TROUBLE = /service is busy|cannot be reached|could not make sense of|did not accept/;

// ------------------------------------------------------------------------------------------ generated values

/**
 * A string option as Discord or the console would pass it (within its max_length, whole characters: neither can
 * deliver half of one), now and then longer.
 */
const stringOption = (near: string[], maxLength: number) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...near) },
    { weight: 5, arbitrary: nastyText({ extra: near, maxPieces: 6 }).map((text) => text.slice(0, maxLength).replace(/[\ud800-\udbff]$/, '')) },
    { weight: 1, arbitrary: nastyText({ extra: near, huge: 3_000 }) },
  );

const dateOption = fc.option(stringOption([...DATES, '2024-11-01', '01-11-2024', '2024-10-31', '2025-01-13'], 32), { nil: undefined });
const limitOption = fc.option(
  fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer(), fc.constantFrom(0, -1, 9, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, -0, 1e21)),
  { nil: undefined },
);
const wordOption = stringOption(['serendipity', 'SERENDIPITY', RECURRING, ` ${RECURRING} `, 'mark_down', 'abide', 'zzz', 'seren', 'a', ''], 100);

const snowflake = fc.bigInt({ min: 10n ** 16n, max: 10n ** 19n }).map(String);
const channelOption: fc.Arbitrary<ChannelRef | null> = fc.option(
  fc.record({
    id: fc.oneof({ weight: 5, arbitrary: snowflake }, { weight: 1, arbitrary: fc.constantFrom('200000000000000001', '200000000000000002') }),
    name: nastyText({ extra: ['general', 'news', 'words'], maxPieces: 4 }),
    kind: fc.constantFrom<ChannelRef['kind']>('text', 'announcement', 'other'),
  }),
  { nil: null },
);
const roleOption: fc.Arbitrary<RoleRef | null> = fc.option(
  fc.record({ id: fc.oneof({ weight: 5, arbitrary: snowflake }, { weight: 1, arbitrary: fc.constant(GUILD) }), name: nastyText({ maxPieces: 3 }) }),
  { nil: null },
);
const timeOption = fc.option(stringOption(['09:00', '9:05', '00:00', '23:59', '24:00', '12:60', '7', '07:30 ', '-1:00', '٠٩:٠٠'], 5), { nil: undefined });
const zoneOption = fc.option(
  stringOption(['UTC', 'Europe/London', 'europe/london', 'America/New_York', 'Mars/Olympus', '+05:00', 'Etc/GMT+5', 'EST', 'local', 'Europe'], 64),
  { nil: undefined },
);

// ------------------------------------------------------------------------------------------ the world

let world: CommandWorld;
let store: SubscriptionStore;
let services: BotServices;
let cleanup: () => void;
const unhandled = trackUnhandled();

beforeAll(async () => {
  world = await startCommandWorld({ rateLimit: WORLD_RATE_LIMIT });
  const temp = tempStore();
  cleanup = temp.cleanup;
  store = await SubscriptionStore.open(temp.url);
  services = { ...world.services, subscriptions: createSubscriptionService({ store, limit: 5, now: world.now }) };
});

afterAll(async () => {
  unhandled.stop();
  await store?.close();
  await world?.close();
  cleanup?.();
  expect(unhandled.problems).toEqual([]);
});

const WOTD_REASONS = /is not a date I can read|is not a real calendar day|has not been revealed yet|There is no word of the day for/;

describe('generated slash-command options', () => {
  it('/wotd date', async () => {
    const given = optionCounts(['date']);
    await fc.assert(
      fc.asyncProperty(dateOption, async (date) => {
        given.see({ date });
        const answer = await execute(wotdCommand, { strings: date === undefined ? {} : { date } });
        expectAnswer(answer, `/wotd date:${JSON.stringify(date)}`, date ?? '', new RegExp(`${WOTD_REASONS.source}|${SERVICE_TROUBLE.source}`));
      }),
      settings(SEED, RUNS_WITH_OPTIONAL),
    );
    given.expectEachAtLeast();
  }, PROPERTY_TIMEOUT_MS);

  it('/wotd-history date and limit', async () => {
    const given = optionCounts(['date', 'limit']);
    await fc.assert(
      fc.asyncProperty(dateOption, limitOption, async (date, limit) => {
        given.see({ date, limit });
        const answer = await execute(wotdHistoryCommand, {
          strings: date === undefined ? {} : { date },
          integers: limit === undefined ? {} : { limit },
        });
        const reasons = new RegExp(`${WOTD_REASONS.source}|no words of the day before|The limit must be a whole number from 1 to 8|${SERVICE_TROUBLE.source}`);
        expectAnswer(answer, `/wotd-history date:${JSON.stringify(date)} limit:${String(limit)}`, `${date ?? ''} ${String(limit)}`, reasons);
        for (const button of answer.buttons ?? []) expect(button.customId.length).toBeLessThanOrEqual(100);
      }),
      settings(SEED, RUNS_WITH_OPTIONAL),
    );
    given.expectEachAtLeast();
  }, PROPERTY_TIMEOUT_MS);

  it('/wotd-find word', async () => {
    await fc.assert(
      fc.asyncProperty(wordOption, async (word) => {
        const answer = await execute(wotdFindCommand, { strings: { word } });
        const reasons = new RegExp(`has not been a word of the day|Tell me which word to look for|longer than any word of the day|${SERVICE_TROUBLE.source}`);
        expectAnswer(answer, `/wotd-find word:${JSON.stringify(word.slice(0, 200))}`, word, reasons);
        for (const button of answer.buttons ?? []) expect(button.customId.length).toBeLessThanOrEqual(100);
      }),
      settings(SEED, RUNS),
    );
  }, PROPERTY_TIMEOUT_MS);

  it('/wotd-find word autocomplete', async () => {
    await fc.assert(
      fc.asyncProperty(wordOption, fc.constantFrom('word', 'other'), async (typed, focused) => {
        let answered: AutocompleteChoice[][] = [];
        const autocomplete = wotdFindCommand.autocomplete;
        if (!autocomplete) throw new Error('/wotd-find has no autocomplete');
        await withinBound(
          `autocomplete ${JSON.stringify(typed.slice(0, 100))}`,
          autocomplete(
            {
              invoker: { userId: '1', guildId: GUILD, channelId: '2', canManageChannels: false },
              commandName: 'wotd-find',
              focused: { name: focused, value: typed },
              respond: async (choices) => void (answered = [...answered, choices]),
            },
            services,
          ),
        );
        expect(answered).toHaveLength(1);
        const choices = answered[0] as AutocompleteChoice[];
        expect(choices.length).toBeLessThanOrEqual(25);
        for (const choice of choices) expect(choice.value.toLowerCase().startsWith(typed.trim().toLowerCase())).toBe(true);
      }),
      settings(SEED, RUNS),
    );
  }, PROPERTY_TIMEOUT_MS);

  it('the Newer, Older and page buttons, with any custom id', async () => {
    const anyRest = nastyText({ extra: [...DATES, ...NUMBERS, ':', RECURRING, 'find:2:echo', 'hist:2025-01-10:3'], maxPieces: 4 });
    // Discord keeps a custom id to 100 characters.
    const customId = fc.oneof(
      fc.tuple(fc.constantFrom('find:', 'hist:'), anyRest).map(([prefix, rest]) => `${prefix}${rest}`.slice(0, 100)),
      fc.tuple(fc.integer({ min: -2, max: 10_000 }), wordOption).map(([page, word]) => `find:${page}:${word}`.slice(0, 100)),
      fc.tuple(stringOption(DATES, 32), fc.integer({ min: -1, max: 100 })).map(([date, limit]) => `hist:${date}:${limit}`.slice(0, 100)),
    );
    const reasons = new RegExp(
      `This button no longer works|That page of results is gone|has not been a word of the day|no words of the day before|${SERVICE_TROUBLE.source}`,
    );
    await fc.assert(
      fc.asyncProperty(customId, async (id) => {
        const command = id.startsWith('find:') ? wotdFindCommand : wotdHistoryCommand;
        const answer = await press(command, id);
        expectAnswer(answer, `press ${JSON.stringify(id)}`, id, reasons);
      }),
      settings(SEED, RUNS),
    );
  }, PROPERTY_TIMEOUT_MS);

  it('/wotd-subscribe channel, time, timezone, role, style, thread and publish', async () => {
    const guildId = fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(GUILD, '100000000000000002', '100000000000000003') },
      { weight: 1, arbitrary: fc.constant(null) },
    );
    const reasons = new RegExp(
      [
        '^(Subscribed|Updated|Updated and re-enabled) <#\\d+>',
        'is not a text, announcement, forum or media channel',
        'is not a time of day',
        'is not a time zone I know',
        'never ping @\u200beveryone',
        'cannot check my permissions',
        "I can't post in",
        'already has \\d+ daily-post subscriptions',
        'Manage Channels',
        'in a server channel',
        'Choose the channel',
        'Only announcement channels can publish',
      ].join('|'),
    );
    // Discord offers style only as a choice; the command must still cope with anything else a transport hands it.
    const styleOption = fc.option(fc.oneof(fc.constantFrom('full', 'compact'), nastyText({ maxPieces: 3 })), { nil: undefined });
    const extras = fc.record({ style: styleOption, thread: fc.option(fc.boolean(), { nil: undefined }), publish: fc.option(fc.boolean(), { nil: undefined }) });
    const options = fc.tuple(channelOption, timeOption, zoneOption, roleOption, guildId, fc.boolean(), extras);
    const permissions = fc.oneof(
      { weight: 6, arbitrary: fc.constant(ALL) },
      { weight: 2, arbitrary: fc.subarray(ALL) },
      { weight: 1, arbitrary: fc.constant(null) },
    );
    const given = optionCounts(['channel', 'time', 'timezone', 'role', 'style', 'thread', 'publish']);
    await fc.assert(
      fc.asyncProperty(options, permissions, async ([channel, time, timeZone, role, guild, manage, { style, thread, publish }], held) => {
        given.see({ channel, time, timezone: timeZone, role, style, thread, publish });
        const invocation: Invocation = {
          channel,
          role,
          strings: {
            ...(time === undefined ? {} : { time }),
            ...(timeZone === undefined ? {} : { timezone: timeZone }),
            ...(style === undefined ? {} : { style }),
          },
          booleans: { ...(thread === undefined ? {} : { thread }), ...(publish === undefined ? {} : { publish }) },
          guildId: guild,
          canManageChannels: manage || guild === GUILD,
          permissions: held,
        };
        const answer = await execute(wotdSubscribeCommand, invocation);
        const ownTags = [channel ? `<#${channel.id}>` : '', role ? `<@&${role.id}>` : ''].filter(Boolean);
        const where = `/wotd-subscribe ${JSON.stringify(invocation).slice(0, 400)}`;
        expectAnswer(answer, where, `${time ?? ''} ${timeZone ?? ''} ${channel?.name ?? ''} ${role?.name ?? ''}`, reasons, ownTags);
      }),
      settings(SEED, RUNS_WITH_OPTIONAL),
    );
    given.expectEachAtLeast();
  }, PROPERTY_TIMEOUT_MS);

  it('/wotd-subscribe timezone autocomplete', async () => {
    const given = optionCounts(['timezone']);
    await fc.assert(
      fc.asyncProperty(zoneOption, async (typed) => {
        given.see({ timezone: typed });
        let answered: AutocompleteChoice[][] = [];
        const autocomplete = wotdSubscribeCommand.autocomplete;
        if (!autocomplete) throw new Error('/wotd-subscribe has no autocomplete');
        await autocomplete(
          {
            invoker: { userId: '1', guildId: GUILD, channelId: '2', canManageChannels: true },
            commandName: 'wotd-subscribe',
            focused: { name: 'timezone', value: typed ?? '' },
            respond: async (choices) => void (answered = [...answered, choices]),
          },
          services,
        );
        expect(answered).toHaveLength(1);
        const choices = answered[0] as AutocompleteChoice[];
        expect(choices.length).toBeLessThanOrEqual(25);
        for (const choice of choices) {
          expect(canonicalTimeZone(choice.value), choice.value).toBe(choice.value);
          expect(choice.name.length).toBeLessThanOrEqual(100);
        }
      }),
      settings(SEED, RUNS_WITH_OPTIONAL),
    );
    given.expectEachAtLeast();
  }, PROPERTY_TIMEOUT_MS);

  it('/wotd-unsubscribe channel', async () => {
    const given = optionCounts(['channel']);
    await fc.assert(
      fc.asyncProperty(channelOption, fc.constantFrom<string | null>(GUILD, '100000000000000002', null), async (channel, guild) => {
        given.see({ channel });
        const answer = await execute(wotdUnsubscribeCommand, { channel, guildId: guild });
        const reasons = /^Unsubscribed <#\d+>|has no daily-post subscription|Choose the channel|in a server channel/;
        expectAnswer(answer, `/wotd-unsubscribe ${JSON.stringify(channel)}`, channel?.name ?? '', reasons, channel ? [`<#${channel.id}>`] : []);
      }),
      settings(SEED, RUNS_WITH_OPTIONAL),
    );
    given.expectEachAtLeast();
  }, PROPERTY_TIMEOUT_MS);

  it('/wotd-subscriptions lists whatever the generated runs subscribed, specifically and within Discord’s limits', async () => {
    for (const guild of [GUILD, '100000000000000002', '100000000000000003']) {
      const answer = await execute(wotdSubscriptionsCommand, { guildId: guild });
      const listed = (await store.listGuild(guild)).flatMap((subscription) => [`<#${subscription.channelId}>`, subscription.roleId ? `<@&${subscription.roleId}>` : '']);
      expectAnswer(answer, `/wotd-subscriptions in ${guild}`, '', /No channel here gets the daily word yet/, [...listed.filter(Boolean), /<t:\d+:[FR]>/g]);
    }
  });
});
