import { describe, expect, it } from 'vitest';
import { wotdCommand } from '../../commands/wotd.ts';
import { wotdFindCommand } from '../../commands/wotd-find.ts';
import { wotdHistoryCommand } from '../../commands/wotd-history.ts';
import { parseConsoleLine, tokenize } from '../../src/console/parse.ts';
import { relativeTime, renderMarkdown, renderMessage } from '../../src/console/render.ts';

const commands = [wotdCommand, wotdHistoryCommand, wotdFindCommand];
const parse = (line: string) => parseConsoleLine(line, commands);
const errorOf = (line: string) => {
  const input = parse(line);
  return input.kind === 'error' ? input.message : `not an error: ${input.kind}`;
};

describe('console input', () => {
  it('reads commands typed as in Discord, with quoted values', () => {
    expect(tokenize(`/wotd-find word:"two words" x:'a b'`)).toEqual({ tokens: ['/wotd-find', 'word:two words', 'x:a b'] });
    const input = parse('/wotd-history date:14-01-2025 limit:5');
    expect(input.kind).toBe('command');
    if (input.kind !== 'command') return;
    expect(input.invocation.command.data.name).toBe('wotd-history');
    expect([...input.invocation.values]).toEqual([
      ['date', '14-01-2025'],
      ['limit', 5],
    ]);
    expect(parse('  ')).toEqual({ kind: 'empty' });
    expect(parse('HELP')).toEqual({ kind: 'help' });
    expect(parse('exit')).toEqual({ kind: 'exit' });
    expect(parse('press  Older')).toEqual({ kind: 'press', target: 'Older', message: null });
    expect(parse('press #12 Keep it')).toEqual({ kind: 'press', target: 'Keep it', message: 12 });
  });

  it('explains unknown commands and options, bad values and missing ones', () => {
    expect(errorOf('/wod')).toBe('There is no command /wod. Did you mean /wotd? Commands: /wotd, /wotd-history, /wotd-find. Type help for more.');
    expect(errorOf('/wotd-hisotry')).toBe(
      'There is no command /wotd-hisotry. Did you mean /wotd-history? Commands: /wotd, /wotd-history, /wotd-find. Type help for more.',
    );
    expect(errorOf('/weather')).toBe('There is no command /weather. Commands: /wotd, /wotd-history, /wotd-find. Type help for more.');
    expect(errorOf('/wotd dat:2025-01-14')).toBe('/wotd has no option “dat”. Did you mean date? Its options: date.');
    expect(errorOf('/wotd day:2025-01-14')).toBe('/wotd has no option “day”. Its options: date.');
    expect(errorOf('/wotd 2025-01-14')).toBe('“2025-01-14” is not an option: write options as name:value such as date:…. Try: /wotd [date:…]');
    expect(errorOf('/wotd-history limit:9')).toBe('/wotd-history limit must be a whole number from 1 to 8; 9 is not.');
    expect(errorOf('/wotd-history limit:two')).toBe('/wotd-history limit must be a whole number from 1 to 8; “two” is not.');
    expect(errorOf('/wotd-find')).toBe('/wotd-find needs word:…. Try: /wotd-find word:…');
    expect(errorOf(`/wotd-find word:${'x'.repeat(101)}`)).toBe('/wotd-find word can be at most 100 characters long; that was 101.');
    expect(errorOf('/wotd date:1 date:2')).toBe('/wotd date is given twice.');
    expect(errorOf('/wotd-find word:"open')).toBe('A double quote is not closed.');
    expect(errorOf('wotd')).toBe('Slash commands start with a slash: /wotd. Type help for more.');
    expect(errorOf('press')).toBe('Press which button? For example: press Older (or press 1), on the latest message with buttons.');
    expect(errorOf('press #3')).toBe('Press which button of message #3? For example: press #3 Older (or press #3 1).');
  });
});

describe('console rendering', () => {
  const now = new Date('2025-01-20T12:00:00Z');

  it('undoes markdown escapes, drops emphasis markers without colour, and writes out Discord timestamps', () => {
    expect(renderMarkdown('**noun** · *(historical)* a \\*star\\* \\_x\\_ `code`', { color: false, now })).toBe(
      'noun · (historical) a *star* _x_ code',
    );
    expect(renderMarkdown('**b**', { color: true, now })).toBe('\u001b[1mb\u001b[22m');
    expect(renderMarkdown('try again <t:1737374460:R> (<t:1737374460:f>)', { color: false, now })).toBe(
      'try again in 1 minute (20 January 2025 at 12:01 UTC)',
    );
    expect(relativeTime(new Date('2025-01-17T12:00:00Z'), now)).toBe('3 days ago');
  });

  it('lays out an embed with title, link, description, fields, footer, then numbered buttons', () => {
    const text = renderMessage(
      {
        embeds: [
          {
            title: 'word',
            url: 'https://wotd.example',
            description: '**noun** · /w/\n\nmeaning',
            fields: [{ name: 'a · 2025-01-19', value: '*noun*\ndef' }],
            footer: { text: '2025-01-20 · credit' },
          },
        ],
        buttons: [
          { customId: 'x:1', label: 'Newer', disabled: true },
          { customId: 'x:2', label: 'Older' },
        ],
      },
      { color: false, now },
    );
    expect(text).toBe(
      [
        '│ word  <https://wotd.example>',
        '│',
        '│ noun · /w/',
        '│',
        '│ meaning',
        '│',
        '│ a · 2025-01-19',
        '│   noun',
        '│   def',
        '│',
        '│ 2025-01-20 · credit',
        '[1: Newer (disabled)]  [2: Older]',
      ].join('\n'),
    );
    expect(renderMessage({ content: 'just you', ephemeral: true }, { color: false, now })).toBe('(only you can see this)\njust you');
  });
});
