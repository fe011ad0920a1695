import { afterEach, describe, expect, it } from 'vitest';
import { wotdSubscribeCommand } from '../../commands/wotd-subscribe.ts';
import { wotdSubscriptionsCommand } from '../../commands/wotd-subscriptions.ts';
import type { BotServices, ChannelRef, CommandContext, OutgoingMessage, RoleRef, SlashCommand } from '../../src/replies/interactions.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { createSubscriptionService } from '../../src/schedule/subscription-service.ts';
import type { WotdLookup } from '../../src/wotd/lookup.ts';
import { FixedLookup, tempStore } from './helpers.ts';

/** /wotd-subscribe on a channel that has a subscription: only what is given changes, and the answer says what. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const GUILD = '100000000000000001';
const DAILY: ChannelRef = { id: '200000000000000001', name: 'daily', kind: 'text' };
const READERS: RoleRef = { id: '300000000000000001', name: 'readers' };
/** Monday 2026-06-15, 07:00 UTC. */
const NOW = new Date('2026-06-15T07:00:00Z');
const at = (iso: string) => `<t:${Date.parse(iso) / 1000}:F>`;

async function setUp(now = NOW) {
  const temp = tempStore();
  cleanups.push(temp.cleanup);
  const store = await SubscriptionStore.open(temp.url);
  cleanups.push(() => store.close());
  const subscriptions = createSubscriptionService({ store, limit: 5, now: () => now });
  const services: BotServices = { lookup: new FixedLookup() as unknown as WotdLookup, siteUrl: 'https://wotd.site', subscriptions };
  return { services, store };
}

async function run(command: SlashCommand, services: BotServices, options: Record<string, string | boolean | ChannelRef | RoleRef> = {}, locale?: string) {
  const answers: OutgoingMessage[] = [];
  const context: CommandContext = {
    commandName: command.data.name,
    invoker: { userId: '400000000000000001', guildId: GUILD, channelId: DAILY.id, canManageChannels: true, ...(locale ? { locale } : {}) },
    options: {
      getString: (name) => (typeof options[name] === 'string' ? (options[name] as string) : null),
      getInteger: () => null,
      getBoolean: (name) => (typeof options[name] === 'boolean' ? (options[name] as boolean) : null),
      getSubcommand: () => null,
      getChannel: (name) => (typeof options[name] === 'object' && 'kind' in (options[name] as object) ? (options[name] as ChannelRef) : null),
      getRole: (name) => (typeof options[name] === 'object' && !('kind' in (options[name] as object)) ? (options[name] as RoleRef) : null),
    },
    acknowledged: false,
    defer: async () => undefined,
    respond: async (message) => {
      answers.push(message);
    },
    memberCanManageChannel: async () => true,
    botPermissionsIn: async () => new Set(['ViewChannel', 'SendMessages', 'EmbedLinks', 'ReadMessageHistory', 'CreatePublicThreads', 'ManageWebhooks'] as const),
  };
  await command.execute(context, services);
  expect(answers).toHaveLength(1);
  const answer = answers[0] as OutgoingMessage;
  return [answer.content ?? '', ...(answer.embeds ?? []).map((embed) => `${embed.title ?? ''}\n${embed.description ?? ''}`)].join('\n');
}

const subscribe = (services: BotServices, options: Record<string, string | boolean | RoleRef | ChannelRef> = {}, locale?: string) =>
  run(wotdSubscribeCommand, services, { channel: DAILY, ...options }, locale);

