import { afterEach, describe, expect, it } from 'vitest';
import { wotdHistoryCommand } from '../../commands/wotd-history.ts';
import { pageButtonId, parsePageButtonId, wotdFindCommand } from '../../commands/wotd-find.ts';
import { autocompleteContext, buttonContext, commandContext } from './recording-context.ts';
import { RECURRING, SITE_URL, startCommandWorld, testEntries, type CommandWorld } from './world.ts';

let world: CommandWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function current(): Promise<CommandWorld> {
  return (world ??= await startCommandWorld());
}

async function find(word: string) {
  const context = commandContext('wotd-find', { word });
  await wotdFindCommand.execute(context, (await current()).services);
  return context.recorder;
}

async function press(customId: string) {
  const context = buttonContext(customId);
  await wotdFindCommand.button?.handle(context, (await current()).services);
  return context.recorder;
}

/** Fills the cache with the words before a day, as members' earlier lookups would. */
async function warmCache(before: string, limit = 8): Promise<void> {
  const context = commandContext('wotd-history', { date: before, limit });
  await wotdHistoryCommand.execute(context, (await current()).services);
}

describe('/wotd-find', () => {
  it('is defined with a required word of at most 100 characters, with autocomplete', () => {
    expect(wotdFindCommand.data.toJSON().options).toEqual([
      expect.objectContaining({ name: 'word', type: 3, required: true, max_length: 100, autocomplete: true }),
    ]);
  });

  it('lists the one date of a word with its part of speech and short definition', async () => {
    expect((await find('serendipity')).answer).toEqual({
      embeds: [
        {
          title: 'serendipity: word of the day once',
          url: SITE_URL,
          color: 0x5865f2,
          description: '**2025-01-14** · *noun · /ˌsɛɹ.ənˈdɪp.ɪ.ti/* — *(historical)* The "happy" faculty of finding things by \\*chance\\*.',
          footer: { text: 'Word of the Day from wotd.example' },
        },
      ],
    });
  });

  it('pages past ten dates, newest first, with Newer and Older buttons that carry page and word', async () => {
    const first = (await find(RECURRING)).answer;
    const embed = first.embeds?.[0];
    expect(embed?.title).toBe('echo: word of the day 12 times');
    const lines = embed?.description?.split('\n') ?? [];
    expect(lines).toHaveLength(10);
    expect(lines[0]).toBe('**2024-12-26** · *verb · /echo/* — Sense number 12 of the echo.');
    expect(lines[1]).toBe('**2024-12-21** · *noun · /echo/* — Sense number 11 of the echo.');
    expect(embed?.footer?.text).toBe('Page 1 of 2 · Word of the Day from wotd.example');
    expect(first.buttons).toEqual([
      { customId: 'find:0:echo', label: 'Newer', style: 'secondary', disabled: true },
      { customId: 'find:2:echo', label: 'Older', style: 'secondary', disabled: false },
    ]);

    const second = await press('find:2:echo');
    expect(second.events.map((event) => event.kind)).toEqual(['update']);
    expect(second.answer.embeds?.[0]?.description?.split('\n')).toEqual([
      '**2024-11-06** · *verb · /echo/* — Sense number 2 of the echo.',
      '**2024-11-01** · *noun · /echo/* — Sense number 1 of the echo.',
    ]);
    expect(second.answer.embeds?.[0]?.footer?.text).toBe('Page 2 of 2 · Word of the Day from wotd.example');
    expect(second.answer.buttons).toEqual([
      { customId: 'find:1:echo', label: 'Newer', style: 'secondary', disabled: false },
      { customId: 'find:3:echo', label: 'Older', style: 'secondary', disabled: true },
    ]);
    expect((await press('find:1:echo')).answer.embeds?.[0]?.description).toBe(embed?.description);
  });

  it('with no match, answers kindly and offers words from the cache that look alike', async () => {
    await warmCache('2025-01-16');
    const recorder = await find('serendipty');
    expect(recorder.answer).toEqual({
      content:
        '“serendipty” has not been a word of the day, as far as the service knows. ' +
        'Did you mean **serendipity**? The `word` option suggests words as you type.',
      ephemeral: true,
    });
    const nothing = await find('qqqq');
    expect(nothing.answer.content).toBe(
      '“qqqq” has not been a word of the day, as far as the service knows. ' +
        'Check the spelling, or start typing in the `word` option to pick from words I have seen.',
    );
  });

  it('autocomplete offers cached words only and never calls the service', async () => {
    const w = await current();
    const empty = autocompleteContext('wotd-find', { name: 'word', value: 'ser' });
    await wotdFindCommand.autocomplete?.(empty, w.services);
    expect(empty.choices).toEqual([]);
    await warmCache('2025-01-16');
    const requests = w.proxy.requests;
    const context = autocompleteContext('wotd-find', { name: 'word', value: 'ser' });
    await wotdFindCommand.autocomplete?.(context, w.services);
    expect(context.choices).toEqual([{ name: 'serendipity', value: 'serendipity' }]);
    const all = autocompleteContext('wotd-find', { name: 'word', value: '' });
    await wotdFindCommand.autocomplete?.(all, w.services);
    expect(all.choices?.length).toBeGreaterThan(1);
    expect(all.choices?.length).toBeLessThanOrEqual(25);
    expect(w.proxy.requests).toBe(requests);
  });

  it('refuses an empty word, and says when a page button is out of date', async () => {
    expect((await find('   ')).answer).toEqual({
      content: 'Tell me which word to look for, for example `/wotd-find word:serendipity`.',
      ephemeral: true,
    });
    expect((await press('find:7:echo')).answer).toEqual({
      content: 'That page of results is gone: “echo” now has 2 pages. Run `/wotd-find` again.',
      ephemeral: true,
    });
    expect((await press('find:nope')).answer).toEqual({ content: 'This button no longer works. Run `/wotd-find` again.', ephemeral: true });
  });

  it('defers when the service is slow, and reports busy and down specifically', async () => {
    world = await startCommandWorld({ rateLimit: 1 });
    world.proxy.delayMs = 600;
    const slow = await find('serendipity');
    expect(slow.events.map((event) => event.kind)).toEqual(['defer', 'respond']);
    world.proxy.delayMs = 0;
    const busy = await find('candor');
    expect(busy.answer.content).toMatch(/^The Word-of-the-Day service is busy right now\. Please try again <t:\d+:R>\.$/);
    await world.close();
    world = await startCommandWorld();
    await world.service.close();
    expect((await find('candor')).answer.content).toBe('The Word-of-the-Day service cannot be reached right now. Please try again later.');
  });

  it('against deployment A, which reports only the first date, says so and adds the later dates it has seen', async () => {
    world = await startCommandWorld({ variant: 'auto' }, 'A');
    expect((await find(RECURRING)).answer.embeds?.[0]).toMatchObject({
      title: 'echo: first word of the day on 2024-11-01',
      description: '**2024-11-01** · *noun · /echo/* — Sense number 1 of the echo.',
      footer: { text: 'The service reports only the first date a word was chosen. · Word of the Day from wotd.example' },
    });
    // A history page (read ahead a week) puts 2024-12-21 and 2024-12-26 in the cache.
    await warmCache('2024-12-27', 3);
    const embed = (await find('Echo')).answer.embeds?.[0];
    expect(embed?.title).toBe('echo: first word of the day on 2024-11-01');
    expect(embed?.description?.split('\n')).toEqual([
      '**2024-12-26** · *verb · /echo/* — Sense number 12 of the echo.',
      '**2024-12-21** · *noun · /echo/* — Sense number 11 of the echo.',
      '**2024-11-01** · *noun · /echo/* — Sense number 1 of the echo.',
    ]);
    expect(embed?.footer?.text).toBe(
      'The service reports only the first date a word was chosen; later dates are those this bot has seen. · Word of the Day from wotd.example',
    );
  });

  it('against deployment B, finds a capitalised word typed in lower case', async () => {
    const entries = testEntries().map((entry) => (entry.date === '2025-01-10' ? { ...entry, word: 'Sisyphean' } : entry));
    world = await startCommandWorld({ variant: 'auto' }, 'B', entries);
    const answer = (await find('sisyphean')).answer;
    expect(answer.embeds?.[0]?.title).toBe('Sisyphean: word of the day once');
    expect(answer.embeds?.[0]?.description).toContain('**2025-01-10** · *noun · /');
  });

  it('keeps page state within Discord’s 100-character custom ids', () => {
    expect(pageButtonId(2, 'echo')).toBe('find:2:echo');
    expect(parsePageButtonId('find:2:two words: yes')).toEqual({ page: 2, word: 'two words: yes' });
    expect(pageButtonId(2, 'x'.repeat(95))).toBeNull();
    expect(parsePageButtonId('find:0:echo')).toBeNull();
  });
});
