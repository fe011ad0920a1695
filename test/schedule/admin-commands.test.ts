import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { wotdSubscribeCommand } from '../../commands/wotd-subscribe.ts';
import { wotdSubscriptionsCommand } from '../../commands/wotd-subscriptions.ts';
import { wotdUnsubscribeCommand } from '../../commands/wotd-unsubscribe.ts';
import type {
  AutocompleteChoice,
  BotServices,
  ChannelPermission,
  ChannelRef,
  CommandContext,
  OutgoingMessage,
  RoleRef,
  SlashCommand,
} from '../../src/replies/interactions.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { createSubscriptionService } from '../../src/schedule/subscription-service.ts';
import type { WotdLookup } from '../../src/wotd/lookup.ts';
import { tempStore } from './helpers.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const GUILD = '100000000000000001';
const DAILY: ChannelRef = { id: '200000000000000001', name: 'daily', kind: 'text' };
const NEWS: ChannelRef = { id: '200000000000000002', name: 'news', kind: 'announcement' };
const VOICE: ChannelRef = { id: '200000000000000003', name: 'lounge', kind: 'other' };
const FANS: RoleRef = { id: '300000000000000001', name: 'word-fans' };
const ALL: ChannelPermission[] = ['ViewChannel', 'SendMessages', 'EmbedLinks', 'ReadMessageHistory'];

interface Invocation {
  options?: Record<string, string | boolean | ChannelRef | RoleRef>;
  canManageChannels?: boolean;
  canManageGuild?: boolean;
  /**
   * Manage Channels per channel, as the transport works it out from that channel's overwrites (null: the channel
   * cannot be read); a channel not listed follows canManageChannels. Null: the transport cannot tell at all.
   */
  manages?: Record<string, boolean | null> | null;
  guildId?: string | null;
  botPermissions?: ChannelPermission[] | null;
  botInGuild?: boolean;
}

/** A command context that records its answers, with a settable view of the bot's permissions. */
function run(command: SlashCommand, services: BotServices, invocation: Invocation = {}) {
  const answers: OutgoingMessage[] = [];
  const options = invocation.options ?? {};
  const permissionChecks: string[] = [];
  const context: CommandContext = {
    commandName: command.data.name,
    invoker: {
      userId: '400000000000000001',
      guildId: invocation.guildId === undefined ? GUILD : invocation.guildId,
      channelId: DAILY.id,
      canManageChannels: invocation.canManageChannels ?? true,
      ...(invocation.canManageGuild === undefined ? {} : { canManageGuild: invocation.canManageGuild }),
      ...(invocation.botInGuild === undefined ? {} : { botInGuild: invocation.botInGuild }),
    },
    options: {
      getString: (name) => {
        const value = options[name];
        return typeof value === 'string' ? value : null;
      },
      getInteger: () => null,
      getBoolean: (name) => {
        const value = options[name];
        return typeof value === 'boolean' ? value : null;
      },
      getSubcommand: () => null,
      getChannel: (name) => {
        const value = options[name];
        return typeof value === 'object' && 'kind' in value ? value : null;
      },
      getRole: (name) => {
        const value = options[name];
        return typeof value === 'object' && !('kind' in value) ? value : null;
      },
    },
    acknowledged: false,
    defer: async () => undefined,
    respond: async (message) => {
      answers.push(message);
    },
  };
  if (invocation.manages !== null) {
    context.memberCanManageChannel = async (channelId) => {
      const listed = invocation.manages?.[channelId];
      return listed === undefined ? (invocation.canManageChannels ?? true) : listed;
    };
  }
  if (invocation.botPermissions !== null) {
    context.botPermissionsIn = async (channelId) => {
      permissionChecks.push(channelId);
      return new Set(invocation.botPermissions ?? ALL);
    };
  }
  return command.execute(context, services).then(() => {
    expect(answers).toHaveLength(1);
    const answer = answers[0] as OutgoingMessage;
    const text = [answer.content ?? '', ...(answer.embeds ?? []).map((embed) => `${embed.title ?? ''}\n${embed.description ?? ''}`)].join('\n');
    return { answer, text, permissionChecks };
  });
}

