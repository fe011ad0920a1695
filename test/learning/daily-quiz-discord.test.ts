import { PermissionFlagsBits } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { dailyPostEditor } from '../../src/discord/daily-post-edit.ts';
import { startQuizCloseJob } from '../../src/learning/quiz-close-job.ts';
import { quizPoster } from '../../src/learning/quiz-poster.ts';
import { quizRendering } from '../../src/replies/learning-replies.ts';
import type { DataExport } from '../../src/schedule/privacy.ts';
import { SITE_URL } from '../commands/world.ts';
import { startLearningBotWorld, tickOnlyScheduler } from './learning-bot-world.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ADMIN = '500000000000000001';
const ALICE = '500000000000000002';
const BOB = '500000000000000003';
const DAY = '2025-01-20';

interface ShownEmbed {
  title?: string;
  description?: string;
}
interface ShownButton {
  custom_id?: string;
  disabled?: boolean;
}
const embedOf = (message: { embeds: unknown[] } | undefined): ShownEmbed => (message?.embeds[0] ?? {}) as ShownEmbed;
const buttonsOf = (message: { components: unknown[] } | undefined): ShownButton[] =>
  (message?.components ?? []).flatMap((row) => ((row as { components?: ShownButton[] }).components ?? []));

async function world() {
  const rendering = quizRendering(SITE_URL);
  const { discord, guild, words, daily, clock, store, logger, bot } = await startLearningBotWorld(cleanups, {
    guild: {
      name: 'Words',
      roles: [{ name: 'admins', permissions: PermissionFlagsBits.ManageGuild | PermissionFlagsBits.ManageChannels }],
      members: [
        { id: ADMIN, username: 'admin', roles: ['admins'] },
        { id: ALICE, username: 'alice' },
        { id: BOB, username: 'bob' },
      ],
      channels: [{ name: 'general' }, { name: 'daily' }],
    },
    now: new Date(`${DAY}T07:00:00Z`),
    quiz: true,
    decorate: (inner, parts) =>
      quizPoster(inner, { learning: parts.learning, lookup: parts.words.adapter, rendering, logger: parts.logger, subscriptionOf: (id) => parts.daily.store.get(id) }),
  });
  const closing = startQuizCloseJob({ store, poster: { edit: dailyPostEditor(bot.client.rest) }, lookup: words.adapter, rendering, logger, now: () => clock.now.getTime(), everyMs: 3_600_000 });
  cleanups.push(() => closing.stop());
  const general = guild.channelId('general');
  const invoke = (name: string, user: string, options: Record<string, string | boolean> = {}, subcommand?: string) =>
    discord.invokeCommand({ name, options, channelId: general, user, ...(subcommand ? { subcommand } : {}) });
  return { discord, guild, daily, clock, store, closing, invoke, channel: guild.channelId('daily') };
}