describe('editing a subscription', () => {
  it('changes only the options given, and says exactly what changed', async () => {
    const { services, store } = await setUp();
    await subscribe(services, { timezone: 'Europe/Paris', role: READERS, style: 'compact', thread: true });
    const text = await subscribe(services, { time: '7:30' });
    expect(text).toContain(`Updated <#${DAILY.id}>: the word of the day every day at 07:30 (Europe/Paris), compact`);
    expect(text).toContain('Changed: the time from 09:00 to 07:30.');
    expect(await store.get(DAILY.id)).toMatchObject({ time: '07:30', timeZone: 'Europe/Paris', roleId: READERS.id, style: 'compact', openThread: true });
    expect(await subscribe(services)).toContain('Nothing changed: it had these settings already.');
  });

  it('goes back to the defaults with reset: all, or only the settings named', async () => {
    const { services, store } = await setUp();
    await subscribe(services, { time: '18:00', timezone: 'Asia/Tokyo', role: READERS, style: 'compact', days: 'weekdays' });
    const roleOnly = await subscribe(services, { reset: 'role, days' });
    expect(roleOnly).toContain(`Changed: the days from on weekdays to every day, the role from <@&${READERS.id}> to none.`);
    expect(await store.get(DAILY.id)).toMatchObject({ time: '18:00', timeZone: 'Asia/Tokyo', roleId: null, style: 'compact' });
    expect((await store.get(DAILY.id))?.days).toBeUndefined();
    // What is given wins over the reset.
    const all = await subscribe(services, { reset: 'all', time: '06:00' });
    expect(all).toContain('Changed: the time from 18:00 to 06:00, the time zone from Asia/Tokyo to UTC, the style from compact to full.');
    expect(await subscribe(services, { reset: 'font' })).toContain('“font” is not something I can reset. Use all, or one or more of: time, timezone, role, style, thread, publish, days, notices, colour, intro, parts, date-style, language, quiz, forum-tag, pin, webhook-name, webhook-avatar.');
  });

  it('previews the saved settings plus the ones given, and saves nothing', async () => {
    const { services, store } = await setUp();
    await subscribe(services, { timezone: 'Europe/Paris', role: READERS, style: 'compact' });
    const before = await store.get(DAILY.id);
    const preview = await subscribe(services, { time: '10:15', days: 'mon,wed,fri', preview: true });
    expect(preview).toContain(`**Preview** of the daily post in <#${DAILY.id}>: the word of the day on Mon, Wed, and Fri at 10:15 (Europe/Paris), compact`);
    expect(preview).toContain(`mentioning <@&${READERS.id}>`);
    expect(preview).toContain('word-2026-06-15');
    expect(await store.get(DAILY.id)).toEqual(before);
  });

  it('takes a notice channel the bot can write in, and says so when it cannot', async () => {
    const { services, store } = await setUp();
    await subscribe(services);
    const mods: ChannelRef = { id: '200000000000000009', name: 'mods', kind: 'text' };
    const saved = await subscribe(services, { notices: mods });
    expect(saved).toContain(`Changed: the notice channel from none to <#${mods.id}>.`);
    expect(saved).toContain(`at 09:00 (UTC), notices in <#${mods.id}>`);
    expect(await run(wotdSubscriptionsCommand, services)).toContain(`full style, notices in <#${mods.id}>`);
    expect((await store.get(DAILY.id))?.noticeChannelId).toBe(mods.id);
    const voice: ChannelRef = { id: '200000000000000010', name: 'lounge', kind: 'other' };
    expect(await subscribe(services, { notices: voice })).toContain(
      `I can't write notices in <#${voice.id}>: I need **View Channel** and **Send Messages** there.`,
    );
    expect(await subscribe(services, { reset: 'notices' })).toContain(`Changed: the notice channel from <#${mods.id}> to none.`);
  });

  it('takes a colour and an intro line, checks them, and previews the post with them', async () => {
    const { services, store } = await setUp();
    await subscribe(services, { role: READERS });
    const text = await subscribe(services, { colour: '#1ABC9C', intro: 'Word of the day for {date}: {word} {role}' });
    expect(text).toContain('Changed: the colour from the default to #1abc9c, the intro line from none to “Word of the day for {date}: {word} {role}”.');
    expect(await store.get(DAILY.id)).toMatchObject({ colour: 0x1abc9c, intro: 'Word of the day for {date}: {word} {role}' });
    const preview = await subscribe(services, { preview: true });
    expect(preview).toContain(`Word of the day for 2026-06-15: word-2026-06-15 <@&${READERS.id}>`);
    expect(preview).toContain(', in the colour #1abc9c, with the intro line “Word of the day for {date}: {word} {role}”');
    expect(await run(wotdSubscriptionsCommand, services)).toContain(', colour #1abc9c, intro “Word of the day for {date}: {word} {role}”');
    // Reset takes any catalog's word for a setting: `farbe`, or `color` (Spanish, and American English).
    expect(await subscribe(services, { reset: 'color' }, 'de')).toContain('die Farbe von #1abc9c auf Standard');
    await subscribe(services, { colour: '#1abc9c' });
    expect(await subscribe(services, { colour: 'teal' })).toContain('“teal” is not a colour. Write it as #RRGGBB in hexadecimal, for example #1abc9c.');
    expect(await subscribe(services, { intro: 'Hi {wrod}' })).toContain("I don't know the placeholder {wrod}. The intro can use {word}, {date}, {role}.");
    expect(await subscribe(services, { intro: 'x'.repeat(201) })).toContain('The intro line can be at most 200 characters; that one has 201.');
    expect(await subscribe(services, { reset: 'colour,intro' })).toContain('Changed: the colour from #1abc9c to the default, the intro line from “Word of the day for {date}: {word} {role}” to none.');
  });

  it('takes a webhook identity, says what changed, lists it, and resets it by its name in any language', async () => {
    const { services, store } = await setUp();
    await subscribe(services);
    const text = await subscribe(services, { 'webhook-name': 'Word Owl', 'webhook-avatar': 'https://example.com/owl.png' });
    expect(text).toContain('posted as “Word Owl” with the avatar <https://example.com/owl.png> through my webhook');
    expect(text).toContain('Changed: the webhook name from none to “Word Owl”, the webhook avatar from the default to <https://example.com/owl.png>.');
    expect(await run(wotdSubscriptionsCommand, services)).toContain(', as “Word Owl” with the avatar <https://example.com/owl.png>');
    expect(await subscribe(services, { 'webhook-name': 'x'.repeat(81) })).toContain('A webhook name has 1 to 80 characters; that one has 81.');
    expect(await subscribe(services, { 'webhook-name': 'everyone' })).toContain('Discord does not allow “everyone” as a webhook name.');
    expect(await subscribe(services, { 'webhook-avatar': 'not a url' })).toContain('it is not a web address');
    expect(await subscribe(services, { 'webhook-avatar': `https://example.com/${'a'.repeat(500)}.png` })).toContain('the address is longer than 512 characters');
    // A quiz's reveal edits its post through the channel, which Discord refuses for a webhook's post.
    expect(await subscribe(services, { quiz: true })).toContain("The quiz can't go out through a webhook");
    expect(await subscribe(services, { quiz: true, reset: 'webhook-name,webhook-avatar' })).toContain('Changed:');
    expect(await subscribe(services, { 'webhook-name': 'Word Owl' }, 'de')).toContain('Das Quiz kann nicht über einen Webhook gepostet werden');
    await subscribe(services, { quiz: false, 'webhook-name': 'Word Owl', 'webhook-avatar': 'https://example.com/owl.png' });
    // The name without the avatar would leave an avatar with nothing to show it.
    expect(await subscribe(services, { reset: 'webhook-name' })).toContain('An avatar goes with a webhook name');
    expect(await subscribe(services, { reset: 'nom-webhook,avatar-webhook' }, 'fr')).toContain('le nom du webhook : de « Word Owl » à aucun');
    expect(await store.get(DAILY.id)).not.toHaveProperty('webhookName');
  });

  it('answers in the member’s language', async () => {
    const { services } = await setUp();
    await subscribe(services);
    const text = await subscribe(services, { time: '07:30', days: 'weekends' }, 'de');
    expect(text).toContain('Geändert: <#200000000000000001> – das Wort des Tages am Wochenende um 07:30 (UTC).');
    expect(text).toContain('Geändert: die Uhrzeit von 09:00 auf 07:30, die Tage von jeden Tag auf am Wochenende.');
  });
});