async function servicesWith(limit = 5, now = () => new Date('2026-06-15T07:00:00Z')) {
  const temp = tempStore();
  cleanups.push(temp.cleanup);
  const store = await SubscriptionStore.open(temp.url);
  cleanups.push(() => store.close());
  const subscriptions = createSubscriptionService({ store, limit, now });
  const services: BotServices = { lookup: {} as WotdLookup, siteUrl: 'https://wotd.site', subscriptions };
  return { services, store };
}

describe('admin command definitions', () => {
  it.each([wotdSubscribeCommand, wotdUnsubscribeCommand, wotdSubscriptionsCommand])('$data.name defaults to Manage Channels, servers only', (command) => {
    const json = command.data.toJSON();
    expect(json.default_member_permissions).toBe(String(PermissionFlagsBits.ManageChannels));
    expect(json.contexts).toEqual([0]);
    expect(json.integration_types).toEqual([0]);
  });

  it('offers text, announcement, forum and media channels, a time, a zone with autocomplete, a role and a language with autocomplete', () => {
    const options = wotdSubscribeCommand.data.toJSON().options ?? [];
    expect(options.map((option) => [option.name, option.required ?? false])).toEqual([
      ['channel', true],
      ['time', false],
      ['timezone', false],
      ['role', false],
      ['style', false],
      ['thread', false],
      ['publish', false],
      ['days', false],
      ['pause', false],
      ['until', false],
      ['skip', false],
      ['reset', false],
      ['colour', false],
      ['intro', false],
      ['notices', false],
      ['preview', false],
      ['language', false],
      ['quiz', false],
      ['parts', false],
      ['date-style', false],
      ['intro-edit', false],
      ['forum-tag', false],
      ['pin', false],
      ['webhook-name', false],
      ['webhook-avatar', false],
    ]);
    expect(options[0]).toMatchObject({ channel_types: [0, 5, 15, 16] });
    expect(options[2]).toMatchObject({ autocomplete: true });
    expect(options.find((option) => option.name === 'language')).toMatchObject({ autocomplete: true });
  });
});

