import { afterEach, describe, expect, it } from 'vitest';
import { createConsolePoster } from '../../src/console/console-poster.ts';
import { dailyPostEmbed } from '../../src/replies/daily-embeds.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { startStoreSession } from '../console/store-session.ts';
import { captureLogger } from './helpers.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('daily posts in the console transport', () => {
  it('a subscription made at the console posts there at its time, once, and is listed with its status', async () => {
    let now = new Date('2026-06-15T07:00:00Z');
    const clock = () => now;
    const { store, session, output, lookup } = await startStoreSession(cleanups, { now: clock });
    const write = (text: string) => output.push(text);

    await session.handleLine('/wotd-subscribe channel:#words time:09:30 timezone:europe/london role:@readers style:compact preview:true');
    const preview = output.join('');
    expect(preview).toContain(
      "Preview of the daily post in #words: the word of the day every day at 09:30 (Europe/London), compact (word, IPA and a one-line definition), mentioning @readers, with today's word",
    );
    expect(preview).toContain('Nothing is saved');
    expect(preview).toContain('@readers');
    expect(preview).toContain('│ /wɜːd/ — The word for 2026-06-15.');
    expect(await store.listAll()).toEqual([]);

    output.length = 0;
    // Console channels are text channels: nothing to publish to.
    await session.handleLine('/wotd-subscribe channel:#words publish:true');
    expect(output.join('')).toContain('Only announcement channels can publish posts to other servers, and #words is not one.');
    expect(await store.listAll()).toEqual([]);

    output.length = 0;
    await session.handleLine('/wotd-subscribe channel:#words time:09:30 timezone:europe/london role:@readers style:compact thread:true');
    expect(output.join('')).toContain(
      'Subscribed #words: the word of the day every day at 09:30 (Europe/London), compact (word, IPA and a one-line definition), mentioning @readers, with a thread on each post.',
    );

    const scheduler = new DailyScheduler({
      store,
      lookup,
      poster: createConsolePoster({ write, color: false, now: clock }),
      render: (entry, style) => dailyPostEmbed(entry, style, { siteUrl: 'https://wotd.site' }),
      logger: captureLogger().logger,
      concurrency: 2,
      now: clock,
    });
    output.length = 0;
    expect((await scheduler.tick(new Date('2026-06-15T08:29:00Z'))).total).toBe(0);
    now = new Date('2026-06-15T08:30:00Z');
    expect(await scheduler.tick(now)).toMatchObject({ sent: 1 });
    const posted = output.join('');
    expect(posted).toContain('Daily word in #words:');
    expect(posted).toContain('@readers');
    expect(posted).toContain('word-2026-06-15');
    // The compact style: the IPA and the definition on one line, no part of speech.
    expect(posted).toContain('│ /wɜːd/ — The word for 2026-06-15.');
    expect(posted).not.toContain('noun');
    expect(posted).toContain('(a thread “');
    expect((await scheduler.tick(new Date('2026-06-15T08:31:00Z'))).total).toBe(0);

    output.length = 0;
    await session.handleLine('/wotd-subscriptions');
    const listed = output.join('');
    expect(listed).toContain('#words — every day, 09:30 Europe/London, compact style, mentions @readers, thread on each post');
    expect(listed).toContain('active; next post');

    output.length = 0;
    await session.handleLine('/wotd-unsubscribe channel:#words');
    expect(output.join('')).toContain('Unsubscribed #words');

    // The console's member can have the word in "their DMs" too: printed under that heading.
    output.length = 0;
    await session.handleLine('/wotd-subscribe-me time:10:00');
    expect(output.join('')).toContain("Subscribed: I'll DM you the word of the day every day at 10:00 (UTC).");
    output.length = 0;
    now = new Date('2026-06-15T10:00:00Z');
    expect(await scheduler.tick(now)).toMatchObject({ sent: 1 });
    expect(output.join('')).toContain('Daily word in your DMs:');
  });
});