describe('days, pause and skip from the command', () => {
  it('posts on the days chosen, shows them and the next post, and refuses a bad choice', async () => {
    // Saturday 2026-06-20 at noon: the next weekday post is Monday's.
    const { services, store } = await setUp(new Date('2026-06-20T12:00:00Z'));
    const text = await subscribe(services, { days: 'weekdays' });
    expect(text).toContain('every day at 09:00 (UTC)'.replace('every day', 'on weekdays'));
    expect(text).toContain(`Next post: ${at('2026-06-22T09:00:00Z')}`);
    expect((await store.get(DAILY.id))?.days).toEqual([1, 2, 3, 4, 5]);
    const list = await run(wotdSubscriptionsCommand, services);
    expect(list).toContain(`<#${DAILY.id}> — on weekdays, 09:00 UTC, full style`);
    expect(list).toContain(`next post ${at('2026-06-22T09:00:00Z')}`);
    expect(await subscribe(services, { days: 'mon,funday' })).toContain('“mon,funday” is not a choice of days.');
  });

  it('pauses until a date, says so in the answer and the list, and resumes', async () => {
    const { services, store } = await setUp();
    await subscribe(services);
    const paused = await subscribe(services, { pause: true, until: '2026-06-18' });
    expect(paused).toContain('Changed: the pause from none to until Thu, Jun 18, 2026.');
    expect(paused).toContain('Status: paused until Thu, Jun 18, 2026 (no posts before then; the paused days are not caught up).');
    expect(paused).toContain(`Next post: ${at('2026-06-18T09:00:00Z')}`);
    expect(await run(wotdSubscriptionsCommand, services)).toContain('active, paused until Thu, Jun 18, 2026');
    const resumed = await subscribe(services, { pause: false });
    expect(resumed).toContain('Changed: the pause from until Thu, Jun 18, 2026 to none.');
    expect(resumed).toContain(`Next post: ${at('2026-06-15T09:00:00Z')}`);
    expect((await store.get(DAILY.id))?.pause?.endedAt).toBe(NOW.toISOString());
  });

  it('pauses until resumed, with no next post', async () => {
    const { services } = await setUp();
    const text = await subscribe(services, { pause: true });
    expect(text).toContain('Status: paused until resumed with `pause:false`.');
    expect(text).not.toContain('Next post');
    // Resuming brings posts back: the listing must not ask for a new subscription.
    const listed = await run(wotdSubscriptionsCommand, services);
    expect(listed).toContain('active, paused until resumed with `pause:false`; no posts while paused');
    expect(listed).not.toContain('no posts until subscribed again');
  });

  it('refuses a pause date that is not a date, not ahead, too far, or given with pause:false', async () => {
    const { services } = await setUp();
    expect(await subscribe(services, { until: '18-06-2026' })).toContain('“18-06-2026” is not a date. Write it as YYYY-MM-DD, for example 2026-06-22.');
    expect(await subscribe(services, { until: '2026-06-15' })).toContain('2026-06-15 is not after today (2026-06-15 in UTC).');
    expect(await subscribe(services, { until: '2027-06-17' })).toContain('A pause lasts 366 days at most: choose a day up to 2027-06-16');
    expect(await subscribe(services, { pause: false, until: '2026-06-20' })).toContain('`until` says when a pause ends, so it cannot go with `pause:false`.');
  });

  it('skips the next post only, and can take the skip back', async () => {
    const { services, store } = await setUp();
    await subscribe(services);
    const skipped = await subscribe(services, { skip: true });
    expect(skipped).toContain('Status: the post of Mon, Jun 15, 2026 is skipped.');
    expect(skipped).toContain(`Next post: ${at('2026-06-16T09:00:00Z')}`);
    expect((await store.get(DAILY.id))?.skipDay).toBe('2026-06-15');
    const back = await subscribe(services, { skip: false });
    expect(back).toContain('Changed: the skipped post from Mon, Jun 15, 2026 to none.');
    expect((await store.get(DAILY.id))?.skipDay).toBeUndefined();
  });
});