describe('the daily quiz on Discord', () => {
  it('posts the quiz, takes one private answer per member, reveals once when it closes, and counts streaks', async () => {
    const { discord, guild, daily, clock, store, closing, invoke, channel } = await world();
    const subscribed = await invoke('wotd-subscribe', ADMIN, { channel, time: '06:00', quiz: true }).waitForResponse();
    expect(subscribed.content).toContain('as a daily quiz');
    const scheduler = tickOnlyScheduler(daily);
    expect(await scheduler.tick(clock.now)).toMatchObject({ sent: 1 });
    const [post] = discord.messagesIn(channel);
    if (!post) throw new Error('no post');
    const embed = embedOf(post);
    expect(embed.title).toMatch(/^What does “.+” mean\?$/);
    expect(embed.description?.match(/\*\*[A-D]\.\*\*/g)).toHaveLength(4);
    const ids = buttonsOf(post).map((button) => button.custom_id);
    const save = `words:save:${DAY}`;
    expect(ids).toEqual([...[0, 1, 2, 3].map((index) => `quiz:day:${DAY}:${index}`), save]);
    // Save has a row of its own under the four answers.
    expect(post.components.map((row) => (row as { components: unknown[] }).components.length)).toEqual([4, 1]);
    const quiz = await store.getQuiz(channel, DAY);
    expect(quiz).toMatchObject({ messageId: post.id, closed: false, closesAt: Date.parse('2025-01-21T00:00:00Z') });
    const right = `quiz:day:${DAY}:${quiz?.correct}`;
    const wrong = `quiz:day:${DAY}:${((quiz?.correct ?? 0) + 1) % 4}`;

    const alice = await discord.pressButton({ customId: right, channelId: channel, user: ALICE, messageId: post.id }).waitForResponse();
    expect(alice.ephemeral).toBe(true);
    expect(alice.content).toMatch(/^Right! /);
    expect(alice.content).toContain('Your streak in this server: 1 day.');
    const again = await discord.pressButton({ customId: wrong, channelId: channel, user: ALICE, messageId: post.id }).waitForResponse();
    expect(again.content).toBe('You already answered this quiz, and you were right.');
    // Bob presses two buttons at once: one answer counts.
    const [first, second] = await Promise.all([
      discord.pressButton({ customId: wrong, channelId: channel, user: BOB, messageId: post.id }).waitForResponse(),
      discord.pressButton({ customId: right, channelId: channel, user: BOB, messageId: post.id }).waitForResponse(),
    ]);
    expect([first.content, second.content].filter((text) => /already answered/.test(text ?? ''))).toHaveLength(1);
    expect(await store.getQuiz(channel, DAY)).toMatchObject({ answered: 2 });
    // Save on the post saves the day's word to the presser's own list, as /wotd's does, and answers nothing.
    const saved = await discord.pressButton({ customId: save, channelId: channel, user: ALICE, messageId: post.id }).waitForResponse();
    expect(saved.ephemeral).toBe(true);
    expect(saved.content).toMatch(/^Saved \*\*.+\*\* to your words/);
    expect((await store.exportMember(ALICE)).savedWords).toMatchObject([{ date: DAY }]);
    expect((await store.exportMember(BOB)).savedWords).toEqual([]);
    expect(await store.getQuiz(channel, DAY)).toMatchObject({ answered: 2 });

    // Closing: the post is edited once to reveal the answer and the counts, its buttons disabled. A press in the
    // moment between the close and the edit (the buttons still enabled) is told it does not count, with the word.
    clock.now = new Date('2025-01-21T00:00:30Z');
    expect(await store.closeQuiz(channel, DAY)).toBe(true);
    const tooLate = await discord.pressButton({ customId: right, channelId: channel, user: ADMIN, messageId: post.id }).waitForResponse();
    expect(tooLate.ephemeral).toBe(true);
    expect(tooLate.content).toMatch(/^This quiz has closed, so this answer doesn't count\. \*\*.+\*\* means: /);
    expect(await store.getQuiz(channel, DAY)).toMatchObject({ answered: 2 });
    expect(await closing.pass()).toBe(1);
    expect(await closing.pass()).toBe(0);
    const [revealed] = discord.messagesIn(channel);
    expect(embedOf(revealed).description).toMatch(/Answer: \*\*[A-D]\.\*\* /);
    expect(embedOf(revealed).description).toMatch(/2 members answered, [12] right\./);
    const disabled = buttonsOf(revealed).map((button) => button.disabled);
    expect(disabled).toEqual([true, true, true, true, false]);
    // The reveal keeps Save, and it still saves.
    expect(buttonsOf(revealed).at(-1)?.custom_id).toBe(save);
    const later = await discord.pressButton({ customId: save, channelId: channel, user: BOB, messageId: post.id }).waitForResponse();
    expect(later.content).toMatch(/^Saved \*\*/);
    expect(discord.requests.filter((request) => (request.route ?? '').startsWith('PATCH /channels/') && request.path.includes(post.id))).toHaveLength(1);

    expect((await invoke('wotd-streak', ALICE).waitForResponse()).content).toBe('Your streak here: **1 day** (best: 1) · 1 right answer in all.');
    const board = await invoke('wotd-leaderboard', BOB).waitForResponse();
    expect(board.ephemeral).toBe(true);
    expect(embedOf(board).description).toContain(`1. <@${ALICE}> · streak 1`);
    const exported = await invoke('wotd-data', ALICE, {}, 'export').waitForResponse();
    const data = JSON.parse(exported.files[0]?.text ?? '{}') as DataExport & { learning: { answers: unknown[]; streaks: unknown[] } };
    expect(data.learning.answers).toHaveLength(1);
    expect(data.learning.streaks).toHaveLength(1);
    // forget erases it all: the answer, the streak, the place on the board.
    const ask = await invoke('wotd-data', ALICE, {}, 'forget').waitForResponse();
    await discord.pressButton({ customId: `data:forget:me:${ALICE}:-`, channelId: ask.channelId, user: ALICE, messageId: ask.id }).waitForResponse();
    expect(await store.exportMember(ALICE)).toEqual({ savedWords: [], answers: [], streaks: [] });
    expect(await store.rankOf(guild.id, ALICE)).toBeNull();
  });

  it('answers clearly once the channel’s subscription is gone, and refuses a button on another message', async () => {
    const { discord, daily, clock, store, invoke, channel } = await world();
    await invoke('wotd-subscribe', ADMIN, { channel, time: '06:00', quiz: true }).waitForResponse();
    const scheduler = tickOnlyScheduler(daily);
    await scheduler.tick(clock.now);
    const [post] = discord.messagesIn(channel);
    if (!post) throw new Error('no post');
    // Bob's press reads the subscription (kept a few seconds, see KeptChannelSettings); the removal forgets it at once.
    const early = await discord.pressButton({ customId: `quiz:day:${DAY}:0`, channelId: channel, user: BOB, messageId: post.id }).waitForResponse();
    expect(early.content).not.toMatch(/no longer running/);
    await invoke('wotd-unsubscribe', ADMIN, { channel }).waitForResponse();
    const late = await discord.pressButton({ customId: `quiz:day:${DAY}:0`, channelId: channel, user: ALICE, messageId: post.id }).waitForResponse();
    expect(late.content).toBe('This quiz is no longer running: its post or its channel\'s subscription is gone.');
    expect(await store.getQuiz(channel, DAY)).toMatchObject({ answered: 1 });
  });
});
