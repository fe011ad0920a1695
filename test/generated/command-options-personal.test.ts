import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wotdDataCommand } from '../../commands/wotd-data.ts';
import { wotdSubscribeCommand } from '../../commands/wotd-subscribe.ts';
import { wotdSubscribeMeCommand } from '../../commands/wotd-subscribe-me.ts';
import { wotdUnsubscribeMeCommand } from '../../commands/wotd-unsubscribe-me.ts';
import type {
  AutocompleteChoice,
  BotServices,
  ButtonContext,
  ChannelPermission,
  ChannelRef,
  CommandContext,
  Invoker,
  OutgoingMessage,
  RoleRef,
  SlashCommand,
} from '../../src/replies/interactions.ts';
import { PrivacyService, type DataExport } from '../../src/schedule/privacy.ts';
import type { Subscription } from '../../src/schedule/subscription.ts';
import { createSubscriptionService } from '../../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { canonicalTimeZone } from '../../src/schedule/zoned-time.ts';
import { startCommandWorld, TODAY, type CommandWorld } from '../commands/world.ts';
import { tempStore } from '../schedule/helpers.ts';
import { expectAnswer } from './discord-checks.ts';
import { nastyText, optionCounts, PROPERTY_TIMEOUT_MS, RUNS, RUNS_WITH_OPTIONAL, settings, trackUnhandled, withinBound, WORLD_RATE_LIMIT } from './generated.ts';

/**
 * Generated option values, places and button ids for the commands about a member's own things: /wotd-subscribe-me,
 * /wotd-unsubscribe-me, /wotd-data (export, forget and its Erase button) and /wotd-subscribe's preview, through each
 * command's real execute in-process with a real store and privacy service. As in command-options.test.ts, each gets
 * one specific answer that pings nobody, quotes input inertly and fits Discord; and each changes only what it says it
 * changes: a refusal, a preview or a question changes nothing, and nothing about other members is shown or erased.
 */

const SEED = 1_357;
const GUILD_A = '100000000000000001';
const GUILD_B = '100000000000000002';
const MEMBERS = ['400000000000000001', '400000000000000002', '400000000000000003'];
const ALL: ChannelPermission[] = ['ViewChannel', 'SendMessages', 'EmbedLinks', 'ReadMessageHistory'];
const SERVICE_TROUBLE = /service is busy|cannot be reached|could not make sense of|did not accept/;

// ------------------------------------------------------------------------------------------ the world

let world: CommandWorld;
let store: SubscriptionStore;
let services: BotServices;
let cleanup: () => void;
const unhandled = trackUnhandled();

/** Server subscriptions: in A one created by each member, in B by the others; a DM subscription for the others. */
const SEEDED: Array<{ guildId: string; channelId: string; createdBy: string }> = [
  ...MEMBERS.map((member, index) => ({ guildId: GUILD_A, channelId: `20000000000000001${index}`, createdBy: member })),
  ...MEMBERS.slice(1).map((member, index) => ({ guildId: GUILD_B, channelId: `20000000000000002${index}`, createdBy: member })),
];

/** The seeded data again, as it was (after an erasure). */
async function seed(): Promise<void> {
  const subscriptions = services.subscriptions;
  if (!subscriptions) throw new Error('no subscriptions');
  for (const item of SEEDED) {
    await store.remove(item.guildId, item.channelId);
    await subscriptions.subscribe({ ...item, channelName: `words-${item.channelId.slice(-2)}`, time: '06:00', timeZone: 'UTC', roleId: null, userId: item.createdBy });
  }
  for (const member of MEMBERS.slice(1)) await subscriptions.subscribeDm({ userId: member, time: '07:00', timeZone: 'Europe/London' });
  for (const channelId of [...SEEDED.map((item) => item.channelId), ...MEMBERS.map((member) => `dm:${member}`)]) {
    const at = `${TODAY}T06:00:05.000Z`;
    await store.putDelivery({ channelId, day: TODAY, state: 'sent', nonce: `n${channelId.slice(-8)}`, attempts: 1, messageId: '300000000000000001', updatedAt: at });
  }
}

