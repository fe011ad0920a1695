import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { HELPER, MOD, modsGuild, OWNER, startBotWithGuild, type Cleanups } from './bot-on-server.ts';

const cleanups: Cleanups = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const { ManageChannels } = PermissionFlagsBits;

/**
 * The admin check of /wotd-subscribe and /wotd-unsubscribe through the real discord.js client against the local
 * Discord server: Manage Channels counts in the channel being changed, with that channel's overwrites, whichever
 * channel the command is typed in.
 */
describe('Manage Channels is checked in the channel being subscribed (Discord end to end)', () => {
  it('follows role and member overwrites that grant in one channel and deny in the other, both ways', async () => {
    const { discord, guild, started } = await startBotWithGuild(
      cleanups,
      modsGuild({
        roles: [{ name: 'helpers' }],
        helperRoles: ['helpers'],
        channels: [
          { name: 'bot-commands' },
          { name: 'open' },
          // The mods may manage every channel but this one.
          { name: 'announcements', type: 5, permissionOverwrites: [{ id: 'mods', deny: ManageChannels }] },
          // Where the mods may not manage the channel they type in, but may manage the one they subscribe.
          { name: 'no-manage', permissionOverwrites: [{ id: 'mods', deny: ManageChannels }] },
          // Only this channel may the helper manage: @everyone is denied it, the helper alone allowed.
          {
            name: 'helper-corner',
            permissionOverwrites: [
              { id: '@everyone', deny: ManageChannels },
              { id: HELPER, type: 'member', allow: ManageChannels },
            ],
          },
        ],
      }),
      { daily: { now: () => new Date('2026-06-15T07:00:00Z') }, dailyPosts: false },
    );
    const { daily } = started;

    const id = (name: string) => guild.channelId(name);
    const invoke = async (user: string, typedIn: string, name: string, options: Record<string, string>, memberPermissions?: bigint) => {
      const handle = discord.invokeCommand({ name, options, channelId: id(typedIn), user, ...(memberPermissions === undefined ? {} : { memberPermissions }) });
      return (await handle.waitForResponse()).content;
    };
    const refusal = (channel: string) => `You need the **Manage Channels** permission in <#${id(channel)}> to manage its daily posts.`;
    const time = async (channel: string) => (await daily.store.get(id(channel)))?.time;

    // Granted where typed, denied (by a role overwrite) in the channel subscribed.
    expect(await invoke(MOD, 'bot-commands', 'wotd-subscribe', { channel: id('announcements') })).toBe(refusal('announcements'));
    expect(await time('announcements')).toBeUndefined();
    const readsBefore = discord.requests.length;
    expect(await invoke(MOD, 'bot-commands', 'wotd-subscribe', { channel: id('bot-commands') })).toContain(`Subscribed <#${id('bot-commands')}>`);
    // The member's check and the bot's own read the channel once between them, and fetch no roles.
    const reads = discord.requests.slice(readsBefore).filter((request) => request.method === 'GET').map((request) => request.path);
    expect(reads.filter((path) => path === `/channels/${id('bot-commands')}`)).toHaveLength(1);
    expect(reads.filter((path) => path.includes('/roles'))).toEqual([]);

    // Denied where typed, granted in the channel subscribed (and changed, and unsubscribed).
    expect(await invoke(MOD, 'no-manage', 'wotd-subscribe', { channel: id('open') })).toContain(`Subscribed <#${id('open')}>`);
    const changed = await invoke(MOD, 'no-manage', 'wotd-subscribe', { channel: id('bot-commands'), time: '10:00' });
    expect(changed).toContain(`Updated <#${id('bot-commands')}>`);
    // On Discord as at the console, the answer says what changed, from what to what.
    expect(changed).toContain('. Changed: the time from 09:00 to 10:00.');
    expect(await time('bot-commands')).toBe('10:00');

    // A subscription the owner made: the mod may neither change nor remove it, from anywhere.
    expect(await invoke(OWNER, 'no-manage', 'wotd-subscribe', { channel: id('announcements'), time: '08:00' })).toContain(`Subscribed <#${id('announcements')}>`);
    expect(await invoke(MOD, 'bot-commands', 'wotd-subscribe', { channel: id('announcements'), time: '11:00' })).toBe(refusal('announcements'));
    expect(await invoke(MOD, 'bot-commands', 'wotd-unsubscribe', { channel: id('announcements') })).toBe(refusal('announcements'));
    expect(await time('announcements')).toBe('08:00');

    // A member overwrite: the helper holds Manage Channels in helper-corner only. (Server admins can let a role use a
    // command whatever its default permissions, under Integrations; memberPermissions stands for that here.)
    const helper = (command: string, channel: string, options: Record<string, string> = {}) =>
      invoke(HELPER, 'helper-corner', command, { channel: id(channel), ...options }, ManageChannels);
    expect(await helper('wotd-subscribe', 'bot-commands', { time: '12:00' })).toBe(refusal('bot-commands'));
    expect(await helper('wotd-unsubscribe', 'bot-commands')).toBe(refusal('bot-commands'));
    expect(await time('bot-commands')).toBe('10:00');
    expect(await helper('wotd-subscribe', 'helper-corner')).toContain(`Subscribed <#${id('helper-corner')}>`);
    expect(await helper('wotd-subscribe', 'helper-corner', { time: '12:00' })).toContain(`Updated <#${id('helper-corner')}>`);
    // @everyone's deny there holds for the mod too: their role grants it server-wide, no overwrite gives it back.
    expect(await invoke(MOD, 'bot-commands', 'wotd-unsubscribe', { channel: id('helper-corner') })).toBe(refusal('helper-corner'));
    expect(await helper('wotd-unsubscribe', 'helper-corner')).toBe(`Unsubscribed <#${id('helper-corner')}>: no more daily posts there.`);

    // The mod removes what they may manage, typing where they may not.
    expect(await invoke(MOD, 'no-manage', 'wotd-unsubscribe', { channel: id('bot-commands') })).toBe(`Unsubscribed <#${id('bot-commands')}>: no more daily posts there.`);
    expect((await daily.store.listAll()).map((subscription) => subscription.channelId).sort()).toEqual([id('announcements'), id('open')].sort());
  });
});
