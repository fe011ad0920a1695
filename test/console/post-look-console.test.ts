import { afterEach, describe, expect, it } from 'vitest';
import { createConsolePoster } from '../../src/console/console-poster.ts';
import { dailyPostRendering } from '../../src/replies/daily-embeds.ts';
import { DailyScheduler } from '../../src/schedule/scheduler.ts';
import { captureLogger } from '../schedule/helpers.ts';
import { startStoreSession } from './store-session.ts';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const setUp = (locale?: string) => startStoreSession(cleanups, { locale });

describe('parts, date style and the intro form at the console', () => {
  it('takes parts and a date style, refuses an unknown part by name, shows them, previews and posts with them', async () => {
    const { store, say, output, lookup, now } = await setUp();
    expect(await say('/wotd-subscribe channel:#words parts:word,ipa,defintion')).toContain(
      '“defintion” is not a part of the post. Choose from word, pos, ipa, definition, date, link, or all; the word is always shown.',
    );
    expect(await store.listAll()).toEqual([]);

    const preview = await say('/wotd-subscribe channel:#words parts:word,definition date-style:long preview:true');
    expect(preview).toContain(', showing word, definition, date style long (27 November 2026)');
    expect(preview).toContain('The word for 2026-06-15.');
    expect(preview).not.toContain('/wɜːd/');

    const saved = await say('/wotd-subscribe channel:#words parts:word,definition,date date-style:long');
    expect(saved).toContain('Subscribed #words');
    expect(await store.get('words')).toMatchObject({ parts: ['definition', 'date'], dateStyle: 'long' });
    const changed = await say('/wotd-subscribe channel:#words parts:all date-style:iso');
    expect(changed).toContain('Changed: the parts shown from word, definition, date to all, the date style from long (27 November 2026) to ISO (2026-11-27).');
    await say('/wotd-subscribe channel:#words parts:ipa date-style:short');
    expect(await say('/wotd-subscriptions')).toContain(', parts word, ipa, date style short (27/11/2026)');
    expect(await say('/wotd-subscribe channel:#words reset:parts,date-style')).toContain(
      'Changed: the parts shown from word, ipa to all, the date style from short (27/11/2026) to the default.',
    );
    await say('/wotd-subscribe channel:#words parts:word,definition,date date-style:long');

    const rendering = dailyPostRendering('https://wotd.site');
    const scheduler = new DailyScheduler({
      store,
      lookup,
      poster: createConsolePoster({ write: (text) => output.push(text), color: false, now }),
      render: rendering.render,
      dateText: rendering.dateText,
      logger: captureLogger().logger,
      concurrency: 2,
      now,
    });
    output.length = 0;
    expect(await scheduler.tick(new Date('2026-06-15T09:00:00Z'))).toMatchObject({ sent: 1 });
    const posted = output.join('');
    expect(posted).toContain('The word for 2026-06-15.');
    expect(posted).toContain('15 June 2026 · Word of the Day from wotd.site');
    expect(posted).not.toContain('/wɜːd/');
  });

  it('answers in the member’s language and takes its words for the parts', async () => {
    const { store, say } = await setUp('de');
    expect(await say('/wotd-subscribe channel:#wörter teile:wort,definitionn')).toContain('„definitionn“ ist kein Teil des Beitrags.');
    expect(await say('/wotd-subscribe channel:#wörter teile:wort,wortart,datum')).toContain(', zeigt wort, wortart, datum');
    expect(await store.get('wörter')).toMatchObject({ parts: ['pos', 'date'] });
  });

  it('edits the intro line through the form: the typed line is checked as the option is, and over-long is refused', async () => {
    const { store, say } = await setUp();
    expect(await say('/wotd-subscribe channel:#words intro-edit:true')).toContain('#words has no daily post yet. Subscribe it with /wotd-subscribe first');
    await say('/wotd-subscribe channel:#words intro:"Hello {word}"');
    expect(await say('/wotd-subscribe channel:#words intro-edit:true time:10:00')).toContain('intro-edit opens a form for the intro line only');

    const prompt = await say('/wotd-subscribe channel:#words intro-edit:true');
    expect(prompt).toContain('Intro line for #words (now: “Hello {word}”).');
    // The next line is the form's text, exactly as typed, quotes and colons and all.
    expect(await say('Today: "{word}" on {date}')).toContain('Changed: the intro line from “Hello {word}” to “Today: "{word}" on {date}”.');
    expect(await store.get('words')).toMatchObject({ intro: 'Today: "{word}" on {date}' });

    await say('/wotd-subscribe channel:#words intro-edit:true');
    expect(await say('Hi {wrod}')).toContain("I don't know the placeholder {wrod}. The intro can use {word}, {date}, {role}.");
    await say('/wotd-subscribe channel:#words intro-edit:true');
    expect(await say('x'.repeat(201))).toContain('The intro line can be at most 200 characters; that one has 201.');
    expect(await store.get('words')).toMatchObject({ intro: 'Today: "{word}" on {date}' });
    // After the form, lines are commands again; an empty line clears the intro.
    await say('/wotd-subscribe channel:#words intro-edit:true');
    expect(await say('')).toContain('Changed: the intro line from “Today: "{word}" on {date}” to none.');
    expect(await store.get('words')).not.toHaveProperty('intro');
  });
});