describe('/wotd-subscribe', () => {
  it('subscribes with the defaults (09:00 UTC) and says when the next post is', async () => {
    const { services, store } = await servicesWith();
    const { answer, text, permissionChecks } = await run(wotdSubscribeCommand, services, { options: { channel: DAILY } });
    expect(answer.ephemeral).toBe(true);
    expect(text).toContain(`Subscribed <#${DAILY.id}>: the word of the day every day at 09:00 (UTC).`);
    expect(text).toContain(`<t:${Date.parse('2026-06-15T09:00:00Z') / 1000}:F>`);
    expect(permissionChecks).toEqual([DAILY.id]);
    expect(await store.get(DAILY.id)).toMatchObject({ guildId: GUILD, time: '09:00', timeZone: 'UTC', roleId: null, channelName: 'daily' });
  });

  it('takes a time, a zone in any case and a role to mention', async () => {
    const { services, store } = await servicesWith();
    const { text } = await run(wotdSubscribeCommand, services, { options: { channel: NEWS, time: '7:30', timezone: 'america/new_york', role: FANS } });
    expect(text).toContain('every day at 07:30 (America/New_York), mentioning <@&300000000000000001>');
    expect(await store.get(NEWS.id)).toMatchObject({ time: '07:30', timeZone: 'America/New_York', roleId: FANS.id });
  });

  it('says when today\'s post time has already passed, so today\'s word goes out at once', async () => {
    const { services } = await servicesWith();
    const { text } = await run(wotdSubscribeCommand, services, { options: { channel: DAILY, time: '06:00' } });
    expect(text).toContain("Today's post time has passed, so today's word goes out within a minute.");
    expect((await run(wotdSubscriptionsCommand, services)).text).toContain("active; today's post goes out within a minute");
  });

  it('is refused without Manage Channels, outside a server, and for @everyone', async () => {
    const { services, store } = await servicesWith();
    expect((await run(wotdSubscribeCommand, services, { options: { channel: DAILY }, canManageChannels: false })).text).toContain(
      'You need the **Manage Channels** permission',
    );
    expect((await run(wotdSubscribeCommand, services, { options: { channel: DAILY }, guildId: null })).text).toContain('not in a DM');
    expect((await run(wotdSubscribeCommand, services, { options: { channel: DAILY }, botInGuild: false })).text).toContain('I am not a member of this server');
    expect((await run(wotdSubscribeCommand, services, { options: { channel: DAILY, role: { id: GUILD, name: '@everyone' } } })).text).toContain(
      'never ping @\u200beveryone',
    );
    expect(await store.listAll()).toEqual([]);
  });

  it('names exactly the permissions the bot is missing in the channel, and saves nothing', async () => {
    const { services, store } = await servicesWith();
    const one = await run(wotdSubscribeCommand, services, { options: { channel: DAILY }, botPermissions: ['ViewChannel', 'SendMessages', 'ReadMessageHistory'] });
    expect(one.text).toBe(`I can't post in <#${DAILY.id}>: I'm missing **Embed Links** there. Give me it in the channel's permissions, then run this again.`);
    const all = await run(wotdSubscribeCommand, services, { options: { channel: DAILY }, botPermissions: [] });
    expect(all.text).toContain("I'm missing **View Channel**, **Send Messages**, **Embed Links** and **Read Message History** there");
    const unknown = await run(wotdSubscribeCommand, services, { options: { channel: DAILY }, botPermissions: null });
    expect(unknown.text).toContain('cannot check my permissions');
    expect(await store.listAll()).toEqual([]);
  });

  it('publishes only in announcement channels, and a thread needs Create Public Threads', async () => {
    const { services, store } = await servicesWith();
    expect((await run(wotdSubscribeCommand, services, { options: { channel: DAILY, publish: true } })).text).toContain(
      `Only announcement channels can publish posts to other servers, and <#${DAILY.id}> is not one.`,
    );
    expect((await run(wotdSubscribeCommand, services, { options: { channel: DAILY, thread: true } })).text).toContain("I'm missing **Create Public Threads** there");
    expect(await store.listAll()).toEqual([]);
    const ok = await run(wotdSubscribeCommand, services, {
      options: { channel: NEWS, thread: true, publish: true },
      botPermissions: [...ALL, 'CreatePublicThreads'],
    });
    expect(ok.text).toContain('with a thread on each post, published to following servers.');
    expect(await store.get(NEWS.id)).toMatchObject({ openThread: true, publish: true });
    expect((await run(wotdSubscriptionsCommand, services)).text).toContain(`<#${NEWS.id}> — every day, 09:00 UTC, full style, thread on each post, published`);
  });

  it('says which zone a zone typed under another name became (CET is Europe/Brussels)', async () => {
    const { services } = await servicesWith();
    const reply = (await run(wotdSubscribeCommand, services, { options: { channel: DAILY, time: '07:30', timezone: 'CET' } })).text;
    expect(reply).toContain('every day at 07:30 (Europe/Brussels, which is what CET means)');
    const plain = (await run(wotdSubscribeCommand, services, { options: { channel: NEWS, timezone: 'europe/paris' } })).text;
    expect(plain).toContain('(Europe/Paris)');
  });

  it('accepts only text, announcement, forum and media channels', async () => {
    const { services } = await servicesWith();
    expect((await run(wotdSubscribeCommand, services, { options: { channel: VOICE } })).text).toContain('is not a text, announcement, forum or media channel');
  });

  it('explains a bad time or time zone', async () => {
    const { services } = await servicesWith();
    expect((await run(wotdSubscribeCommand, services, { options: { channel: DAILY, time: '9pm' } })).text).toContain(
      '"9pm" is not a time of day. Use 24-hour HH:MM',
    );
    expect((await run(wotdSubscribeCommand, services, { options: { channel: DAILY, time: '24:00' } })).text).toContain('"24:00" is not a time of day');
    // A 12-hour time, or a dot for the colon, gets the HH:MM hint with the time it means; the option has room for it.
    expect(wotdSubscribeCommand.data.toJSON().options?.find((option) => option.name === 'time')).toMatchObject({ max_length: 10 });
    expect((await run(wotdSubscribeCommand, services, { options: { channel: DAILY, time: '7.30pm' } })).text).toContain(
      '"7.30pm" is not a time of day. Use 24-hour HH:MM: for 7.30pm, 19:30.',
    );
    expect((await run(wotdSubscribeCommand, services, { options: { channel: DAILY, time: '7:30 a.m.' } })).text).toContain('Use 24-hour HH:MM: for 7:30 a.m., 07:30.');
    expect((await run(wotdSubscribeCommand, services, { options: { channel: DAILY, time: '18.05' } })).text).toContain('Use 24-hour HH:MM: for 18.05, 18:05.');
    expect((await run(wotdSubscribeCommand, services, { options: { channel: DAILY, timezone: 'EST5EDTX' } })).text).toContain(
      '"EST5EDTX" is not a time zone I know',
    );
  });

  it('enforces the per-server limit, but re-subscribing updates and re-enables', async () => {
    const { services, store } = await servicesWith(2);
    await run(wotdSubscribeCommand, services, { options: { channel: DAILY } });
    await run(wotdSubscribeCommand, services, { options: { channel: NEWS } });
    const third = await run(wotdSubscribeCommand, services, { options: { channel: { id: '200000000000000009', name: 'more', kind: 'text' } } });
    expect(third.text).toContain('already has 2 daily-post subscriptions, the most it may have (2)');

    await store.update(DAILY.id, (s) => ({ ...s, status: { state: 'disabled', reason: { kind: 'missingAccess' }, failedDays: 3, at: '2026-06-14T09:00:00Z' } }));
    const again = await run(wotdSubscribeCommand, services, { options: { channel: DAILY, time: '18:00', timezone: 'Europe/London' } });
    expect(again.text).toContain(`Updated and re-enabled <#${DAILY.id}>: the word of the day every day at 18:00 (Europe/London)`);
    expect(await store.get(DAILY.id)).toMatchObject({ time: '18:00', timeZone: 'Europe/London', status: { state: 'active' } });
    expect(await store.listGuild(GUILD)).toHaveLength(2);
  });

  it('autocompletes IANA zones', async () => {
    let choices: AutocompleteChoice[] = [];
    await wotdSubscribeCommand.autocomplete?.(
      {
        commandName: 'wotd-subscribe',
        invoker: { userId: 'u', guildId: GUILD, channelId: DAILY.id, canManageChannels: true },
        focused: { name: 'timezone', value: 'new_y' },
        respond: async (given) => {
          choices = given;
        },
      },
      (await servicesWith()).services,
    );
    expect(choices).toContainEqual({ name: 'America/New York', value: 'America/New_York' });
    expect(choices.length).toBeLessThanOrEqual(25);
  });
});

