import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { wotdSubscriptionsCommand } from '../../commands/wotd-subscriptions.ts';
import { createAdminNotifier } from '../../src/discord/admin-notifier.ts';
import { deliveryFailureText, failureReasonText } from '../../src/replies/failure-reason-text.ts';
import { translatorFor } from '../../src/replies/i18n/translate.ts';
import type { BotServices } from '../../src/replies/interactions.ts';
import { createSubscriptionService, subscriptionRecord } from '../../src/schedule/subscription-service.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import type { WotdLookup } from '../../src/wotd/lookup.ts';
import { commandContext } from '../commands/recording-context.ts';
import { restFor, startDiscordServer } from '../support/discord/index.ts';
import { schedulerFor } from './discord-scheduler.ts';
import { captureLogger, makeSubscription, tempStore } from './helpers.ts';

/**
 * A failure's reason is stored as a code and said in the reader's language: /wotd-subscriptions in the member's,
 * the admin's DM in the admin's, the notice channel in the server's; a record an earlier version wrote, its reason
 * an English sentence, still reads.
 */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const GUILD = '100000000000000001';
const WORDS = '200000000000000001';
const NEWS = '200000000000000002';
const OLD = '200000000000000003';
const ODD = '200000000000000004';

/** Exactly what the previous version wrote for a subscription switched off after three days without Embed Links. */
const WRITTEN_BEFORE = {
  guildId: GUILD,
  channelId: OLD,
  channelName: 'old-words',
  time: '09:00',
  timeZone: 'UTC',
  roleId: null,
  createdBy: '400000000000000001',
  createdAt: '2026-06-01T00:00:00.000Z',
  enabledAt: '2026-06-01T00:00:00.000Z',
  status: { state: 'disabled', reason: 'Missing Embed Links in #old-words on 3 days in a row', at: '2026-06-14T09:00:00.000Z' },
  style: 'full',
  configuredBy: '400000000000000001',
};

async function listing(locale: string): Promise<string> {
  const temp = tempStore();
  cleanups.push(temp.cleanup);
  const store = await SubscriptionStore.open(temp.url);
  cleanups.push(() => store.close());
  const base = { guildId: GUILD, createdBy: '400000000000000001' };
  await store.upsert(GUILD, WORDS, 5, () =>
    makeSubscription({
      ...base,
      channelId: WORDS,
      channelName: 'words',
      status: { state: 'failing', reason: { kind: 'missingPermission', permission: 'EmbedLinks', channelName: 'words' }, failedDays: 2, lastFailedDay: '2026-06-14' },
    }),
  );
  await store.upsert(GUILD, NEWS, 5, () =>
    makeSubscription({ ...base, channelId: NEWS, channelName: 'news', status: { state: 'failing', reason: { kind: 'missingAccess' }, failedDays: 1, lastFailedDay: '2026-06-14' } }),
  );
  expect(await store.restoreSubscription(`sub:${OLD}`, WRITTEN_BEFORE)).toBe('restored');
  // A sentence no version of the bot wrote as a reason: kept and shown as it was stored.
  const odd = { ...WRITTEN_BEFORE, channelId: ODD, channelName: 'odd', status: { state: 'failing', reason: 'Discord error 503: upstream hiccup (0)', failedDays: 1, lastFailedDay: '2026-06-14' } };
  expect(await store.restoreSubscription(`sub:${ODD}`, odd)).toBe('restored');

  const subscriptions = createSubscriptionService({ store, limit: 5, now: () => new Date('2026-06-15T07:00:00Z') });
  const services: BotServices = { lookup: {} as WotdLookup, siteUrl: 'https://wotd.site', subscriptions };
  const context = commandContext('wotd-subscriptions');
  // The member's own client language; the server's is English.
  Object.defineProperty(context, 'invoker', { value: { userId: '400000000000000001', guildId: GUILD, channelId: WORDS, canManageChannels: true, locale, guildLocale: 'en-US' } });
  await wotdSubscriptionsCommand.execute(context, services);
  return context.recorder.answer.embeds?.[0]?.description ?? '';
}