beforeAll(async () => {
  world = await startCommandWorld({ rateLimit: WORLD_RATE_LIMIT });
  const temp = tempStore();
  cleanup = temp.cleanup;
  store = await SubscriptionStore.open(temp.url);
  services = {
    ...world.services,
    subscriptions: createSubscriptionService({ store, limit: 5, now: world.now }),
    privacy: new PrivacyService(store, world.now),
  };
  await seed();
});

afterAll(async () => {
  unhandled.stop();
  await store?.close();
  await world?.close();
  cleanup?.();
  expect(unhandled.problems).toEqual([]);
});

/** Everything stored, in a stable order, to compare before and after. */
async function snapshot(): Promise<Subscription[]> {
  return (await store.listAll()).sort((a, b) => a.channelId.localeCompare(b.channelId));
}

// ------------------------------------------------------------------------------------------ invocations

interface Recorded {
  deferrals: Array<{ ephemeral?: boolean } | undefined>;
  answers: Array<{ how: 'respond' | 'update'; message: OutgoingMessage }>;
}

function recording(invoker: Invoker): { recorded: Recorded; base: Omit<CommandContext, 'commandName' | 'options'> } {
  const recorded: Recorded = { deferrals: [], answers: [] };
  const acknowledged = (): boolean => recorded.deferrals.length > 0 || recorded.answers.length > 0;
  const base: Omit<CommandContext, 'commandName' | 'options'> = {
    invoker,
    get acknowledged() {
      return acknowledged();
    },
    async defer(options) {
      if (acknowledged()) throw new Error('deferred after the interaction was acknowledged');
      recorded.deferrals.push(options);
    },
    async respond(message) {
      recorded.answers.push({ how: 'respond', message });
    },
  };
  return { recorded, base };
}

interface Options {
  strings?: Record<string, string>;
  booleans?: Record<string, boolean>;
  subcommand?: string | null;
  channel?: ChannelRef | null;
  role?: RoleRef | null;
  /** The bot's permissions in any channel; null: the transport cannot tell. */
  permissions?: ChannelPermission[] | null;
}

async function run(command: SlashCommand, invoker: Invoker, options: Options = {}): Promise<{ answer: OutgoingMessage; recorded: Recorded }> {
  const { recorded, base } = recording(invoker);
  const context: CommandContext = {
    ...base,
    commandName: command.data.name,
    options: {
      getString: (name) => options.strings?.[name] ?? null,
      getInteger: () => null,
      getBoolean: (name) => options.booleans?.[name] ?? null,
      getSubcommand: () => options.subcommand ?? null,
      getChannel: () => options.channel ?? null,
      getRole: () => options.role ?? null,
    },
  };
  Object.defineProperty(context, 'acknowledged', { get: () => recorded.deferrals.length > 0 || recorded.answers.length > 0 });
  if (options.permissions !== null) context.botPermissionsIn = async () => new Set(options.permissions ?? ALL);
  context.memberCanManageChannel = async () => invoker.canManageChannels;
  const where = `/${command.data.name} ${JSON.stringify({ invoker, options }).slice(0, 400)}`;
  await withinBound(where, command.execute(context, services));
  expect(recorded.answers, `${where}: answers`).toHaveLength(1);
  return { answer: (recorded.answers[0] as Recorded['answers'][number]).message, recorded };
}

async function press(customId: string, invoker: Invoker): Promise<Recorded> {
  const { recorded, base } = recording(invoker);
  const context: ButtonContext = { ...base, customId, update: async (message) => void recorded.answers.push({ how: 'update', message }) };
  Object.defineProperty(context, 'acknowledged', { get: () => recorded.deferrals.length > 0 || recorded.answers.length > 0 });
  const handler = wotdDataCommand.button;
  if (!handler) throw new Error('/wotd-data has no buttons');
  // The router hands a button to the command its custom id's prefix (before the first ':') names.
  expect(customId.split(':')[0]).toBe(handler.prefix);
  await withinBound(`press ${JSON.stringify(customId)}`, handler.handle(context, services));
  expect(recorded.answers, `press ${JSON.stringify(customId)}: answers`).toHaveLength(1);
  return recorded;
}

