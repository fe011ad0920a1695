import { afterEach, describe, expect, it } from 'vitest';
import { olderButtonId, parseOlderButtonId, wotdHistoryCommand } from '../../commands/wotd-history.ts';
import { buttonContext, commandContext } from './recording-context.ts';
import { SITE_URL, startCommandWorld, testEntries, type CommandWorld } from './world.ts';

const ENTRIES = testEntries();
function wordOn(date: string): string {
  const entry = ENTRIES.find((candidate) => candidate.date === date);
  if (!entry) throw new Error(`no test entry on ${date}`);
  return entry.word;
}

let world: CommandWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function current(): Promise<CommandWorld> {
  return (world ??= await startCommandWorld());
}

async function run(options: Record<string, string | number> = {}) {
  const context = commandContext('wotd-history', options);
  await wotdHistoryCommand.execute(context, (await current()).services);
  return context.recorder;
}

async function press(customId: string) {
  const context = buttonContext(customId);
  await wotdHistoryCommand.button?.handle(context, (await current()).services);
  return context.recorder;
}

describe('/wotd-history', () => {
  it('is defined with a date option and a limit of 1 to 8', () => {
    const json = wotdHistoryCommand.data.toJSON();
    expect(json.options).toEqual([
      expect.objectContaining({ name: 'date', type: 3, required: false }),
      expect.objectContaining({ name: 'limit', type: 4, required: false, min_value: 1, max_value: 8 }),
    ]);
    expect(wotdHistoryCommand.button?.prefix).toBe('hist');
  });

  it('lists the three words before today, newest first, in one embed with an Older button carrying its state', async () => {
    const recorder = await run();
    expect(recorder.answer).toEqual({
      embeds: [
        {
          title: 'Recent words of the day',
          url: SITE_URL,
          color: 0x5865f2,
          fields: ['2025-01-19', '2025-01-18', '2025-01-17'].map((date) => ({
            name: `${wordOn(date)} · ${date}`,
            value: `*noun · /${wordOn(date)}/*\nA plain definition of ${wordOn(date)}.`,
          })),
          footer: { text: '2025-01-19 to 2025-01-17 · Word of the Day from wotd.example' },
        },
      ],
      buttons: [{ customId: 'hist:2025-01-17:3', label: 'Older', style: 'secondary' }],
    });
  });

  it('takes a DD-MM-YYYY date and a limit; definitions are short, escaped, labels in italics', async () => {
    const embed = (await run({ date: '16-01-2025', limit: 3 })).answer.embeds?.[0];
    expect(embed?.title).toBe('Words of the day before 16 January 2025');
    expect(embed?.fields?.map((field) => field.name)).toEqual([
      `${wordOn('2025-01-15')} · 2025-01-15`,
      'serendipity · 2025-01-14',
      'mark\\_down · 2025-01-13',
    ]);
    expect(embed?.fields?.[1]?.value).toBe('*noun · /ˌsɛɹ.ənˈdɪp.ɪ.ti/*\n*(historical)* The "happy" faculty of finding things by \\*chance\\*.');
    expect(embed?.fields?.[2]?.value).not.toContain('**bold**');
    const eight = (await run({ date: 'yesterday', limit: 8 })).answer;
    expect(eight.embeds?.[0]?.fields).toHaveLength(8);
    expect(eight.buttons?.[0]?.customId).toBe('hist:2025-01-11:8');
  });

  it('the Older button continues from the oldest entry shown, replacing the message, even in a fresh process', async () => {
    const first = (await run({ limit: 2 })).answer;
    const id = first.buttons?.[0]?.customId ?? '';
    expect(id).toBe('hist:2025-01-18:2');
    // A new adapter and cache, as after a restart: the button's id is all the state there is.
    await world?.close();
    world = await startCommandWorld();
    const recorder = await press(id);
    // The fresh cache asks the service, which may take longer than the defer threshold on a loaded machine.
    expect(recorder.events.map((event) => event.kind).filter((kind) => kind !== 'defer')).toEqual(['update']);
    const older = recorder.answer;
    expect(older.embeds?.[0]?.title).toBe('Words of the day before 18 January 2025');
    expect(older.embeds?.[0]?.fields?.map((field) => field.name)).toEqual([`${wordOn('2025-01-17')} · 2025-01-17`, `${wordOn('2025-01-16')} · 2025-01-16`]);
    expect(older.buttons).toEqual([{ customId: 'hist:2025-01-16:2', label: 'Older', style: 'secondary' }]);
  });

  it('shows no Older button when nothing older exists, and says so when nothing at all is older', async () => {
    const last = (await run({ date: '2024-11-03', limit: 3 })).answer;
    expect(last.embeds?.[0]?.fields?.map((field) => field.name)).toEqual([`${wordOn('2024-11-02')} · 2024-11-02`, 'echo · 2024-11-01']);
    expect(last.buttons).toBeUndefined();
    expect((await run({ date: '2024-11-01' })).answer).toEqual({
      content: 'There are no words of the day before 1 November 2024.',
      ephemeral: true,
    });
    expect((await press('hist:2024-11-01:3')).answer).toEqual({
      content: 'There are no words of the day before 1 November 2024.',
      ephemeral: true,
    });
  });

  it('a button that cannot be served any more says so kindly, without asking the service', async () => {
    const w = await current();
    for (const id of ['hist:', 'hist:yesterday:3', 'hist:2025-02-30:3', 'hist:2025-01-10:9', 'hist:2025-01-10:0', 'hist:2025-03-01:3']) {
      expect((await press(id)).answer, id).toEqual({
        content: 'This button no longer works. Run `/wotd-history` again to see the words of the day.',
        ephemeral: true,
      });
    }
    expect(w.proxy.requests).toBe(0);
  });

  it('refuses future dates and bad limits and dates privately', async () => {
    expect((await run({ date: '2025-01-21' })).answer.content).toMatch(/^The word of the day for 21 January 2025 has not been revealed yet\./);
    expect((await run({ limit: 9 })).answer).toEqual({
      content: 'The limit must be a whole number from 1 to 8; you gave 9.',
      ephemeral: true,
    });
    expect((await run({ date: 'last week' })).answer.content).toMatch(/^“last week” is not a date I can read\./);
    expect(world?.proxy.requests).toBe(0);
  });

  it('defers the update when the service is slow, and a failure after that is a private follow-up', async () => {
    const w = await current();
    w.proxy.delayMs = 600;
    const slow = await press('hist:2024-12-10:2');
    expect(slow.events.map((event) => event.kind)).toEqual(['defer', 'update']);
    expect(slow.answer.embeds?.[0]?.fields).toHaveLength(2);
    await w.service.close();
    const down = await press('hist:2024-11-20:2');
    expect(down.events.map((event) => event.kind)).toEqual(['defer', 'respond']);
    expect(down.answer).toEqual({
      content: 'The Word-of-the-Day service cannot be reached right now. Please try again later.',
      ephemeral: true,
    });
  });

  it('button ids round-trip and stay within Discord’s 100 characters', () => {
    const id = olderButtonId('2025-01-17', 8);
    expect(id.length).toBeLessThanOrEqual(100);
    expect(parseOlderButtonId(id)).toEqual({ before: '2025-01-17', limit: 8 });
    expect(parseOlderButtonId('find:1:x')).toBeNull();
  });
});
