import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { wotdCommand } from '../../commands/wotd.ts';
import { wotdHistoryCommand } from '../../commands/wotd-history.ts';
import { wotdLeaderboardCommand } from '../../commands/wotd-leaderboard.ts';
import { wotdQuizCommand } from '../../commands/wotd-quiz.ts';
import { wotdReviewCommand } from '../../commands/wotd-review.ts';
import { wotdStreakCommand } from '../../commands/wotd-streak.ts';
import { wotdWordsCommand } from '../../commands/wotd-words.ts';
import { LearningService } from '../../src/learning/learning-service.ts';
import { openLearningStore } from '../../src/learning/open-learning-store.ts';
import { wordListOf } from '../../src/learning/word-list.ts';
import type { BotServices, ButtonSpec, Invoker, OutgoingMessage, SlashCommand } from '../../src/replies/interactions.ts';
import { buttonContext, commandContext, textOf } from '../commands/recording-context.ts';
import { startCommandWorld, type CommandWorld } from '../commands/world.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface World {
  world: CommandWorld;
  services: BotServices & { learning: LearningService };
  clock: { now: number };
}

async function start(): Promise<World> {
  const world = await startCommandWorld();
  cleanups.push(() => world.close());
  const dir = mkdtempSync(join(tmpdir(), 'wotd-learning-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const store = await openLearningStore({ url: `sqlite://${join(dir, 'store.sqlite')}` });
  cleanups.push(() => store.close());
  const clock = { now: Date.parse('2025-01-20T12:00:00Z') };
  const learning = new LearningService(store, wordListOf(world.adapter), { now: () => clock.now, fuzz: false });
  return { world, services: { ...world.services, learning }, clock };
}

const MEMBER: Invoker = { userId: '100', guildId: '200', channelId: '300', canManageChannels: false, locale: 'en-US' };

async function run(command: SlashCommand, services: BotServices, options: Record<string, string | number> = {}, invoker: Invoker = MEMBER) {
  const context = Object.assign(commandContext(command.data.name, options), { invoker });
  await command.execute(context, services);
  return context.recorder.answer;
}

async function press(command: SlashCommand, services: BotServices, customId: string, invoker: Invoker = MEMBER, messageId = 'm1') {
  return (await pressed(command, services, customId, invoker, messageId)).answer;
}

/** A press's answer and how it came: a new message (respond) or the button's own message replaced (update). */
async function pressed(command: SlashCommand, services: BotServices, customId: string, invoker: Invoker = MEMBER, messageId = 'm1') {
  const context = Object.assign(buttonContext(customId), { invoker, messageId });
  await command.button?.handle(context, services);
  const answer = context.recorder.answer;
  const kinds = context.recorder.events.map((event) => event.kind).filter((kind) => kind !== 'defer');
  return { answer, kind: kinds[0] };
}

function button(message: OutgoingMessage, label: string | RegExp): ButtonSpec {
  const found = message.buttons?.find((candidate) => (typeof label === 'string' ? candidate.label === label : label.test(candidate.label)));
  if (!found) throw new Error(`no button ${String(label)} in ${JSON.stringify(message.buttons)}`);
  return found;
}

describe('saved words', () => {
  it('saves from /wotd and the history, lists newest first with Remove, and removes', async () => {
    const { services, clock } = await start();
    const shown = await run(wotdCommand, services, { date: '2025-01-14' });
    const save = button(shown, 'Save');
    expect(save.customId).toBe('words:save:2025-01-14');
    expect((await press(wotdWordsCommand, services, save.customId)).content).toContain('Saved **serendipity**');
    expect((await press(wotdWordsCommand, services, save.customId)).content).toContain('already in your words');
    const history = await run(wotdHistoryCommand, services, { date: '2025-01-10', limit: 3 });
    const saveOlder = button(history, /^Save: /);
    clock.now += 1_000;
    await press(wotdWordsCommand, services, saveOlder.customId);
    const list = await run(wotdWordsCommand, services);
    expect(list.ephemeral).toBe(true);
    expect(textOf(list)).toMatch(/Page 1 of 1 · 2 words/);
    expect(textOf(list).indexOf(saveOlder.label.slice('Save: '.length))).toBeLessThan(textOf(list).indexOf('serendipity'));
    const removed = await press(wotdWordsCommand, services, button(list, 'Remove: serendipity').customId);
    expect(removed.content).toBe('Removed **serendipity** from your words.');
    expect(textOf(removed)).toMatch(/1 word$/m);
    // Another member's list is their own.
    expect((await run(wotdWordsCommand, services, {}, { ...MEMBER, userId: '101' })).content).toContain('no saved words yet');
  });

  it('pages five words at a time, in the member’s language', async () => {
    const { services, clock } = await start();
    for (let day = 1; day <= 12; day += 1) {
      clock.now += 1_000;
      await press(wotdWordsCommand, services, `words:save:2025-01-${String(day).padStart(2, '0')}`);
    }
    const first = await run(wotdWordsCommand, services, {}, { ...MEMBER, locale: 'de' });
    expect(first.embeds?.[0]?.footer?.text).toBe('Seite 1 von 3 · 12 Wörter');
    expect(first.buttons?.filter((candidate) => candidate.style === 'danger')).toHaveLength(5);
    const last = await press(wotdWordsCommand, services, button(first, 'Ältere').customId, { ...MEMBER, locale: 'de' });
    expect(last.embeds?.[0]?.footer?.text).toBe('Seite 2 von 3 · 12 Wörter');
    expect((await run(wotdWordsCommand, services, { page: 99 })).embeds?.[0]?.footer?.text).toBe('Page 3 of 3 · 12 words');
  });
});

describe('spaced review', () => {
  it('asks the word first, reveals the meaning, and schedules the next review with FSRS', async () => {
    const { services, clock } = await start();
    expect((await run(wotdReviewCommand, services)).content).toContain('Nothing is due');
    await press(wotdWordsCommand, services, 'words:save:2025-01-14');
    clock.now += 1_000;
    const question = await run(wotdReviewCommand, services);
    expect(question.content).toContain('Do you remember what **serendipity** (noun) means?');
    expect(question.content).not.toContain('faculty');
    const reveal = button(question, 'Show the meaning').customId;
    expect(reveal).toBe(`review:show:${MEMBER.userId}:2025-01-14`);
    // Another member pressing it (a forged or copied id) is told so, and nothing of either list is shown or changed.
    const other = await pressed(wotdReviewCommand, services, reveal, { ...MEMBER, userId: '101' });
    expect(other).toMatchObject({ kind: 'respond', answer: { ephemeral: true, content: 'This button belongs to someone else.' } });
    // The meaning and the grades replace the question in the same private message, as does the grade's outcome.
    const { answer, kind } = await pressed(wotdReviewCommand, services, reveal);
    expect(kind).toBe('update');
    expect(answer.content).toContain('faculty of finding things');
    expect(answer.buttons?.map((candidate) => candidate.label)).toEqual(['Again', 'Hard', 'Good', 'Easy']);
    const good = button(answer, 'Good').customId;
    expect((await pressed(wotdReviewCommand, services, good, { ...MEMBER, userId: '101' })).answer.content).toBe('This button belongs to someone else.');
    expect(JSON.parse((await services.learning.store.getWord(MEMBER.userId, '2025-01-14'))?.card ?? 'null')).toBeNull();
    const { answer: graded, kind: gradedKind } = await pressed(wotdReviewCommand, services, good);
    expect(gradedKind).toBe('update');
    expect(graded.content).toMatch(/Next review of \*\*serendipity\*\*: <t:\d+:R>\./);
    expect(graded.content).toContain('Nothing is due');
    const stored = await services.learning.store.getWord(MEMBER.userId, '2025-01-14');
    expect(stored?.due).toBeGreaterThan(clock.now);
    expect(JSON.parse(stored?.card ?? '{}')).toMatchObject({ reps: 1 });
    // A forged grade for a word the member never saved changes nothing.
    expect((await press(wotdReviewCommand, services, `review:grade:${MEMBER.userId}:2025-01-02:easy`)).content).toContain('no longer in your list');
  });
});

describe('/wotd-quiz', () => {
  it('offers four different meanings, the real one among them, in the same order for a channel and day', async () => {
    const { services } = await start();
    const quiz = await run(wotdQuizCommand, services, { date: '2025-01-14' });
    expect(quiz.ephemeral).toBe(true);
    const description = quiz.embeds?.[0]?.description ?? '';
    const choices = description.split('\n\n').filter((line) => /^\*\*[A-D]\.\*\*/.test(line));
    expect(choices).toHaveLength(4);
    expect(new Set(choices.map((line) => line.slice(7))).size).toBe(4);
    expect(description).toContain('faculty of finding things');
    expect(await run(wotdQuizCommand, services, { date: '2025-01-14' })).toEqual(quiz);
    const right = quiz.buttons?.find((candidate) => candidate.customId.endsWith(':2025-01-14:2025-01-14'));
    const wrong = quiz.buttons?.find((candidate) => candidate !== right);
    expect((await press(wotdQuizCommand, services, right?.customId ?? '')).content).toMatch(/^Right! \*\*serendipity\*\*/);
    expect((await press(wotdQuizCommand, services, wrong?.customId ?? '')).content).toMatch(/^Not quite\. \*\*serendipity\*\* means:/);
  });
});

describe('daily quiz answers, streaks and the leaderboard', () => {
  it('takes one answer per member from the quiz’s own message only, and shows streaks and ranks without pings', async () => {
    const { services } = await start();
    const quiz = await services.learning.quiz((await services.lookup.getEntry('2025-01-20')).value, '300:2025-01-20', 'interactive');
    await services.learning.store.registerQuiz({
      channelId: '300', day: '2025-01-20', guildId: '200', messageId: 'post-1', entryDate: '2025-01-20', correct: quiz.correct, closesAt: Date.parse('2025-01-21T00:00:00Z'), language: null,
    });
    const rightId = `quiz:day:2025-01-20:${quiz.correct}`;
    const wrongId = `quiz:day:2025-01-20:${(quiz.correct + 1) % 4}`;
    // A button copied onto another message, or pressed in another channel, is no quiz.
    expect((await press(wotdQuizCommand, services, rightId, MEMBER, 'another-message')).content).toContain('no longer running');
    expect((await press(wotdQuizCommand, services, rightId, { ...MEMBER, channelId: '301' }, 'post-1')).content).toContain('no longer running');
    expect((await press(wotdQuizCommand, services, rightId, MEMBER, 'post-1')).content).toMatch(/^Right! .*\n\nYour streak in this server: 1 day\.$/s);
    expect((await press(wotdQuizCommand, services, wrongId, MEMBER, 'post-1')).content).toBe('You already answered this quiz, and you were right.');
    expect((await press(wotdQuizCommand, services, wrongId, { ...MEMBER, userId: '101' }, 'post-1')).content).toMatch(/^Not quite\./);
    expect(await services.learning.store.getQuiz('300', '2025-01-20')).toMatchObject({ answered: 2, right: 1 });
    expect((await run(wotdStreakCommand, services)).content).toBe('Your streak here: **1 day** (best: 1) · 1 right answer in all.');
    expect((await run(wotdStreakCommand, services, {}, { ...MEMBER, userId: '101' })).content).toContain('no streak in this server yet');
    const board = await run(wotdLeaderboardCommand, services, {}, { ...MEMBER, userId: '101' });
    expect(board.embeds?.[0]?.description).toBe('1. <@100> · streak 1 · 1 right\n\nYou are not on the board yet.');
    expect(board.mentionRoleIds).toBeUndefined();
    expect((await run(wotdStreakCommand, services, {}, { ...MEMBER, guildId: null })).content).toContain('per server');
  });
});
