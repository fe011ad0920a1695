import { PermissionFlagsBits } from 'discord.js';
import { afterEach, expect, it } from 'vitest';
import { createAdminNotifier } from '../../src/discord/admin-notifier.ts';
import { sendOwedNotice } from '../../src/schedule/admin-notices.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { restFor, startDiscordServer } from '../support/discord/index.ts';
import { storeBackends } from '../support/store-backends.ts';
import { schedulerFor } from './discord-scheduler.ts';
import { captureLogger, makeSubscription } from './helpers.ts';

/**
 * Never stop silently: a subscription that starts failing, is switched off or recovers tells the member who last
 * configured it, by DM (else in its notice channel), once per change of state, on every store.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ADMIN = '700000000000000001';
const EDITOR = '700000000000000002';

for (const backend of storeBackends) {
  backend.describe(`notices to the admin (${backend.name})`, () => {
    async function world() {
      const discord = await startDiscordServer();
      cleanups.push(() => discord.close());
      const guild = discord.addGuild({
        name: 'Words',
        channels: [{ name: 'daily' }, { name: 'mods' }],
      });
      discord.addMember(guild.id, { id: ADMIN, username: 'admin' });
      discord.addMember(guild.id, { id: EDITOR, username: 'editor' });
      const location = await backend.fresh();
      const store = await SubscriptionStore.open(location);
      cleanups.push(() => store.close());
      const rest = restFor(discord, { retries: 0, timeout: 5_000 });
      const notices = createAdminNotifier(rest, { logger: captureLogger().logger });
      return { discord, guild, store, rest, notices, location };
    }
    const lock = (discord: Awaited<ReturnType<typeof world>>['discord'], channelId: string, locked: boolean) =>
      discord.updateChannel(channelId, { permissionOverwrites: locked ? [{ id: '@bot', deny: PermissionFlagsBits.SendMessages }] : [] });

    it('DMs the member who last configured it once per change of state: failing, disabled, and one line on recovery', async () => {
      const { discord, guild, store, notices } = await world();
      const daily = guild.channelId('daily');
      await store.upsert(guild.id, daily, 5, () => makeSubscription({ guildId: guild.id, channelId: daily, channelName: 'daily', createdBy: ADMIN, configuredBy: EDITOR }));
      const { scheduler } = schedulerFor(discord, store, { notices });
      const dms = () => discord.messagesIn(discord.dmChannelOf(EDITOR)).map((message) => message.content);

      lock(discord, daily, true);
      await scheduler.tick(new Date('2026-06-15T09:00:00Z'));
      expect(dms()).toHaveLength(1);
      expect(dms()[0]).toBe(
        `⚠️ Today's word could not be posted in <#${daily}> (#daily): Missing Permissions: the bot may not post or embed links there. To fix it, give me **View Channel**, **Send Messages**, ` +
          `**Embed Links** and **Read Message History** in <#${daily}> (#daily). I try again tomorrow; after 3 failed days in a row the daily posts there are switched off.`,
      );
      expect(discord.messagesIn(discord.dmChannelOf(ADMIN))).toEqual([]);
      // A second failed day is no change of state: no second DM.
      await scheduler.tick(new Date('2026-06-16T09:00:00Z'));
      expect(dms()).toHaveLength(1);
      await scheduler.tick(new Date('2026-06-17T09:00:00Z'));
      expect(dms()).toHaveLength(2);
      expect(dms()[1]).toContain(`⛔ The daily word in <#${daily}> (#daily) is switched off: Missing Permissions: the bot may not post or embed links there on 3 days in a row.`);
      expect(dms()[1]).toContain(`then run /wotd-subscribe channel:#daily.`);
      expect((await store.get(daily))?.noticeOwed).toBeUndefined();

      // Re-enabled by the admin, it fails once, then recovers: one line.
      await store.update(daily, (current) => ({ ...current, status: { state: 'active' }, enabledAt: '2026-06-18T00:00:00.000Z' }));
      await scheduler.tick(new Date('2026-06-18T09:00:00Z'));
      lock(discord, daily, false);
      await scheduler.tick(new Date('2026-06-19T09:00:00Z'));
      expect(dms().slice(2)).toEqual([
        expect.stringContaining('⚠️ Today\'s word could not be posted'),
        `✅ The daily word is posted in <#${daily}> (#daily) again.`,
      ]);
      // Nothing in a notice pings anyone.
      expect(discord.allMessages().filter((message) => message.channelId === discord.dmChannelOf(EDITOR)).every((message) => message.pings.users.length === 0)).toBe(true);
    });

    it('falls back to the notice channel when the DM cannot be delivered, in the subscription\'s language', async () => {
      const { discord, guild, store, notices } = await world();
      const daily = guild.channelId('daily');
      const mods = guild.channelId('mods');
      discord.setDmsOpen(ADMIN, false);
      await store.upsert(guild.id, daily, 5, () =>
        makeSubscription({ guildId: guild.id, channelId: daily, channelName: 'daily', createdBy: ADMIN, noticeChannelId: mods, language: 'de' }),
      );
      const { scheduler } = schedulerFor(discord, store, { notices });
      lock(discord, daily, true);
      await scheduler.tick(new Date('2026-06-15T09:00:00Z'));
      const [notice] = discord.messagesIn(mods);
      expect(notice?.content).toMatch(new RegExp(`^Für <@${ADMIN}> \\(ich konnte dir keine DM schicken\\): ⚠️ Das heutige Wort konnte in <#${daily}> \\(#daily\\) nicht gepostet werden`));
      expect(notice?.pings.users).toEqual([]);
    });

    it('sends a notice owed once, however many processes try to at the same time', async () => {
      const { discord, guild, store, notices, location } = await world();
      const daily = guild.channelId('daily');
      await store.upsert(guild.id, daily, 5, () =>
        makeSubscription({ guildId: guild.id, channelId: daily, channelName: 'daily', createdBy: ADMIN, noticeOwed: { kind: 'recovered', at: '2026-06-15T09:00:00.000Z' } }),
      );
      const { logger } = captureLogger();
      // Two stores on the same data, as two cluster processes have.
      const other = await SubscriptionStore.open(location);
      cleanups.push(() => other.close());
      const results = await Promise.all([sendOwedNotice(store, notices, daily, logger), sendOwedNotice(other, notices, daily, logger)]);
      expect(results).toEqual([true, true]);
      expect(discord.messagesIn(discord.dmChannelOf(ADMIN))).toHaveLength(1);
    });
  });
}
