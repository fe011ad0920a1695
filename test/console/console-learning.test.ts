import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openLearningStore } from '../../src/learning/open-learning-store.ts';
import { writeWordDb } from '../../src/service/word-db.ts';
import { addDays, utcDateOf } from '../../src/wotd/dates.ts';
import type { Entry } from '../../src/wotd/entry.ts';
import { testEntries } from '../commands/world.ts';
import { expectCleanExit, expectInOrder, runConsole, startBot } from './console-process.ts';

/**
 * The learning loop at `wotd-bot console`, the real process: buttons pressed with `press` go through the same
 * handlers as on Discord, as the console's member (a server admin in its server), on replies and daily posts alike.
 */

let dir: string;
/**
 * The day the words are written around (the daily post's day is read from the post itself: a run that crosses 00:00
 * UTC posts the next day's word, which is written too).
 */
const today = utcDateOf(new Date());
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wotd-console-learning-'));
  // The test words end on 2025-01-20; the daily post needs today's (and the quiz the days before it).
  const entries: Entry[] = testEntries();
  for (let date = addDays(entries.at(-1)?.date ?? today, 1), index = 0; date <= addDays(today, 1); date = addDays(date, 1), index += 1) {
    entries.push({ date, word: `later${index}`, pos: 'noun', ipa: `/later${index}/`, definition: `A later definition, number ${index}.` });
  }
  await writeWordDb(join(dir, 'words.sqlite'), entries);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

// Lookups from the service alone: nothing to wait for, and the quiz's other meanings come from the days before.
const ENV = { WOTD_MIRROR: 'off' };

