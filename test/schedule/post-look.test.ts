import { afterEach, describe, expect, it } from 'vitest';
import { dailyPostEmbed, dailyPostRendering } from '../../src/replies/daily-embeds.ts';
import { footerDate } from '../../src/replies/date-style.ts';
import { quizRendering } from '../../src/replies/learning-replies.ts';
import { parsePostParts } from '../../src/schedule/post-look.ts';
import { settingsOf } from '../../src/schedule/subscription-service.ts';
import { PrivacyService } from '../../src/schedule/privacy.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { startDiscordServer } from '../support/discord/index.ts';
import { sqliteBackend, storeBackends } from '../support/store-backends.ts';
import { schedulerFor } from './discord-scheduler.ts';
import { entryFor, makeSubscription } from './helpers.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const options = { siteUrl: 'https://wotd.site' };
const entry = entryFor('2026-11-27');

describe('the parts a post shows and its date style', () => {
  it('shows every part as today unless told otherwise, and never leaves the embed without the word', () => {
    expect(dailyPostEmbed(entry, 'full', options, { parts: ['pos', 'ipa', 'definition', 'date', 'link'], dateStyle: null })).toEqual(dailyPostEmbed(entry, 'full', options));
    const wordOnly = dailyPostEmbed(entry, 'full', options, { parts: [], dateStyle: null });
    expect(wordOnly).toEqual({ title: 'word-2026-11-27', color: dailyPostEmbed(entry, 'full', options).color, footer: { text: 'Word of the Day from wotd.site' } });
    const some = dailyPostEmbed(entry, 'full', options, { parts: ['ipa', 'definition', 'link'], dateStyle: null });
    expect(some.description).toBe('/wɜːd/\n\nThe word for 2026-11-27.');
    expect(some.url).toBe('https://wotd.site');
    const compact = dailyPostEmbed(entry, 'compact', options, { parts: ['definition', 'date'], dateStyle: 'iso' });
    expect(compact.description).toBe('The word for 2026-11-27.');
    expect(compact.footer?.text).toBe('2026-11-27 · Word of the Day from wotd.site');
  });

  it('writes the date long, short or ISO in the post’s language', () => {
    expect(footerDate('2026-11-27', null, undefined)).toBe('2026-11-27');
    expect(footerDate('2026-11-27', 'long', undefined)).toBe('27 November 2026');
    expect(footerDate('2026-11-27', 'short', 'en-GB')).toBe('27/11/2026');
    expect(footerDate('2026-11-27', 'short', 'en-US')).toBe('11/27/2026');
    expect(footerDate('2026-11-27', 'long', 'de')).toBe('27. November 2026');
    expect(footerDate('2026-11-27', 'short', 'de')).toBe('27.11.2026');
    expect(footerDate('2026-11-27', 'iso', 'ja')).toBe('2026-11-27');
    expect(footerDate('2026-11-27', 'long', 'ja')).toBe('2026年11月27日');
  });

  it('shows the quiz’s part of speech and IPA only when chosen, its definition never before it closes', () => {
    const quiz = { entry, definitions: ['The word for 2026-11-27.', 'Two.', 'Three.', 'Four.'], correct: 0, dates: ['2026-11-27', 'a', 'b', 'c'], from: [] };
    const asked = (parts?: Parameters<ReturnType<typeof quizRendering>['question']>[2]) => quizRendering('https://wotd.site').question(quiz, null, parts).embeds[0]?.description ?? '';
    expect(asked()).toContain('**noun** · /wɜːd/');
    const plain = asked(['definition', 'date']);
    expect(plain).not.toContain('/wɜːd/');
    expect(plain).not.toContain('noun');
    expect(plain.match(/\*\*[A-D]\.\*\*/g)).toHaveLength(4);
    expect(asked(['ipa'])).toMatch(/^\/wɜːd\//);
  });

  it('reads parts as typed, naming the first it does not know', () => {
    const names = new Map<string, 'word' | 'all' | 'ipa' | 'definition'>([['word', 'word'], ['all', 'all'], ['ipa', 'ipa'], ['definition', 'definition']]);
    const nameOf = (typed: string) => names.get(typed);
    expect(parsePostParts('word, definition ipa', nameOf)).toEqual({ ok: true, parts: ['ipa', 'definition'] });
    expect(parsePostParts('word', nameOf)).toEqual({ ok: true, parts: [] });
    expect(parsePostParts('ipa,defintion', nameOf)).toEqual({ ok: false, unknown: 'defintion' });
    expect(parsePostParts(' , ', nameOf)).toEqual({ ok: false, unknown: null });
  });

  it('posts the parts and the date style through the scheduler and the local Discord server, intro date included', async () => {
    const discord = await startDiscordServer();
    cleanups.push(() => discord.close());
    const guild = discord.addGuild({ name: 'Words', channels: [{ name: 'daily' }, { name: 'plain' }] });
    const store = await SubscriptionStore.open(await sqliteBackend.fresh());
    cleanups.push(() => store.close());
    const daily = guild.channelId('daily');
    const plain = guild.channelId('plain');
    await store.upsert(guild.id, daily, 50, () =>
      makeSubscription({ guildId: guild.id, channelId: daily, language: 'de', parts: ['definition', 'date'], dateStyle: 'long', intro: 'Heute, {date}: {word}' }),
    );
    await store.upsert(guild.id, plain, 50, () => makeSubscription({ guildId: guild.id, channelId: plain, intro: '{date}' }));
    const rendering = dailyPostRendering('https://wotd.site');
    const { scheduler } = schedulerFor(discord, store, { render: rendering.render, dateText: rendering.dateText });
    expect(await scheduler.tick(new Date('2026-06-15T09:00:00Z'))).toMatchObject({ sent: 2 });

    const [shaped] = discord.messagesIn(daily);
    expect(shaped?.content).toBe('Heute, 15. Juni 2026: word-2026-06-15');
    expect(shaped?.embeds[0]).toMatchObject({ title: 'word-2026-06-15', description: 'The word for 2026-06-15.' });
    expect(shaped?.embeds[0]?.url).toBeUndefined();
    expect(shaped?.embeds[0]).toMatchObject({ footer: { text: expect.stringMatching(/^15\. Juni 2026 · /) } });
    // Without the settings, the post is as it always was.
    const [before] = discord.messagesIn(plain);
    expect(before?.content).toBe('2026-06-15');
    expect(before?.embeds[0]).toMatchObject({ url: 'https://wotd.site', description: '**noun** · /wɜːd/\n\nThe word for 2026-06-15.' });
    expect(before?.embeds[0]).toMatchObject({ footer: { text: expect.stringMatching(/^2026-06-15 · /) } });
    // A server's /wotd-data export shows them with the rest of the subscription.
    const exported = await new PrivacyService(store, () => new Date('2026-06-15T10:00:00Z')).exportData('u1', guild.id);
    expect(exported.server?.subscriptions.find((item) => item.channelId === daily)).toMatchObject({ parts: ['definition', 'date'], dateStyle: 'long' });
  });
});

for (const backend of storeBackends) {
  backend.describe(`parts and date style on ${backend.name}`, () => {
    it('are stored and read back, and a record without them reads as today’s look', async () => {
      const store = await SubscriptionStore.open(await backend.fresh());
      cleanups.push(() => store.close());
      await store.upsert('g1', 'c1', 50, () => makeSubscription({ parts: ['ipa', 'date'], dateStyle: 'short' }));
      await store.upsert('g1', 'c2', 50, () => makeSubscription({ channelId: 'c2' }));
      const shaped = await store.get('c1');
      expect(shaped).toMatchObject({ parts: ['ipa', 'date'], dateStyle: 'short' });
      const old = await store.get('c2');
      expect(old && settingsOf(old)).toMatchObject({ parts: ['pos', 'ipa', 'definition', 'date', 'link'], dateStyle: null });
    });
  });
}
