import { PermissionFlagsBits } from 'discord.js';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { commands } from '../../commands/index.ts';
import { startDiscordBot } from '../../src/discord/bot.ts';
import { startDiscordDailyPosts } from '../../src/discord/discord-daily-posts.ts';
import { runDeployCommands } from '../../src/discord/deploy-commands.ts';
import { openDailyPosts } from '../../src/schedule/daily-posts.ts';
import { PrivacyService, SERVER_DATA_RETENTION_DAYS, type DataExport } from '../../src/schedule/privacy.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import type { WotdLookup } from '../../src/wotd/lookup.ts';
import { startDiscordServer } from '../support/discord/index.ts';
import { startStoreSession } from '../console/store-session.ts';
import { captureLogger, FixedLookup, tempStore } from './helpers.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const quiet = () => new Writable({ write: (_chunk, _encoding, callback) => callback() });
const ADMIN = '500000000000000001';
const MEMBER = '500000000000000002';

async function world() {
  const discord = await startDiscordServer();
  cleanups.push(() => discord.close());
  const spec = {
    name: 'Words',
    roles: [{ name: 'admins', permissions: PermissionFlagsBits.ManageGuild | PermissionFlagsBits.ManageChannels }],
    members: [
      { id: ADMIN, username: 'admin', roles: ['admins'] },
      { id: MEMBER, username: 'member' },
    ],
    channels: [{ name: 'general' }, { name: 'daily' }],
  };
  const guild = discord.addGuild(spec);
  const env = { DISCORD_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl };
  expect(await runDeployCommands([], { env, stdout: quiet(), stderr: quiet(), commands })).toBe(0);
  const temp = tempStore();
  cleanups.push(temp.cleanup);
  const clock = { now: new Date('2026-06-15T07:00:00Z') };
  const { logger } = captureLogger();
  const daily = await openDailyPosts({ store: temp.url, limit: 5, concurrency: 4, logger, now: () => clock.now });
  cleanups.push(() => daily.close());
  const lookup = new FixedLookup();
  const bot = await startDiscordBot({
    config: { ...env, DISCORD_APPLICATION_ID: undefined },
    commands,
    services: { lookup: lookup as unknown as WotdLookup, siteUrl: 'https://wotd.site', logger, subscriptions: daily.subscriptions, privacy: daily.privacy },
    logger,
  });
  cleanups.push(() => bot.stop());
  cleanups.push(startDiscordDailyPosts(bot.client, daily, { lookup, siteUrl: 'https://wotd.site', logger, now: () => clock.now }));
  const scheduler = daily.start({ poster: { post: () => Promise.reject(new Error('not this one')), findEarlierPost: () => Promise.reject(new Error('not this one')) }, lookup, render: () => ({}) });
  const general = guild.channelId('general');
  const invoke = (name: string, user: string, options: Record<string, string | boolean> = {}, subcommand?: string) =>
    discord.invokeCommand({ name, options, channelId: general, user, ...(subcommand ? { subcommand } : {}) });
  // A server subscription the admin made, their own DM one, and a day of posts for both.
  await invoke('wotd-subscribe', ADMIN, { channel: guild.channelId('daily'), time: '06:00' }).waitForResponse();
  await invoke('wotd-subscribe-me', ADMIN, { time: '06:00' }).waitForResponse();
  expect(await scheduler.tick(clock.now)).toMatchObject({ sent: 2 });
  return { discord, guild, spec, daily, clock, temp, invoke, general };
}

const exported = (text: string | undefined): DataExport => JSON.parse(text ?? '{}') as DataExport;

