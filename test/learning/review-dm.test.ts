import { afterEach, describe, expect, it } from 'vitest';
import { reviewReminderPoster } from '../../src/learning/review-reminder.ts';
import { reviewReminderLine } from '../../src/replies/learning-replies.ts';
import { TODAY } from '../commands/world.ts';
import { startLearningBotWorld, tickOnlyScheduler } from './learning-bot-world.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ANNA = '510000000000000001';
const BORIS = '510000000000000002';
const CHLOE = '510000000000000003';
const DAN = '510000000000000004';

/** The real bot on the local Discord server, its DMs decorated with the review line as bot-services.ts does. */
async function world() {
  const { discord, guild, daily, clock, store } = await startLearningBotWorld(cleanups, {
    guild: {
      name: 'Words',
      members: [ANNA, BORIS, CHLOE, DAN].map((id, index) => ({ id, username: `member${index}` })),
      channels: [{ name: 'general' }],
    },
    now: new Date(`${TODAY}T05:00:00Z`),
    decorate: (inner, parts) =>
      reviewReminderPoster(inner, { store: parts.store, subscriptionOf: (id) => parts.daily.store.get(id), line: reviewReminderLine, now: parts.learning.now }),
  });
  const general = guild.channelId('general');
  const subscribeMe = (user: string, options: Record<string, string | boolean>, locale = 'en-US') =>
    discord.invokeCommand({ name: 'wotd-subscribe-me', options: { time: '06:00', ...options }, channelId: general, user, locale }).waitForResponse();
  /** Saves a word through the Save button under /wotd's answer for that day, as members press it. */
  const shown = new Set<string>();
  const save = async (user: string, date: string) => {
    if (!shown.has(date)) await discord.invokeCommand({ name: 'wotd', options: { date }, channelId: general, user }).waitForResponse();
    shown.add(date);
    const saved = await discord.pressButton({ customId: `words:save:${date}`, channelId: general, user }).waitForResponse();
    expect(saved.content).toMatch(/^Saved \*\*/);
  };
  return { discord, daily, clock, store, subscribeMe, save, general };
}

describe('the daily DM says how many saved words are due (review:true)', () => {
  it('with review on, the right count in the member’s language; off, absent or nothing due, no line', async () => {
    const { discord, daily, clock, store, subscribeMe, save } = await world();
    const anna = await subscribeMe(ANNA, { review: true });
    expect(anna.content).toContain("I'll DM you the word of the day every day at 06:00 (UTC), with how many of your saved words are due for review.");
    expect(await daily.store.get(`dm:${ANNA}`)).toMatchObject({ review: true });
    await subscribeMe(BORIS, { review: false });
    await subscribeMe(CHLOE, { review: true }, 'ru');
    // Dan has review on and saved words, none of them due yet.
    await subscribeMe(DAN, { review: true });
    for (const date of ['2025-01-14', '2025-01-13', '2025-01-10']) await save(ANNA, date);
    for (const date of ['2025-01-14', '2025-01-13']) await save(BORIS, date);
    for (const date of ['2025-01-14', '2025-01-13', '2025-01-12', '2025-01-11', '2025-01-10']) await save(CHLOE, date);
    await save(DAN, '2025-01-14');
    // One of Anna's was reviewed already and is due tomorrow; Dan's only word likewise.
    const tomorrow = clock.now.getTime() + 86_400_000;
    expect(await store.recordReview(ANNA, '2025-01-10', '{}', tomorrow)).toBe(true);
    expect(await store.recordReview(DAN, '2025-01-14', '{}', tomorrow)).toBe(true);

    clock.now = new Date(`${TODAY}T06:00:00Z`);
    const scheduler = tickOnlyScheduler(daily);
    expect(await scheduler.tick(clock.now)).toMatchObject({ sent: 4 });
    const dm = (user: string) => {
      const [post, ...more] = discord.messagesIn(discord.dmChannelOf(user));
      expect(more).toEqual([]);
      expect(post?.embeds).toHaveLength(1);
      return post?.content;
    };
    expect(dm(ANNA)).toBe('2 words to review — /wotd-review');
    expect(dm(BORIS)).toBe('');
    // Chloe's DMs are in Russian (her language when she subscribed): five takes the "many" form.
    expect(dm(CHLOE)).toBe('5 слов к повторению — /wotd-повторение');
    expect(dm(DAN)).toBe('');
    // Each DM has Save, labelled in the DM's language; pressed, it saves the day's word to the presser's list.
    const dmPost = (user: string) => discord.messagesIn(discord.dmChannelOf(user))[0];
    const saveOn = (user: string) => (dmPost(user)?.components ?? []).flatMap((row) => (row as { components: Array<{ custom_id?: string; label?: string }> }).components);
    expect(saveOn(BORIS)).toMatchObject([{ custom_id: `words:save:${TODAY}`, label: 'Save' }]);
    expect(saveOn(CHLOE)).toMatchObject([{ custom_id: `words:save:${TODAY}`, label: 'Сохранить' }]);
    const boris = dmPost(BORIS);
    const saved = await discord.pressButton({ customId: `words:save:${TODAY}`, channelId: discord.dmChannelOf(BORIS), user: BORIS, messageId: boris?.id ?? '' }).waitForResponse();
    expect(saved.content).toMatch(/^Saved \*\*/);
    expect((await store.exportMember(BORIS)).savedWords.map((word) => word.date)).toContain(TODAY);

    // Subscribing again without the option turns it off, and says so.
    const off = await subscribeMe(ANNA, {});
    expect(off.content).toContain('Changed: the review count from on to off.');
    expect((await daily.store.get(`dm:${ANNA}`))?.review).toBeUndefined();
  });
});

describe('/wotd-review on Discord', () => {
  it('the meaning, then the next word, replace the same private message', async () => {
    const { discord, save, general } = await world();
    await save(ANNA, '2025-01-14');
    const question = await discord.invokeCommand({ name: 'wotd-review', channelId: general, user: ANNA }).waitForResponse();
    expect(question.ephemeral).toBe(true);
    expect(question.content).toContain('Do you remember what **serendipity** (noun) means?');
    const step = async (customId: string) => {
      const press = discord.pressButton({ customId, channelId: question.channelId, user: ANNA, messageId: question.id });
      const shown = await press.waitForResponse();
      // Discord's UPDATE_MESSAGE (7), or a deferred update (6) then its edit: the clicked message, no new one.
      expect([6, 7]).toContain(press.callback?.type);
      expect(press.followUps).toEqual([]);
      expect(shown.id).toBe(question.id);
      return shown;
    };
    const meaning = await step(`review:show:${ANNA}:2025-01-14`);
    expect(meaning.content).toContain('faculty of finding things');
    const graded = await step(`review:grade:${ANNA}:2025-01-14:good`);
    expect(graded.content).toMatch(/^Next review of \*\*serendipity\*\*: <t:\d+:R>\./);
  });
});
