import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL_SETTINGS_TTL_MS, KeptChannelSettings } from '../../src/schedule/subscription-store/kept-channel-settings.ts';
import { SubscriptionStore } from '../../src/schedule/subscription-store.ts';
import { makeSubscription, tempStore } from './helpers.ts';

/**
 * Every public reply asks for its channel's subscription language, every quiz press whether it asks for the quiz; the
 * store keeps them for a few seconds. Two stores opened on one SQLite file stand for two processes: one's change
 * shows in the other once that time is up, and in its own at once.
 */
describe('kept channel settings', () => {
  let ours: SubscriptionStore;
  let theirs: SubscriptionStore;
  let cleanup: () => void;

  beforeAll(async () => {
    const temp = tempStore();
    cleanup = temp.cleanup;
    ours = await SubscriptionStore.open(temp.url);
    theirs = await SubscriptionStore.open(temp.url);
  });
  afterAll(async () => {
    await ours?.close();
    await theirs?.close();
    cleanup?.();
  });

  it("sees its own process's changes at once, another's once the time is up", async () => {
    let now = 0;
    const settings = new KeptChannelSettings((channelId) => ours.get(channelId), () => now);
    const subscription = makeSubscription({ guildId: 'g-lang', channelId: 'c-lang', language: 'de' });
    await ours.upsert('g-lang', 'c-lang', 5, () => subscription);
    expect(settings.cached('c-lang')).toBeUndefined();
    expect(await settings.languageOf('c-lang')).toBe('de');
    expect(settings.cached('c-lang')?.language).toBe('de');

    await theirs.upsert('g-lang', 'c-lang', 5, () => ({ ...subscription, language: 'fr' }));
    now += CHANNEL_SETTINGS_TTL_MS - 1;
    expect(await settings.languageOf('c-lang')).toBe('de');
    now += 1;
    expect(settings.cached('c-lang')).toBeUndefined();
    expect(await settings.languageOf('c-lang')).toBe('fr');

    // The store's own (real clock): its writes forget what it kept.
    expect(await ours.languageOf('c-lang')).toBe('fr');
    await ours.upsert('g-lang', 'c-lang', 5, () => ({ ...subscription, language: 'ja' }));
    expect(ours.cachedLanguageOf('c-lang')).toBeUndefined();
    expect(await ours.languageOf('c-lang')).toBe('ja');
    await ours.remove('g-lang', 'c-lang');
    expect(await ours.languageOf('c-lang')).toBeUndefined();
    expect(ours.cachedLanguageOf('c-lang')).toMatchObject({ language: undefined });
  });

  it('keeps whether a channel asks for the quiz the same way, one read for the asks that come meanwhile', async () => {
    let now = 0;
    let reads = 0;
    const settings = new KeptChannelSettings((channelId) => {
      reads += 1;
      return ours.get(channelId);
    }, () => now);
    const subscription = makeSubscription({ guildId: 'g-quiz', channelId: 'c-quiz', quiz: true });
    await ours.upsert('g-quiz', 'c-quiz', 5, () => subscription);
    expect(await Promise.all([settings.quizOn('c-quiz'), settings.quizOn('c-quiz'), settings.languageOf('c-quiz')])).toEqual([true, true, undefined]);
    expect(reads).toBe(1);
    await theirs.remove('g-quiz', 'c-quiz');
    now += CHANNEL_SETTINGS_TTL_MS - 1;
    expect(await settings.quizOn('c-quiz')).toBe(true);
    now += 1;
    expect(await settings.quizOn('c-quiz')).toBe(false);
    expect(await settings.quizOn('none-quiz')).toBe(false);

    // The store's own: a removal by this process answers at once.
    await ours.upsert('g-quiz', 'c-quiz', 5, () => subscription);
    expect(await ours.quizOn('c-quiz')).toBe(true);
    await ours.remove('g-quiz', 'c-quiz');
    expect(await ours.quizOn('c-quiz')).toBe(false);
  });

  it('does not keep a read that was under way when the channel was written', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const settings = new KeptChannelSettings(async (channelId) => {
      const read = await ours.get(channelId);
      await gate;
      return read;
    });
    await ours.upsert('g-race', 'c-race', 5, () => makeSubscription({ guildId: 'g-race', channelId: 'c-race', language: 'es' }));
    const reading = settings.languageOf('c-race');
    await ours.upsert('g-race', 'c-race', 5, () => makeSubscription({ guildId: 'g-race', channelId: 'c-race', language: 'ru' }));
    settings.forget(['c-race']);
    release();
    expect(await reading).toBe('es');
    expect(settings.cached('c-race')).toBeUndefined();
    expect(await settings.languageOf('c-race')).toBe('ru');
  });

  it('keeps a bounded number of channels, forgetting the oldest read first', async () => {
    const settings = new KeptChannelSettings((channelId) => ours.get(channelId), undefined, 3);
    for (const channelId of ['none-1', 'none-2', 'none-3', 'none-4']) await settings.languageOf(channelId);
    expect(settings.cached('none-1')).toBeUndefined();
    for (const channelId of ['none-2', 'none-3', 'none-4']) expect(settings.cached(channelId)).toMatchObject({ language: undefined });
  });
});
