import { afterEach, describe, expect, it } from 'vitest';
import { wotdCommand } from '../../commands/wotd.ts';
import { commandContext, textOf } from './recording-context.ts';
import { SITE_URL, startCommandWorld, type CommandWorld } from './world.ts';

let world: CommandWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function run(options: Record<string, string> = {}, current?: CommandWorld) {
  const target = current ?? (world ??= await startCommandWorld());
  const context = commandContext('wotd', options);
  await wotdCommand.execute(context, target.services);
  return context.recorder;
}

describe('/wotd', () => {
  it('is defined with an optional date option of bounded length', () => {
    const json = wotdCommand.data.toJSON();
    expect(json.name).toBe('wotd');
    expect(json.options).toEqual([expect.objectContaining({ name: 'date', type: 3, required: false, max_length: 32 })]);
  });

  it('shows the entry embed for a YYYY-MM-DD date: title linked, pos and IPA, label in italics, footer with date and credit', async () => {
    const recorder = await run({ date: '2025-01-14' });
    expect(recorder.answer).toEqual({
      embeds: [
        {
          title: 'serendipity',
          url: SITE_URL,
          description: '**noun** · /ˌsɛɹ.ənˈdɪp.ɪ.ti/\n\n*(historical)* The "happy" faculty of finding things by \\*chance\\*.',
          color: 0x5865f2,
          footer: { text: '2025-01-14 · Word of the Day from wotd.example' },
        },
      ],
    });
  });

  it('reads DD-MM-YYYY, today, yesterday and no date at all (today is the service’s UTC day)', async () => {
    world = await startCommandWorld();
    const titleOf = async (options: Record<string, string>) => (await run(options)).answer.embeds?.[0]?.footer?.text.slice(0, 10);
    expect(await titleOf({ date: '14-01-2025' })).toBe('2025-01-14');
    expect(await titleOf({ date: ' Today ' })).toBe('2025-01-20');
    expect(await titleOf({ date: 'yesterday' })).toBe('2025-01-19');
    expect(await titleOf({})).toBe('2025-01-20');
  });

  it('says a future day is not revealed yet, and when it will be, privately and without asking the service', async () => {
    world = await startCommandWorld();
    const recorder = await run({ date: '2025-01-21' });
    const reveal = Date.UTC(2025, 0, 21) / 1000;
    expect(recorder.answer).toEqual({
      content: `The word of the day for 21 January 2025 has not been revealed yet. It will be <t:${reveal}:R> (<t:${reveal}:f>).`,
      ephemeral: true,
    });
    expect(world.proxy.requests).toBe(0);
  });

  it('explains how to write a date when it cannot read one, or when the day does not exist', async () => {
    world = await startCommandWorld();
    const unreadable = (await run({ date: '14/01/2025' })).answer;
    expect(unreadable.ephemeral).toBe(true);
    expect(unreadable.content).toBe(
      '“14/01/2025” is not a date I can read. Write it as `2025-01-14` (YYYY-MM-DD), `14-01-2025` (DD-MM-YYYY), `today` or `yesterday`.',
    );
    const impossible = (await run({ date: '31-02-2025' })).answer;
    expect(impossible.content).toMatch(/^“31-02-2025” is not a real calendar day\. Write it as/);
    expect((await run({ date: '**@everyone**' })).answer.content).toContain('“\\*\\*@\u200beveryone\\*\\*”');
    expect(world.proxy.requests).toBe(0);
  });

  it('says so when a day has no word', async () => {
    const recorder = await run({ date: '2019-05-05' });
    expect(recorder.answer).toEqual({ content: 'There is no word of the day for 5 May 2019.', ephemeral: true });
  });

  it('escapes every bit of markdown the service sends', async () => {
    const embed = (await run({ date: '2025-01-13' })).answer.embeds?.[0];
    expect(embed?.title).toBe('mark\\_down');
    expect(embed?.description).toContain(
      '\\# Loud \\*\\*bold\\*\\* \\`code\\` \\~\\~strike\\~\\~ \\|\\|spoiler\\|\\| \\[link](https://evil.example) @\u200beveryone <\u200b@123>\n\\> quoted',
    );
  });

  it('sends a cached answer at once, without deferring and without a request', async () => {
    world = await startCommandWorld();
    await run({ date: '2025-01-10' });
    const before = world.proxy.requests;
    const recorder = await run({ date: '2025-01-10' });
    expect(recorder.events.map((event) => event.kind)).toEqual(['respond']);
    expect(world.proxy.requests).toBe(before);
  });

  it('defers first when the service is slow, then answers in the deferred reply', async () => {
    world = await startCommandWorld();
    world.proxy.delayMs = 600;
    const recorder = await run({ date: '2025-01-10' });
    expect(recorder.events.map((event) => event.kind)).toEqual(['defer', 'respond']);
    expect(recorder.events[0]).toEqual({ kind: 'defer', ephemeral: false });
    expect(recorder.answer.embeds?.[0]?.footer?.text).toMatch(/^2025-01-10 /);
  });

  it('after a public deferral, a failure still ends as its own private message', async () => {
    world = await startCommandWorld();
    world.proxy.delayMs = 600;
    const recorder = await run({ date: '2019-05-05' });
    expect(recorder.events.map((event) => event.kind)).toEqual(['defer', 'respond']);
    expect(recorder.answer).toEqual({ content: 'There is no word of the day for 5 May 2019.', ephemeral: true });
  });

  it('when the limiter is full, says the service is busy and when to try again instead of waiting', async () => {
    world = await startCommandWorld({ rateLimit: 1 });
    await run({ date: '2025-01-14' });
    const asked = world.now().getTime();
    // Waiting for the next slot would outlast the test's timeout; the answer comes at once instead.
    const recorder = await run({ date: '2024-11-20' });
    const content = recorder.answer.content ?? '';
    expect(recorder.answer.ephemeral).toBe(true);
    const match = /^The Word-of-the-Day service is busy right now\. Please try again <t:(\d+):R>\.$/.exec(content);
    expect(match, content).not.toBeNull();
    const retryAt = Number(match?.[1]) * 1000;
    expect(retryAt).toBeGreaterThan(asked + 30_000);
    expect(retryAt).toBeLessThanOrEqual(asked + 62_000);
  });

  it('says the service cannot be reached when it is down', async () => {
    world = await startCommandWorld();
    await world.service.close();
    const recorder = await run({ date: '2024-11-20' });
    expect(recorder.answer).toEqual({
      content: 'The Word-of-the-Day service cannot be reached right now. Please try again later.',
      ephemeral: true,
    });
  });
});