describe('wotd-bot console: the learning loop with press', () => {
  it('saves from /wotd and /wotd-find, lists and removes with /wotd-words, reviews and grades, and answers /wotd-quiz', async () => {
    const result = await runConsole(
      dir,
      [
        '/wotd date:2025-01-14',
        'press Save',
        '/wotd-history date:2025-01-14 limit:2',
        'press Save: mark_down',
        '/wotd-find word:serendipity',
        'press Save: serendipity',
        '/wotd-words',
        'press Remove: mark_down',
        '/wotd-review',
        'press Show the meaning',
        'press Good',
        '/wotd-quiz date:2025-01-14',
        'press 3',
      ],
      ENV,
    );
    expectCleanExit(result);
    expectInOrder(result.stdout, [
      'message #1: [1: Save]',
      'Pressed Save on message #1 (/wotd date:2025-01-14).\n(only you can see this)\nSaved serendipity to your words (/wotd-words).',
      'message #2: [1: Older]  [2: Save: mark_down]  [3: Save: abide3]',
      'Pressed Save: mark_down on message #2 (/wotd-history date:2025-01-14 limit:2).\n(only you can see this)\nSaved mark_down to your words',
      'Pressed Save: serendipity on message #3 (/wotd-find word:serendipity).\n(only you can see this)\nserendipity is already in your words.',
      '│ Your saved words',
      '│ mark_down · noun · 2025-01-13 · review ',
      '│ serendipity · noun · 2025-01-14 · review ',
      'message #4: [1: Newer (disabled)]  [2: Older (disabled)]  [3: Remove: mark_down]  [4: Remove: serendipity]',
      'Pressed Remove: mark_down on message #4 (/wotd-words).\n(message #4 is updated)\n(only you can see this)\nRemoved mark_down from your words.',
      'message #4: [1: Newer (disabled)]  [2: Older (disabled)]  [3: Remove: serendipity]',
      '(only you can see this)\nDo you remember what serendipity (noun) means?\n\n-# 1 word due\nmessage #5: [1: Show the meaning]',
      // The meaning and the grades replace the question in place, as on Discord; the grade's outcome replaces them.
      'Pressed Show the meaning on message #5 (/wotd-review).\n(message #5 is updated)\n(only you can see this)\nserendipity (noun): (historical) The "happy" faculty',
      'message #5: [1: Again]  [2: Hard]  [3: Good]  [4: Easy]',
      'Pressed Good on message #5 (/wotd-review).\n(message #5 is updated)\n(only you can see this)\nNext review of serendipity: in 10 minutes.',
      'Nothing is due for review right now.',
      'message #6: [1: A]  [2: B]  [3: C]  [4: D]',
      'Pressed C on message #6 (/wotd-quiz date:2025-01-14).\n(message #6 is updated)\n',
    ]);
    // The private quiz's verdict replaces it: right or wrong, with the real definition.
    expect(result.stdout).toMatch(/\(message #6 is updated\)\n(?:Right! serendipity: |Not quite\. serendipity means: )\(historical\) The "happy"/);
    expect(result.stdout).not.toContain('(no reply)');
  });

  it('a daily quiz posted to a console channel is answered with press, once; the DM with review:true says how many words are due', async () => {
    const setup = await runConsole(
      dir,
      ['/wotd date:2025-01-14', 'press Save', '/wotd-subscribe channel:#words time:00:00 quiz:true', '/wotd-subscribe-me time:00:00 review:true'],
      ENV,
    );
    expectCleanExit(setup);
    expect(setup.stdout).toContain('Subscribed #words: the word of the day every day at 00:00 (UTC), as a daily quiz.');
    expect(setup.stdout).toContain("I'll DM you the word of the day every day at 00:00 (UTC), with how many of your saved words are due for review.");

    // Started again, the scheduler's first pass posts today's quiz and DM: both times have passed.
    const { child, run, exited } = startBot(dir, ENV);
    const printed = (text: string) =>
      vi.waitFor(() => expect(run.stdout).toContain(text), { timeout: 30_000, interval: 50 });
    await printed('Daily word in #words:');
    await printed('Daily word in your DMs:');
    expect(run.stdout).toMatch(/Daily word in #words:\n│ What does “later\d+” mean\?/);
    // The post's own day, from its footer: the service day when the scheduler posted it.
    const day = /Daily word in #words:\n[^]*?(\d{4}-\d{2}-\d{2}) · /.exec(run.stdout)?.[1] ?? 'none';
    expect([today, addDays(today, 1)]).toContain(day);
    // Save under the four answers, and alone under the DM's word; the two posts are numbered in the order printed.
    const quiz = /message #(\d+): \[1: A\]  \[2: B\]  \[3: C\]  \[4: D\]  \[5: Save\]/.exec(run.stdout)?.[1];
    const dm = /Daily word in your DMs:\n1 word to review — \/wotd-review\n│ later\d+[^]*?message #(\d+): \[1: Save\]/.exec(run.stdout)?.[1];
    expect([quiz, dm].sort()).toEqual(['1', '2']);
    child.stdin.write(`press #${quiz} A\n`);
    await printed(`Pressed A on message #${quiz} (daily post in #words).\n(only you can see this)\n`);
    child.stdin.write(`press #${quiz} D\n`);
    await printed(`Pressed D on message #${quiz} (daily post in #words).\n(only you can see this)\nYou already answered this quiz`);
    // Save on the quiz post saves the day's word; the DM's Save, for the same day, finds it saved.
    child.stdin.write(`press #${quiz} Save\n`);
    await printed(`Pressed Save on message #${quiz} (daily post in #words).\n(only you can see this)\nSaved later`);
    child.stdin.write(`press #${dm} Save\n`);
    await printed(`Pressed Save on message #${dm} (daily post in your DMs).\n(only you can see this)\nlater`);
    child.stdin.end('help\n');
    const ended = await exited;
    expectCleanExit(ended);
    // The first answer's verdict, with the real definition and, when right, the streak in the console's server.
    expect(ended.stdout).toMatch(
      /\(daily post in #words\)\.\n\(only you can see this\)\n(?:Right! later\d+: A later definition, number \d+\.\n\nYour streak in this server: 1 day\.|Not quite\. later\d+ means: A later definition)/,
    );
    expect(ended.stdout).toContain('Daily posts printed here have buttons too');
    // One answer stored, for the console's member, on that post.
    const store = await openLearningStore({ url: `sqlite://${join(dir, 'store.sqlite')}` });
    try {
      expect(await store.getQuiz('words', day)).toMatchObject({ guildId: 'console', messageId: expect.stringMatching(/^console-[12]$/), answered: 1, closed: false });
      expect((await store.exportMember('console')).answers).toMatchObject([{ channelId: 'words', day, choice: 0 }]);
      expect((await store.exportMember('console')).savedWords.map((word) => word.date)).toEqual(expect.arrayContaining(['2025-01-14', day]));
    } finally {
      await store.close();
    }
  });
});