// ------------------------------------------------------------------------------------------ generated values

type Place = 'guild' | 'bot_dm' | 'private_channel' | 'unsaid';

/**
 * Who asks, and where: a server (the bot in it or not, with or without Manage Server and Manage Channels), the
 * bot's DM, a group DM, or a transport that does not say.
 */
const invokerArb: fc.Arbitrary<Invoker> = fc
  .record({
    userId: fc.constantFrom(...MEMBERS),
    place: fc.constantFrom<Place>('guild', 'guild', 'bot_dm', 'private_channel', 'unsaid'),
    guildId: fc.constantFrom(GUILD_A, GUILD_B, '100000000000000003'),
    canManageGuild: fc.boolean(),
    canManageChannels: fc.boolean(),
    botInGuild: fc.option(fc.boolean(), { nil: undefined }),
  })
  .map(({ userId, place, guildId, canManageGuild, canManageChannels, botInGuild }) => {
    const inServer = place === 'guild' || (place === 'unsaid' && canManageChannels);
    return {
      userId,
      guildId: inServer ? guildId : null,
      channelId: '200000000000000009',
      canManageChannels: inServer && canManageChannels,
      canManageGuild: inServer && canManageGuild,
      ...(place === 'unsaid' ? {} : { context: place }),
      ...(inServer && botInGuild !== undefined ? { botInGuild } : {}),
    };
  });

/** Mostly a Manage Channels member in a server the bot is in (where a subscription can succeed), else anyone anywhere. */
const adminArb: fc.Arbitrary<Invoker> = fc.oneof(
  { weight: 2, arbitrary: invokerArb.map((invoker) => ({ ...invoker, guildId: GUILD_A, context: 'guild' as const, botInGuild: true, canManageChannels: true })) },
  { weight: 1, arbitrary: invokerArb },
);

/** The server whose data the member may see and erase (the rule /wotd-data states in its replies and the README). */
function manageable(invoker: Invoker): string | null {
  if (!invoker.guildId || invoker.botInGuild === false || invoker.context === 'private_channel') return null;
  return invoker.canManageGuild === true ? invoker.guildId : null;
}

const stringOption = (near: string[], maxLength: number) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...near) },
    { weight: 5, arbitrary: nastyText({ extra: near, maxPieces: 6 }).map((text) => text.slice(0, maxLength).replace(/[\ud800-\udbff]$/, '')) },
    { weight: 1, arbitrary: nastyText({ extra: near, huge: 3_000 }) },
  );
const timeOption = fc.option(stringOption(['09:00', '9:05', '00:00', '23:59', '24:00', '12:60', '7', '07:30 ', '-1:00', '٠٩:٠٠'], 5), { nil: undefined });
const zoneOption = fc.option(
  stringOption(['UTC', 'Europe/London', 'europe/london', 'America/New_York', 'Mars/Olympus', '+05:00', 'Etc/GMT+5', 'EST', 'local', 'Europe'], 64),
  { nil: undefined },
);
/** Time and zone values that are mostly good, so a run often gets past them. */
const mostlyGood = (good: string[], any: fc.Arbitrary<string | undefined>) =>
  fc.oneof({ weight: 2, arbitrary: fc.constantFrom<string | undefined>(undefined, ...good) }, { weight: 1, arbitrary: any });
const goodTimes = ['09:00', '7:30', '23:59', '00:00', '18:05'];
const goodZones = ['UTC', 'Europe/London', 'america/new_york', 'Asia/Kolkata', 'Etc/GMT+5'];

/** Discord offers style only as a choice; a transport may still hand anything. */
const styleOption = fc.option(fc.oneof(fc.constantFrom('full', 'compact'), nastyText({ maxPieces: 3 })), { nil: undefined });