describe('the language, kept like any other setting', () => {
  it('is saved, shown, kept when left out, changed, and put back by reset', async () => {
    const { services, store } = await setUp();
    const first = await subscribe(services, { language: 'fr' });
    expect(first).toContain(`Subscribed <#${DAILY.id}>: the word of the day every day at 09:00 (UTC), in French.`);
    expect((await store.get(DAILY.id))?.language).toBe('fr');
    const kept = await subscribe(services, { time: '07:30' });
    expect(kept).toContain('at 07:30 (UTC), in French.');
    expect(kept).toContain('Changed: the time from 09:00 to 07:30.');
    expect((await store.get(DAILY.id))?.language).toBe('fr');
    expect(await run(wotdSubscriptionsCommand, services)).toContain(`<#${DAILY.id}> — every day, 07:30 UTC, full style, in French`);
    expect(await subscribe(services, { language: 'Deutsch' })).toContain('Changed: the language from French to German.');
    expect(await subscribe(services, { reset: 'language' })).toContain("Changed: the language from German to the server's language.");
    expect((await store.get(DAILY.id))?.language).toBeUndefined();
    expect(await subscribe(services, { language: 'Klingon' })).toContain('“Klingon” is not a language I write.');
  });

  it('previews in the member’s language, naming the channel’s', async () => {
    const { services } = await setUp();
    await subscribe(services, { language: 'de' });
    const preview = await subscribe(services, { preview: true }, 'fr');
    expect(preview).toContain(`**Aperçu** de la publication quotidienne dans <#${DAILY.id}>`);
    expect(preview).toContain('en allemand');
  });

  it('takes the names of the settings to reset in the member’s language, and lists them so', async () => {
    const { services, store } = await setUp();
    await subscribe(services, { role: READERS, days: 'weekdays', time: '18:00' });
    const text = await subscribe(services, { reset: 'Rolle, tage' }, 'de');
    expect(text).toContain('die Tage von werktags auf jeden Tag');
    expect(await store.get(DAILY.id)).toMatchObject({ time: '18:00', roleId: null });
    expect(await subscribe(services, { reset: 'alle, rolle' }, 'de')).toContain(
      '„alle, rolle“ kann ich nicht zurücksetzen. Verwende alle oder eines oder mehrere von: uhrzeit, zeitzone, rolle, stil, thread, veröffentlichen, tage, hinweise, farbe, einleitung, teile, datumsformat, sprache, quiz, forum-tag, anheften, webhook-name, webhook-avatar.',
    );
  });

  it('is kept for a member’s DMs', async () => {
    const { services, store } = await setUp();
    await services.subscriptions?.subscribeDm({ userId: '400000000000000001', time: '08:00', timeZone: 'UTC', language: 'ja' });
    expect((await store.get('dm:400000000000000001'))?.language).toBe('ja');
  });
});