describe('/wotd-unsubscribe and /wotd-subscriptions', () => {
  it('lists each subscription with its next post time and status: active, failing with reason and count, disabled with reason', async () => {
    const { services, store } = await servicesWith();
    expect((await run(wotdSubscriptionsCommand, services)).text).toContain('No channel here gets the daily word yet');
    await run(wotdSubscribeCommand, services, { options: { channel: DAILY, role: FANS } });
    await run(wotdSubscribeCommand, services, { options: { channel: NEWS, time: '10:00', style: 'compact' } });
    await run(wotdSubscribeCommand, services, { options: { channel: { id: '200000000000000004', name: 'zz-gone', kind: 'text' } } });
    await store.update(NEWS.id, (s) => ({ ...s, status: { state: 'failing', reason: { kind: 'missingAccess' }, failedDays: 2, lastFailedDay: '2026-06-14' } }));
    await store.update('200000000000000004', (s) => ({ ...s, status: { state: 'disabled', reason: { kind: 'channelDeleted' }, at: '2026-06-14T00:00:00Z' } }));

    const { answer, text } = await run(wotdSubscriptionsCommand, services);
    expect(answer.ephemeral).toBe(true);
    expect(text).toContain('Daily posts (3 of 5)');
    expect(text).toContain(`<#${DAILY.id}> — every day, 09:00 UTC, full style, mentions <@&${FANS.id}>\n  active; next post <t:${Date.parse('2026-06-15T09:00:00Z') / 1000}:F>`);
    expect(text).toContain(`<#${NEWS.id}> — every day, 10:00 UTC, compact style\n  failing (Missing Access: the bot cannot see the channel; 2 failed days in a row); next post <t:${Date.parse('2026-06-15T10:00:00Z') / 1000}:F>`);
    expect(text).toContain('disabled (the channel was deleted); no posts until subscribed again');

    expect((await run(wotdUnsubscribeCommand, services, { options: { channel: NEWS } })).text).toBe(`Unsubscribed <#${NEWS.id}>: no more daily posts there.`);
    expect((await run(wotdUnsubscribeCommand, services, { options: { channel: NEWS } })).text).toContain('has no daily-post subscription');
    expect((await run(wotdUnsubscribeCommand, services, { options: { channel: DAILY }, canManageChannels: false })).text).toContain('Manage Channels');
    expect((await run(wotdSubscriptionsCommand, services, { canManageChannels: false })).text).toContain('Manage Channels');
    expect(await store.listGuild(GUILD)).toHaveLength(2);
  });

  it('checks Manage Channels in the channel being changed, not where the command was typed', async () => {
    const { services, store } = await servicesWith();
    // Typed in DAILY (where the member may manage channels) about NEWS, where an overwrite takes it away.
    const manages = { [DAILY.id]: true, [NEWS.id]: false };
    const refused = await run(wotdSubscribeCommand, services, { options: { channel: NEWS }, manages });
    expect(refused.text).toBe(`You need the **Manage Channels** permission in <#${NEWS.id}> to manage its daily posts.`);
    expect(refused.permissionChecks).toEqual([]);
    expect(await store.listAll()).toEqual([]);

    // And the other way: no Manage Channels where the command is typed, granted in the channel subscribed.
    expect((await run(wotdSubscribeCommand, services, { options: { channel: NEWS }, canManageChannels: false, manages: { [NEWS.id]: true } })).text).toContain(
      `Subscribed <#${NEWS.id}>`,
    );
    // Changing or removing that subscription is refused to whoever may not manage NEWS.
    expect((await run(wotdSubscribeCommand, services, { options: { channel: NEWS, time: '11:00' }, manages })).text).toContain('in <#' + NEWS.id);
    expect((await run(wotdUnsubscribeCommand, services, { options: { channel: NEWS }, manages })).text).toContain('in <#' + NEWS.id);
    expect(await store.get(NEWS.id)).toMatchObject({ time: '09:00', status: { state: 'active' } });

    // A channel the bot cannot read: only Manage Server vouches for it.
    const hidden = { [NEWS.id]: null };
    expect((await run(wotdUnsubscribeCommand, services, { options: { channel: NEWS }, manages: hidden })).text).toContain('I cannot see');
    expect((await run(wotdUnsubscribeCommand, services, { options: { channel: NEWS }, manages: hidden, canManageGuild: true })).text).toBe(
      `Unsubscribed <#${NEWS.id}>: no more daily posts there.`,
    );
    // A transport that cannot tell changes nothing.
    expect((await run(wotdSubscribeCommand, services, { options: { channel: DAILY }, manages: null })).text).toContain('I cannot check your permissions');
    expect(await store.listAll()).toEqual([]);
  });

  it('says so when the runtime does not run daily posts', async () => {
    const services: BotServices = { lookup: {} as WotdLookup, siteUrl: 'https://wotd.site' };
    expect((await run(wotdSubscriptionsCommand, services)).text).toContain('not available');
  });
});