function strings(values: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

const OWN_TIMES = /<t:\d+:[FR]>/g;

// ------------------------------------------------------------------------------------------ the properties

describe('generated options of the personal commands', () => {
  it('/wotd-subscribe-me time, timezone and style, anywhere', async () => {
    let saved = 0;
    const reasons = /^(Subscribed|Updated|Updated and re-enabled): I'll DM you the word of the day every day at \d\d:\d\d \(|is not a time of day|is not a time zone I know/;
    const given = optionCounts(['time', 'timezone', 'style']);
    await fc.assert(
      fc.asyncProperty(invokerArb, mostlyGood(goodTimes, timeOption), mostlyGood(goodZones, zoneOption), styleOption, async (invoker, time, timezone, style) => {
        given.see({ time, timezone, style });
        const before = await snapshot();
        const { answer } = await run(wotdSubscribeMeCommand, invoker, { strings: strings({ time, timezone, style }) });
        const where = `/wotd-subscribe-me ${JSON.stringify({ time, timezone, style }).slice(0, 300)}`;
        expectAnswer(answer, where, `${time ?? ''} ${timezone ?? ''}`, reasons, [OWN_TIMES]);
        expect(answer.ephemeral, where).toBe(true);
        const mine = `dm:${invoker.userId}`;
        const after = await snapshot();
        // Only the member's own DM subscription may change, and only when the answer says so.
        expect(after.filter((item) => item.channelId !== mine), where).toEqual(before.filter((item) => item.channelId !== mine));
        if (/^(Subscribed|Updated)/.test(answer.content ?? '')) {
          const subscription = after.find((item) => item.channelId === mine);
          expect(subscription, where).toMatchObject({ guildId: `user:${invoker.userId}`, style: style === 'compact' ? 'compact' : 'full', status: { state: 'active' } });
          // The zone as stored; when typed under another name (Asia/Kolkata is stored as Asia/Calcutta), that name after it.
          const said = `at ${subscription?.time} (${subscription?.timeZone}`;
          expect(answer.content, where).toContain(said);
          expect((answer.content ?? '').split(said)[1], where).toMatch(/^(\)|, which is what .+ means\))/);
          saved += 1;
        } else {
          expect(after, where).toEqual(before);
        }
      }),
      settings(SEED, RUNS_WITH_OPTIONAL),
    );
    given.expectEachAtLeast();
    // The generators reach the subscription itself, not only the refusals.
    expect(saved).toBeGreaterThan(RUNS / 10);
  }, PROPERTY_TIMEOUT_MS);

  it('/wotd-subscribe-me timezone autocomplete', async () => {
    const autocomplete = wotdSubscribeMeCommand.autocomplete;
    if (!autocomplete) throw new Error('/wotd-subscribe-me has no autocomplete');
    const focusedName = fc.oneof({ weight: 4, arbitrary: fc.constant('timezone') }, { weight: 1, arbitrary: fc.constantFrom('time', 'style', '') });
    const given = optionCounts(['timezone']);
    await fc.assert(
      fc.asyncProperty(invokerArb, focusedName, zoneOption, async (invoker, name, typed) => {
        given.see({ timezone: typed });
        let answered: AutocompleteChoice[][] = [];
        await withinBound(
          `autocomplete ${JSON.stringify((typed ?? '').slice(0, 100))}`,
          autocomplete({ invoker, commandName: 'wotd-subscribe-me', focused: { name, value: typed ?? '' }, respond: async (choices) => void (answered = [...answered, choices]) }, services),
        );
        expect(answered).toHaveLength(1);
        const choices = answered[0] as AutocompleteChoice[];
        if (name !== 'timezone') expect(choices).toEqual([]);
        expect(choices.length).toBeLessThanOrEqual(25);
        for (const choice of choices) {
          expect(canonicalTimeZone(choice.value), choice.value).toBe(choice.value);
          expect(choice.name.length).toBeGreaterThan(0);
          expect(choice.name.length).toBeLessThanOrEqual(100);
          expect(choice.value.length).toBeLessThanOrEqual(100);
        }
      }),
      settings(SEED, RUNS_WITH_OPTIONAL),
    );
    given.expectEachAtLeast();
  }, PROPERTY_TIMEOUT_MS);

  it('/wotd-unsubscribe-me, with and without a subscription, anywhere', async () => {
    const subscriptions = services.subscriptions;
    if (!subscriptions) throw new Error('no subscriptions');
    await fc.assert(
      fc.asyncProperty(invokerArb, fc.boolean(), async (invoker, subscribed) => {
        if (subscribed) await subscriptions.subscribeDm({ userId: invoker.userId, time: '08:00', timeZone: 'UTC' });
        else await subscriptions.unsubscribeDm(invoker.userId);
        const mine = `dm:${invoker.userId}`;
        const before = await snapshot();
        const { answer } = await run(wotdUnsubscribeMeCommand, invoker);
        const where = `/wotd-unsubscribe-me ${JSON.stringify({ invoker, subscribed })}`;
        expectAnswer(answer, where, '', subscribed ? /^Unsubscribed: no more word-of-the-day DMs/ : /^You do not get the word of the day in your DMs; nothing to stop/);
        expect(await snapshot(), where).toEqual(before.filter((item) => item.channelId !== mine));
      }),
      settings(SEED, RUNS),
    );
    await seed();
  }, PROPERTY_TIMEOUT_MS);

  it('/wotd-data with any subcommand and server value, anywhere: export sends only the member’s (and a managed server’s) data; forget only asks', async () => {
    const subcommand = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom<string | null>('export', 'forget') },
      { weight: 1, arbitrary: fc.option(fc.oneof(fc.constantFrom('Export', 'forget ', 'keep', 'data'), nastyText({ maxPieces: 3 })), { nil: null }) },
    );
    const server = fc.option(fc.boolean(), { nil: undefined });
    // Exports of a server with subscriptions other members created, where their ids must not show.
    let serverExports = 0;
    const reasons = new RegExp(
      [
        '^Everything I store about you is in wotd-data\\.json',
        '^This erases your DM subscription',
        "^Erasing a server's data needs \\*\\*Manage Server\\*\\*, in a server I am in",
        '^Choose `/wotd-data export` or `/wotd-data forget`',
      ].join('|'),
    );
    const given = optionCounts(['subcommand', 'server']);
    await fc.assert(
      fc.asyncProperty(invokerArb, subcommand, server, async (invoker, sub, wantsServer) => {
        given.see({ subcommand: sub, server: wantsServer });
        const before = await snapshot();
        const { answer, recorded } = await run(wotdDataCommand, invoker, { subcommand: sub, booleans: wantsServer === undefined ? {} : { server: wantsServer } });
        const where = `/wotd-data ${JSON.stringify({ invoker, sub, wantsServer })}`;
        expectAnswer(answer, where, sub ?? '', reasons);
        expect(answer.ephemeral, where).toBe(true);
        for (const deferral of recorded.deferrals) expect(deferral, `${where}: a public deferral`).toEqual({ ephemeral: true });
        // Neither the export nor the question changes anything.
        expect(await snapshot(), where).toEqual(before);
        const serverId = manageable(invoker);

        if (sub === 'export') {
          expect(answer.files?.map((file) => file.name), where).toEqual(['wotd-data.json']);
          const text = answer.files?.[0]?.text ?? '';
          const exported = JSON.parse(text) as DataExport;
          expect(exported.member.id, where).toBe(invoker.userId);
          expect(exported.server?.id ?? null, where).toBe(serverId);
          if (exported.server) serverExports += 1;
          for (const other of MEMBERS.filter((member) => member !== invoker.userId)) {
            expect(text.includes(other), `${where}: the export names another member, ${other}`).toBe(false);
          }
          const own = before.filter((item) => item.createdBy === invoker.userId && !item.channelId.startsWith('dm:')).map((item) => item.channelId);
          expect(exported.member.serverSubscriptionsCreated.map((item) => item.channelId).sort(), where).toEqual(own.sort());
          for (const record of exported.member.dmDeliveries) expect(record.channelId, where).toBe(`dm:${invoker.userId}`);
          for (const item of exported.server?.subscriptions ?? []) expect(item.guildId, where).toBe(serverId);
          const serverChannels = new Set(exported.server?.subscriptions.map((item) => item.channelId));
          for (const record of exported.server?.deliveries ?? []) expect(serverChannels.has(record.channelId), where).toBe(true);
          return;
        }
        expect(answer.files ?? [], where).toEqual([]);
        if (sub === 'forget' && wantsServer === true && !serverId) {
          expect(answer.buttons ?? [], where).toEqual([]);
        } else if (sub === 'forget') {
          const scope = wantsServer === true ? 'server' : 'me';
          expect(answer.buttons?.map((button) => button.customId), where).toEqual([
            `data:forget:${scope}:${invoker.userId}:${scope === 'server' ? serverId : '-'}`,
            'data:keep',
          ]);
          for (const button of answer.buttons ?? []) expect(button.customId.length).toBeLessThanOrEqual(100);
        }
      }),
      settings(SEED, RUNS_WITH_OPTIONAL),
    );
    given.expectEachAtLeast();
    expect(serverExports).toBeGreaterThan(RUNS / 50);
  }, PROPERTY_TIMEOUT_MS);

  it('the Erase and Keep buttons of /wotd-data forget, with any custom id, pressed by anyone anywhere', async () => {
    const piece = (near: string[]) => fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...near) }, { weight: 1, arbitrary: nastyText({ extra: [':', '-'], maxPieces: 3 }) });
    const customId = fc.oneof(
      { weight: 1, arbitrary: fc.constantFrom('data', 'data:', 'data:keep', 'data:keep:', 'data:forget', 'data:forget:me', 'data:forget:me:-:-') },
      {
        weight: 6,
        arbitrary: fc
          .tuple(piece(['me', 'server', 'me', 'server', 'ME', 'all']), piece([...MEMBERS, '-', '']), piece([GUILD_A, GUILD_B, '-', '']))
          .map(([scope, user, guild]) => `data:forget:${scope}:${user}:${guild}`.slice(0, 100)),
      },
      { weight: 1, arbitrary: nastyText({ extra: [':', 'keep', 'forget'], maxPieces: 5 }).map((rest) => `data:${rest}`.slice(0, 100)) },
    );
    let erased = 0;
    const reasons = new RegExp(
      [
        '^Nothing was erased\\.$',
        '^Erased (your DM subscription and its records|the \\d+ delivery records? of your earlier DM subscription|no DM subscription \\(there was none\\)), your id on \\d+ server subscriptions?',
        '^This button no longer works',
        '^This button belongs to someone else',
        "^You no longer have \\*\\*Manage Server\\*\\* here, so this server's data was not erased",
      ].join('|'),
    );
    await fc.assert(
      fc.asyncProperty(customId, invokerArb, async (id, invoker) => {
        const before = await snapshot();
        const recorded = await press(id, invoker);
        const { how, message } = recorded.answers[0] as Recorded['answers'][number];
        const where = `press ${JSON.stringify(id)} as ${JSON.stringify(invoker)}`;
        const content = message.content ?? '';
        // An update replaces the private question it sits on; a refusal is a new private note.
        expectAnswer(how === 'update' ? { ...message, ephemeral: true } : message, where, id, reasons);
        expect(message.files ?? [], where).toEqual([]);
        const after = await snapshot();
        if (!content.startsWith('Erased')) {
          expect(after, where).toEqual(before);
          return;
        }
        expect(how, where).toBe('update');
        // Only the presser's own request erases: theirs, and the server they manage when the id asks for it.
        const [, , scope, user, guild] = id.split(':');
        expect(user, where).toBe(invoker.userId);
        const erasedServer = scope === 'server' ? guild : undefined;
        if (erasedServer !== undefined) expect(erasedServer, where).toBe(manageable(invoker));
        const expected = before
          .filter((item) => item.channelId !== `dm:${invoker.userId}` && item.guildId !== erasedServer)
          .map((item) => {
            // The presser's id goes from what they created and from what they changed last.
            const created = item.createdBy === invoker.userId ? { ...item, createdBy: '' } : item;
            if (created.configuredBy !== invoker.userId) return created;
            const { configuredBy: _configuredBy, ...rest } = created;
            return rest;
          });
        expect(after, where).toEqual(expected);
        expect(await store.getDelivery(`dm:${invoker.userId}`, TODAY), `${where}: the presser's own delivery record`).toBeNull();
        for (const other of MEMBERS.filter((member) => member !== invoker.userId)) {
          expect(await store.getDelivery(`dm:${other}`, TODAY), `${where}: another member's delivery record`).not.toBeNull();
        }
        erased += 1;
        await seed();
      }),
      settings(SEED, RUNS),
    );
    expect(erased).toBeGreaterThan(RUNS / 50);
  }, PROPERTY_TIMEOUT_MS);

  it('/wotd-subscribe preview:true with generated other options shows the post privately and saves nothing', async () => {
    const snowflake = fc.bigInt({ min: 10n ** 16n, max: 10n ** 19n }).map(String);
    const channel = fc.option(
      fc.record({
        id: fc.oneof({ weight: 3, arbitrary: snowflake }, { weight: 1, arbitrary: fc.constantFrom(...SEEDED.map((item) => item.channelId)) }),
        name: nastyText({ extra: ['general', 'news'], maxPieces: 4 }),
        kind: fc.constantFrom<ChannelRef['kind']>('text', 'announcement', 'other'),
      }),
      { nil: null },
    );
    const role = fc.option(
      fc.record({ id: fc.oneof({ weight: 5, arbitrary: snowflake }, { weight: 1, arbitrary: fc.constantFrom(GUILD_A, GUILD_B) }), name: nastyText({ maxPieces: 3 }) }),
      { nil: null },
    );
    const extras = fc.record({ style: styleOption, thread: fc.option(fc.boolean(), { nil: undefined }), publish: fc.option(fc.boolean(), { nil: undefined }) });
    const permissions = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(ALL, [...ALL, 'CreatePublicThreads']) }, { weight: 2, arbitrary: fc.subarray<ChannelPermission>([...ALL, 'CreatePublicThreads']) }, { weight: 1, arbitrary: fc.constant(null) });
    const reasons = new RegExp(
      [
        'is not a text, announcement, forum or media channel',
        'is not a time of day',
        'is not a time zone I know',
        'never ping @\u200beveryone',
        'cannot check my permissions',
        "I can't post in",
        'Manage Channels',
        'in a server channel',
        'I am not a member of this server',
        'Choose the channel',
        'Only announcement channels can publish',
        SERVICE_TROUBLE.source,
      ].join('|'),
    );
    let previews = 0;
    const given = optionCounts(['channel', 'time', 'timezone', 'role', 'style', 'thread', 'publish']);
    await fc.assert(
      fc.asyncProperty(
        adminArb,
        fc.tuple(channel, mostlyGood(goodTimes, timeOption), mostlyGood(goodZones, zoneOption), role, extras, permissions),
        async (invoker, [chosen, time, timezone, mentioned, { style, thread, publish }, held]) => {
          given.see({ channel: chosen, time, timezone, role: mentioned, style, thread, publish });
          const before = await snapshot();
          const options: Options = {
            channel: chosen,
            role: mentioned,
            strings: strings({ time, timezone, style }),
            booleans: { preview: true, ...(thread === undefined ? {} : { thread }), ...(publish === undefined ? {} : { publish }) },
            permissions: held,
          };
          const { answer } = await run(wotdSubscribeCommand, invoker, options);
          const where = `/wotd-subscribe preview ${JSON.stringify({ invoker, options }).slice(0, 500)}`;
          const ownTags = [chosen ? `<#${chosen.id}>` : '', mentioned ? `<@&${mentioned.id}>` : ''].filter(Boolean);
          expectAnswer(answer, where, `${time ?? ''} ${timezone ?? ''} ${chosen?.name ?? ''} ${mentioned?.name ?? ''}`, reasons, ownTags);
          expect(answer.ephemeral, `${where}: a preview others can see`).toBe(true);
          if (answer.embeds?.length) {
            expect(answer.content, where).toMatch(/(^|\n\n)\*\*Preview\*\* of the daily post in <#\d+>: the word of the day .* at \d\d:\d\d \(/);
            previews += 1;
          }
          expect(await snapshot(), `${where}: the preview saved something`).toEqual(before);
        },
      ),
      settings(SEED, RUNS_WITH_OPTIONAL),
    );
    given.expectEachAtLeast();
    expect(previews).toBeGreaterThan(RUNS / 20);
  }, PROPERTY_TIMEOUT_MS);
});