describe('failure reasons in the reader\'s language', () => {
  it('/wotd-subscriptions says them in German, permissions by the names Discord shows, an earlier version\'s record too', async () => {
    const text = await listing('de');
    expect(text).toContain('fehlerhaft (Mir fehlt die Berechtigung „Links einbetten“ in #words; 2 Tage in Folge fehlgeschlagen)');
    expect(text).toContain('fehlerhaft (Kein Zugriff: Ich kann den Kanal nicht sehen; 1 Tag in Folge fehlgeschlagen)');
    expect(text).toContain('deaktiviert (Mir fehlt die Berechtigung „Links einbetten“ in #old-words, an 3 Tagen in Folge)');
    expect(text).toContain('fehlerhaft (Discord error 503: upstream hiccup (0); 1 Tag in Folge fehlgeschlagen)');
    expect(text).not.toContain('Missing');
  });

  it('/wotd-subscriptions says them in Japanese', async () => {
    const text = await listing('ja');
    expect(text).toContain('失敗中（#words で「埋め込みリンク」の権限がありません。2日連続で失敗）');
    expect(text).toContain('失敗中（アクセス権がありません：チャンネルを見ることができません。1日連続で失敗）');
    expect(text).toContain('停止中（#old-words で「埋め込みリンク」の権限がありません（3日連続））');
    expect(text).not.toContain('Missing');
  });

  it('reads the sentences earlier versions stored as the codes they stand for, in any language', () => {
    const de = translatorFor('de');
    expect(deliveryFailureText({ error: 'Unknown Channel: the channel no longer exists' }, de)).toBe('Unbekannter Kanal: Der Kanal existiert nicht mehr');
    expect(deliveryFailureText({ error: 'Discord refused the post: Invalid Form Body (50035)' }, de)).toBe('Discord hat den Beitrag abgelehnt: Invalid Form Body (50035)');
    expect(deliveryFailureText({ failure: { kind: 'timeout' }, error: 'ignored' }, translatorFor('fr'))).toBe('Discord n’a pas répondu à temps');
    // Discord's own words stay Discord's, escaped; a permission no catalog names yet goes by its flag name.
    expect(failureReasonText({ kind: 'refused', status: 400, code: 50035, message: 'Invalid *Form* Body' }, translatorFor('ru'))).toBe(
      'Discord отклонил публикацию: Invalid \\*Form\\* Body (50035)',
    );
    expect(failureReasonText({ kind: 'missingPermission', permission: 'ManageGuild' }, translatorFor('zh-CN'))).toBe('在该频道中缺少“ManageGuild”权限');
    expect(failureReasonText({ kind: 'missingPermission', permission: 'ManageWebhooks', channelName: 'words' }, translatorFor('zh-CN'))).toBe(
      '在 #words 中缺少“管理 Webhook”权限',
    );
    expect(failureReasonText({ kind: 'webhookDeletedAgain', channelName: 'words' }, translatorFor('de'))).toBe(
      'Unbekannter Webhook: Mein Webhook in #words wurde gelöscht und gleich wieder gelöscht, nachdem ich ihn neu erstellt hatte',
    );
  });

  it('keeps the language of the member who configures a subscription, for their notices', () => {
    const request = { guildId: GUILD, channelId: WORDS, channelName: 'words', userId: '400000000000000001', userLocale: 'ja' };
    expect(subscriptionRecord(request, null, '2026-06-15T07:00:00.000Z').configuredLocale).toBe('ja');
  });

  it("DMs the admin in their own language, and the notice channel in the server's", async () => {
    const discord = await startDiscordServer();
    cleanups.push(() => discord.close());
    const guild = discord.addGuild({ name: 'Wörter', channels: [{ name: 'daily' }, { name: 'other' }, { name: 'mods' }] });
    const [admin, closed] = ['700000000000000001', '700000000000000002'];
    discord.addMember(guild.id, { id: admin, username: 'admin' });
    discord.addMember(guild.id, { id: closed, username: 'closed' });
    discord.setDmsOpen(closed, false);
    const temp = tempStore();
    cleanups.push(temp.cleanup);
    const store = await SubscriptionStore.open(temp.url);
    cleanups.push(() => store.close());
    const [daily, other, mods] = [guild.channelId('daily'), guild.channelId('other'), guild.channelId('mods')];
    await store.upsert(guild.id, daily, 5, () => makeSubscription({ guildId: guild.id, channelId: daily, channelName: 'daily', createdBy: admin, configuredBy: admin, configuredLocale: 'ja' }));
    await store.upsert(guild.id, other, 5, () =>
      makeSubscription({ guildId: guild.id, channelId: other, channelName: 'other', createdBy: closed, configuredBy: closed, configuredLocale: 'ja', noticeChannelId: mods }),
    );
    const notices = createAdminNotifier(restFor(discord, { retries: 0, timeout: 5_000 }), { logger: captureLogger().logger, serverLocaleOf: () => 'de' });
    const { scheduler } = schedulerFor(discord, store, { notices });
    for (const channel of [daily, other]) discord.updateChannel(channel, { permissionOverwrites: [{ id: '@bot', deny: PermissionFlagsBits.SendMessages }] });
    await scheduler.tick(new Date('2026-06-15T09:00:00Z'));

    const [dm] = discord.messagesIn(discord.dmChannelOf(admin)).map((message) => message.content);
    expect(dm).toMatch(new RegExp(`^⚠️ <#${daily}> \\(#daily\\) に今日の単語を投稿できませんでした：権限がありません：このチャンネルで投稿やリンクの埋め込みができません。`));
    const [posted] = discord.messagesIn(mods).map((message) => message.content);
    expect(posted).toMatch(new RegExp(`^Für <@${closed}> \\(ich konnte dir keine DM schicken\\): ⚠️ Das heutige Wort konnte in <#${other}> \\(#other\\) nicht gepostet werden: `));
    expect(posted).toContain(': Fehlende Berechtigungen: Ich darf dort nicht posten oder keine Links einbetten. ');
  });
});
