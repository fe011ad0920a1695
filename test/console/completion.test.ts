import { SlashCommandBuilder } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { ConsoleSession } from '../../src/console/session.ts';
import type { BotServices, SlashCommand } from '../../src/replies/interactions.ts';

/** A command whose `word` option suggests words with and without spaces, as /wotd-find suggests cached words. */
const find: SlashCommand = {
  data: new SlashCommandBuilder()
    .setName('wotd-find')
    .setDescription('find')
    .addStringOption((option) => option.setName('word').setDescription('word').setAutocomplete(true)),
  async execute() {},
  async autocomplete(context) {
    const typed = context.focused.value.replace(/^"/, '').toLowerCase();
    await context.respond(['ad hoc', 'andante', 'Apple'].filter((word) => word.toLowerCase().startsWith(typed)).map((word) => ({ name: word, value: word })));
  },
};
const history: SlashCommand = {
  data: new SlashCommandBuilder().setName('wotd-history').setDescription('history').addIntegerOption((option) => option.setName('limit').setDescription('n')),
  async execute() {},
};

const session = new ConsoleSession({ commands: [find, history], services: {} as BotServices, write: () => undefined, color: false, showThinking: false });

describe('Tab completion at the console', () => {
  it('a lone command completes with a space after it, ready for an option', async () => {
    expect(await session.complete('/wotd-his')).toEqual([['/wotd-history '], '/wotd-his']);
    expect(await session.complete('/wotd-history')).toEqual([['/wotd-history '], '/wotd-history']);
    expect(await session.complete('/wotd-')).toEqual([['/wotd-find', '/wotd-history'], '/wotd-']);
  });

  it('an option name completes to name: (no space), a lone value with a space after it', async () => {
    expect(await session.complete('/wotd-history li')).toEqual([['limit:'], 'li']);
    expect(await session.complete('/wotd-find word:and')).toEqual([['word:andante '], 'word:and']);
  });

  it('word: then Tab offers only what readline can insert: every completion starts with the text it completes', async () => {
    // "ad hoc" needs quotes: offered after word: or word:", never after word:a, where readline would insert d hoc".
    expect(await session.complete('/wotd-find word:')).toEqual([['word:"ad hoc"', 'word:andante', 'word:Apple'], 'word:']);
    expect(await session.complete('/wotd-find word:a')).toEqual([['word:andante'].map((choice) => `${choice} `), 'word:a']);
    expect(await session.complete('/wotd-find word:"a')).toEqual([['word:"ad hoc" '], 'word:"a']);
  });
});