describe('days in the member’s language', () => {
  it.each([
    ['de', 'mo,mi,fr', [1, 3, 5]],
    ['de', 'Werktags', [1, 2, 3, 4, 5]],
    ['de', 'Mittwoch, sonntag', [3, 7]],
    ['de', 'mon,wed', [1, 3]],
    ['fr', 'en semaine', [1, 2, 3, 4, 5]],
    ['fr', 'lun., mer.', [1, 3]],
    ['es', 'mié, sáb', [3, 6]],
    ['pt-BR', 'seg,qua,sex', [1, 3, 5]],
    ['ru', 'пн, ср', [1, 3]],
    ['ja', '月,水,金', [1, 3, 5]],
    ['zh-CN', '周一、周三', [1, 3]],
    ['zh-CN', '周末', [6, 7]],
  ] as const)('%s: %s', async (locale, typed, days) => {
    const { services, store } = await setUp();
    await subscribe(services, { days: typed }, locale);
    expect((await store.get(DAILY.id))?.days).toEqual(days);
  });

  it('refuses another language’s day names, in the member’s words', async () => {
    const { services, store } = await setUp();
    expect(await subscribe(services, { days: 'mo,mi' }, 'fr')).toContain('« mo,mi » n’est pas un choix de jours. Utilisez quotidien, en semaine, week-end');
    expect(await store.get(DAILY.id)).toBeNull();
  });
});