describe('/wotd-data, end to end', () => {
  it('export sends the caller their data, and a server admin the server’s too, as a private JSON attachment', async () => {
    const { discord, guild, invoke } = await world();
    const admin = await invoke('wotd-data', ADMIN, {}, 'export').waitForResponse();
    expect(admin.ephemeral).toBe(true);
    expect(admin.files.map((file) => file.filename)).toEqual(['wotd-data.json']);
    const data = exported(admin.files[0]?.text);
    expect(data.member).toMatchObject({
      id: ADMIN,
      dmSubscription: { channelId: `dm:${ADMIN}`, time: '06:00' },
      dmDeliveries: [{ channelId: `dm:${ADMIN}`, day: '2026-06-15', state: 'sent' }],
      serverSubscriptionsCreated: [{ guildId: guild.id, channelId: guild.channelId('daily'), channelName: 'daily' }],
      // Who changed it last (told by DM when it stops posting): kept, exported and erased like the creator's id.
      serverSubscriptionsLastConfigured: [{ guildId: guild.id, channelId: guild.channelId('daily'), channelName: 'daily' }],
    });
    expect(data.server).toMatchObject({
      id: guild.id,
      subscriptions: [{ channelId: guild.channelId('daily'), createdBy: ADMIN, configuredBy: ADMIN }],
      deliveries: [{ channelId: guild.channelId('daily'), day: '2026-06-15', state: 'sent' }],
      removedAt: null,
    });
    expect(admin.content).toContain('This server: 1 subscription and 1 delivery record.');

    const member = await invoke('wotd-data', MEMBER, {}, 'export').waitForResponse();
    const theirs = exported(member.files[0]?.text);
    expect(theirs.member).toEqual({ id: MEMBER, dmSubscription: null, dmDeliveries: [], serverSubscriptionsCreated: [], serverSubscriptionsLastConfigured: [] });
    expect(theirs.server).toBeUndefined();
    expect(member.content).toContain("This server's data is included for members with **Manage Server**.");

    // From the bot's DM there is no server to export.
    const dm = await discord.invokeCommand({ name: 'wotd-data', subcommand: 'export', dm: true, user: ADMIN }).waitForResponse();
    expect(exported(dm.files[0]?.text).server).toBeUndefined();
  });

  it('forget asks first, then erases the member’s data; with server:true (Manage Server) the server’s as well', async () => {
    const { discord, guild, daily, invoke, general } = await world();
    const daily1 = guild.channelId('daily');
    expect((await invoke('wotd-data', MEMBER, { server: true }, 'forget').waitForResponse()).content).toContain('needs **Manage Server**');

    const ask = await invoke('wotd-data', ADMIN, {}, 'forget').waitForResponse();
    expect(ask).toMatchObject({ ephemeral: true });
    expect(ask.content).toContain('It cannot be undone.');
    const keep = discord.pressButton({ customId: 'data:keep', channelId: general, user: ADMIN, messageId: ask.id });
    expect((await keep.waitForResponse()).content).toBe('Nothing was erased.');
    expect(await daily.store.get(`dm:${ADMIN}`)).not.toBeNull();

    const again = await invoke('wotd-data', ADMIN, {}, 'forget').waitForResponse();
    const erase = discord.pressButton({ customId: `data:forget:me:${ADMIN}:-`, channelId: general, user: ADMIN, messageId: again.id });
    expect((await erase.waitForResponse()).content).toBe('Erased your DM subscription and its records, your id on 1 server subscription.');
    expect(await daily.store.get(`dm:${ADMIN}`)).toBeNull();
    expect(await daily.store.getDelivery(`dm:${ADMIN}`, '2026-06-15')).toBeNull();
    // The server's subscription stays (it is the server's), without the admin's id.
    expect(await daily.store.get(daily1)).toMatchObject({ createdBy: '', status: { state: 'active' } });
    expect((await daily.store.get(daily1))?.configuredBy).toBeUndefined();
    expect(await daily.store.getDelivery(daily1, '2026-06-15')).not.toBeNull();

    const server = await invoke('wotd-data', ADMIN, { server: true }, 'forget').waitForResponse();
    expect(server.content).toContain("all of this server's daily posts and their records");
    const press = discord.pressButton({ customId: `data:forget:server:${ADMIN}:${guild.id}`, channelId: general, user: ADMIN, messageId: server.id });
    expect((await press.waitForResponse()).content).toContain("this server's 1 subscription and their records");
    expect(await daily.store.listGuild(guild.id)).toEqual([]);
    expect(await daily.store.listAll()).toEqual([]);
    expect(await daily.store.getDelivery(daily1, '2026-06-15')).toBeNull();
  });

  it('after /wotd-unsubscribe-me, export still shows the DM records kept until pruning, and forget erases them', async () => {
    const { discord, daily, invoke, general } = await world();
    expect((await invoke('wotd-unsubscribe-me', ADMIN).waitForResponse()).content).toContain('Unsubscribed');
    expect(await daily.store.getDelivery(`dm:${ADMIN}`, '2026-06-15')).not.toBeNull();
    expect((await daily.store.retiredOn(['2026-06-15']))[0]).toContain(`dm:${ADMIN}`);

    const shown = await invoke('wotd-data', ADMIN, {}, 'export').waitForResponse();
    expect(exported(shown.files[0]?.text).member).toMatchObject({
      dmSubscription: null,
      dmDeliveries: [{ channelId: `dm:${ADMIN}`, day: '2026-06-15', state: 'sent' }],
    });
    expect(shown.content).toContain('no DM subscription, but 1 delivery record of an earlier one');

    const ask = await invoke('wotd-data', ADMIN, {}, 'forget').waitForResponse();
    const erase = discord.pressButton({ customId: `data:forget:me:${ADMIN}:-`, channelId: general, user: ADMIN, messageId: ask.id });
    expect((await erase.waitForResponse()).content).toBe('Erased the 1 delivery record of your earlier DM subscription, your id on 1 server subscription.');
    expect(await daily.store.getDelivery(`dm:${ADMIN}`, '2026-06-15')).toBeNull();
    // Nothing names the member's DM channel any more, not even the list pruning would have read.
    expect((await daily.store.retiredOn(['2026-06-15']))[0]).not.toContain(`dm:${ADMIN}`);
    const after = await invoke('wotd-data', ADMIN, {}, 'export').waitForResponse();
    expect(exported(after.files[0]?.text).member).toMatchObject({ dmSubscription: null, dmDeliveries: [] });
  });

  it(`erases a server's data ${SERVER_DATA_RETENTION_DAYS} days after the bot is removed (not on an outage), unless it is added back; the wait survives a restart`, async () => {
    const { discord, guild, spec, daily, clock, temp } = await world();
    const channel = guild.channelId('daily');
    discord.setGuildAvailable(guild.id, false);
    discord.setGuildAvailable(guild.id, true);
    clock.now = new Date('2026-06-15T07:30:00Z');
    discord.removeGuild(guild.id);
    // The outage before it marked nothing (the first mark would have stayed): the time is the removal's.
    await vi.waitFor(async () => expect(await daily.store.guildRemovedAt(guild.id)).toBe('2026-06-15T07:30:00.000Z'));
    // Added back: the erasure is cancelled.
    discord.addGuild({ ...spec, id: guild.id });
    await vi.waitFor(async () => expect(await daily.store.guildRemovedAt(guild.id)).toBeNull());
    expect(await daily.store.get(channel)).toMatchObject({ status: { state: 'disabled', reason: { kind: 'botRemoved' } } });

    clock.now = new Date('2026-06-20T00:00:00Z');
    discord.removeGuild(guild.id);
    await vi.waitFor(async () => expect(await daily.store.guildRemovedAt(guild.id)).toBe('2026-06-20T00:00:00.000Z'));

    // A restart: a new process over the same store file finds the removal and erases on time.
    const reopened = await SubscriptionStore.open(temp.url);
    cleanups.push(() => reopened.close());
    let now = new Date('2026-07-19T00:00:00Z');
    const privacy = new PrivacyService(reopened, () => now);
    expect(await privacy.sweepRemovedServers()).toBe(0);
    expect(await reopened.get(channel)).not.toBeNull();
    now = new Date('2026-07-20T00:00:01Z');
    expect(await privacy.sweepRemovedServers()).toBe(1);
    expect(await reopened.get(channel)).toBeNull();
    expect(await reopened.getDelivery(channel, '2026-06-15')).toBeNull();
    expect(await reopened.guildRemovals()).toEqual([]);
    // The admin's DM subscription is theirs, not the server's: it stays.
    expect(await reopened.get(`dm:${ADMIN}`)).not.toBeNull();
  });
});

describe('/wotd-data at the console', () => {
  it('prints the export and erases after pressing Erase', async () => {
    const { store, session, output } = await startStoreSession(cleanups, { privacy: true });
    await session.handleLine('/wotd-subscribe-me');
    output.length = 0;
    await session.handleLine('/wotd-data export');
    const printed = output.join('');
    expect(printed).toContain('Attached wotd-data.json (');
    expect(printed).toContain('"channelId": "dm:console"');
    await session.handleLine('/wotd-data');
    expect(output.join('')).toContain('/wotd-data needs one of: export, forget.');
    await session.handleLine('/wotd-data exprot');
    expect(output.join('')).toContain('/wotd-data needs one of: export, forget. “exprot” is not one of them. Did you mean export?');
    await session.handleLine('/wotd-data forget');
    await session.handleLine('press Erase');
    expect(output.join('')).toContain('Erased your DM subscription and its records');
    expect(await store.listAll()).toEqual([]);
  });
});
