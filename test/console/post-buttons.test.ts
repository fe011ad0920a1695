import { SlashCommandBuilder } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { createConsolePoster } from '../../src/console/console-poster.ts';
import { ConsoleSession } from '../../src/console/session.ts';
import type { BotServices, ButtonContext, SlashCommand } from '../../src/replies/interactions.ts';

/** A command whose buttons say where they were pressed, as the quiz's handler reads it. */
const pressed: Array<Pick<ButtonContext, 'customId' | 'messageId'> & { channelId: string; guildId: string | null }> = [];
const quiz: SlashCommand = {
  data: new SlashCommandBuilder().setName('wotd-quiz').setDescription('quiz'),
  async execute() {},
  button: {
    prefix: 'quiz',
    async handle(context) {
      pressed.push({ customId: context.customId, messageId: context.messageId, channelId: context.invoker.channelId, guildId: context.invoker.guildId });
      await context.respond({ content: 'noted', ephemeral: true });
    },
  },
};

const letters = (disabled = false) => ['A', 'B', 'C', 'D'].map((label, index) => ({ customId: `quiz:day:2026-06-15:${index}`, label, disabled }));

describe('daily posts at the console have buttons to press', () => {
  it('numbered like a reply’s, pressed in the post’s channel on its message; the edit keeps the number and disables them', async () => {
    let printed = '';
    const write = (text: string) => (printed += text);
    const session = new ConsoleSession({ commands: [quiz], services: {} as BotServices, write, color: false, showThinking: false, locale: 'en' });
    const poster = createConsolePoster({ write, color: false, locale: 'en', board: session, now: () => new Date('2026-06-15T09:00:00Z') });
    const post = { channelId: 'words', day: '2026-06-15', embeds: [{ title: 'What does “candor” mean?' }], mentionRoleId: null, nonce: 'n1', buttons: letters() };
    const { messageId } = await poster.post(post);
    await poster.post({ channelId: 'dm:console', day: '2026-06-15', embeds: [{ title: 'candor' }], mentionRoleId: null, nonce: 'n2', content: '1 word to review — /wotd-review' });
    expect(printed).toContain('Daily word in #words:\n│ What does “candor” mean?\nmessage #1: [1: A]  [2: B]  [3: C]  [4: D]\n');
    expect(printed).toContain('Daily word in your DMs:\n1 word to review — /wotd-review\n│ candor\n\n');

    // The DM has no buttons: the latest message with some is still the quiz.
    await session.handleLine('press B');
    expect(printed).toContain('Pressed B on message #1 (daily post in #words).\n(only you can see this)\nnoted');
    expect(pressed).toEqual([{ customId: 'quiz:day:2026-06-15:1', messageId, channelId: 'words', guildId: 'console' }]);
    // The same post again (a retry with its nonce) is not printed, nor numbered, twice.
    expect(await poster.post(post)).toEqual({ messageId });
    expect(printed.match(/^message #\d+:/gm)).toEqual(['message #1:']);

    await poster.edit?.('words', messageId, { embeds: [{ title: 'Answer: B' }], buttons: letters(true) });
    expect(printed).toContain(`Daily post ${messageId} in #words, edited:\n│ Answer: B\nmessage #1: [1: A (disabled)]  [2: B (disabled)]`);
    await session.handleLine('press #1 C');
    expect(printed).toContain('The C button of message #1 is disabled.');
    expect(pressed).toHaveLength(1);
  });
});
