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

  it('press then Tab offers the labels of the buttons that can be pressed, of the latest message or of #n, and the numbers after #', async () => {
    const board = new ConsoleSession({ commands: [], services: {} as BotServices, write: () => undefined, color: false, showThinking: false });
    expect(await board.complete('press ')).toEqual([[], '']);
    board.postShown({ channelId: 'words', messageId: 'console-1', buttons: ['A', 'B', 'C', 'D'].map((label) => ({ customId: `quiz:day:2026-01-01:${label}`, label })) }, 'daily post in #words');
    const reveal = { customId: 'review:show:2025-01-14', label: 'Show the meaning' };
    board.postShown({ channelId: 'dm:console', messageId: 'console-2', buttons: [reveal, { customId: 'x', label: 'Shut', disabled: true }] }, 'daily post in your DMs');
    // A lone label completes whole, with a space after it; a disabled button is not offered.
    expect(await board.complete('press Sh')).toEqual([['Show the meaning '], 'Sh']);
    expect(await board.complete('press #1 ')).toEqual([['A', 'B', 'C', 'D'], '']);
    expect(await board.complete('press #')).toEqual([['#1 ', '#2 '], '#']);
    // The quiz's reveal keeps its number: its buttons, now disabled, are offered no more.
    expect(board.postShown({ channelId: 'words', messageId: 'console-1', buttons: [{ customId: 'quiz:day:2026-01-01:0', label: 'A', disabled: true }] }, '')).toBe(1);
    expect(await board.complete('press #1 ')).toEqual([[], '']);
  });
});
