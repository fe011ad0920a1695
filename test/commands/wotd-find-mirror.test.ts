import { afterEach, expect, it } from 'vitest';
import { wotdFindCommand } from '../../commands/wotd-find.ts';
import { addDays } from '../../src/wotd/dates.ts';
import { MirrorHolder } from '../../src/wotd/mirror/mirror-holder.ts';
import { MirrorModel } from '../../src/wotd/mirror/mirror-model.ts';
import { commandContext } from './recording-context.ts';
import { RECURRING, startCommandWorld, testEntries, TODAY, type CommandWorld } from './world.ts';

/** /wotd-find against deployment A (which reports only a word's first date) with the database mirror in place. */

let world: CommandWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function find(word: string) {
  const context = commandContext('wotd-find', { word });
  await wotdFindCommand.execute(context, (world as CommandWorld).services);
  return context.recorder;
}

it('lists every date a word was chosen, newest first, without the "first word of the day" caveat', async () => {
  const holder = new MirrorHolder();
  world = await startCommandWorld({ variant: 'auto', mirror: holder }, 'A');
  const yesterday = addDays(TODAY, -1);
  holder.swap(MirrorModel.build(testEntries().filter((entry) => entry.date <= yesterday), yesterday), 'test');
  const embed = (await find('ECHO')).answer.embeds?.[0];
  expect(embed?.title).toBe('echo: word of the day 12 times');
  expect(embed?.description?.split('\n')[0]).toBe('**2024-12-26** · *verb · /echo/* — Sense number 12 of the echo.');
  expect(embed?.footer?.text).toBe('Page 1 of 2 · Word of the Day from wotd.example');
  expect(embed?.footer?.text).not.toMatch(/first date/);
});

it('keeps the caveat for a word only the service can answer (a mirror too far behind)', async () => {
  const holder = new MirrorHolder();
  world = await startCommandWorld({ variant: 'auto', mirror: holder }, 'A');
  holder.swap(MirrorModel.build(testEntries().filter((entry) => entry.date <= '2024-11-30'), '2024-11-30'), 'test');
  const embed = (await find(RECURRING)).answer.embeds?.[0];
  expect(embed?.title).toBe('echo: first word of the day on 2024-11-01');
});
