import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { commands } from '../../commands/index.ts';
import { runConsoleLoop } from '../../src/console/console.ts';
import { createConsolePoster } from '../../src/console/console-poster.ts';
import { PromptScreen } from '../../src/console/prompt-screen.ts';
import { ConsoleSession } from '../../src/console/session.ts';
import { dailyPostEmbed } from '../../src/replies/daily-embeds.ts';
import type { WotdLookup } from '../../src/wotd/lookup.ts';
import { FixedLookup } from '../schedule/helpers.ts';

/**
 * The terminal-only behaviour of the console, with a stand-in terminal (no pty here): streams that say they are TTYs,
 * so readline draws its prompt and echoes keys as in a real one, and a small screen that plays what is written the
 * way a terminal does (wrapping, cursor moves, clearing), to see what the person would see.
 */
class Screen {
  rows: string[][] = [[]];
  private row = 0;
  private col = 0;

  constructor(private readonly columns: number) {}

  play(text: string): void {
    for (let index = 0; index < text.length; index += 1) {
      const char = text[index] as string;
      const control = /^\u001b\[(\d*)([A-DGJK])/.exec(text.slice(index));
      if (control) {
        index += control[0].length - 1;
        const n = Number(control[1] || '1');
        const op = control[2];
        if (op === 'A') this.row = Math.max(0, this.row - n);
        if (op === 'B') this.row += n;
        if (op === 'C') this.col = Math.min(this.columns - 1, this.col + n);
        if (op === 'D') this.col = Math.max(0, this.col - n);
        if (op === 'G') this.col = n - 1;
        if (op === 'J') this.rows = [...this.rows.slice(0, this.row), (this.rows[this.row] ?? []).slice(0, this.col)];
        if (op === 'K') this.rows[this.row] = (this.rows[this.row] ?? []).slice(0, this.col);
      } else if (char === '\n') {
        this.row += 1;
        this.col = 0;
      } else if (char === '\r') {
        this.col = 0;
      } else {
        // A character past the last column goes to the next row, as terminals wrap.
        if (this.col >= this.columns) {
          this.row += 1;
          this.col = 0;
        }
        const line = (this.rows[this.row] ??= []);
        while (line.length < this.col) line.push(' ');
        line[this.col] = char;
        this.col += 1;
      }
      while (this.rows.length <= this.row) this.rows.push([]);
    }
  }

  text(): string {
    return this.rows.map((line) => line.join('').trimEnd()).join('\n').trimEnd();
  }
}

function fakeTerminal(columns: number) {
  const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input });
  const output = Object.assign(new PassThrough(), { isTTY: true, columns, rows: 40 });
  const screen = new Screen(columns);
  let written = '';
  output.setEncoding('utf8').on('data', (chunk: string) => {
    written += chunk;
    screen.play(chunk);
  });
  return { input, output, screen, written: () => written };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 300 && !check(); tries += 1) await new Promise((wait) => setTimeout(wait, 10));
  expect(check(), what).toBe(true);
}

async function consoleAt(columns: number) {
  const terminal = fakeTerminal(columns);
  const now = () => new Date('2026-06-15T09:30:00Z');
  const lookup = new FixedLookup();
  const screen = new PromptScreen(terminal.output);
  const session = new ConsoleSession({
    commands,
    services: { lookup: lookup as unknown as WotdLookup, siteUrl: 'https://wotd.site' },
    write: screen.write,
    color: false,
    showThinking: false,
    now,
  });
  const poster = createConsolePoster({ write: screen.write, color: false, now });
  let stop: () => void = () => undefined;
  const loop = runConsoleLoop({
    session,
    input: terminal.input,
    output: terminal.output,
    banner: 'banner',
    terminal: true,
    screen,
    stop: new Promise<void>((resolve) => (stop = resolve)),
  });
  await until(() => terminal.written().includes('wotd> '), 'the prompt is shown');
  const post = async (nonce: string) => {
    const entry = (await lookup.getEntry('2026-06-15')).value;
    await poster.post({ channelId: 'words', embeds: [dailyPostEmbed(entry, 'compact', { siteUrl: 'https://wotd.site' })], mentionRoleId: null, nonce });
  };
  const close = async () => {
    stop();
    await loop;
  };
  return { terminal, post, close };
}

/** What a terminal `columns` wide shows for `text` written plainly: the screen as it should look. */
function plainly(columns: number, text: string): string {
  const screen = new Screen(columns);
  screen.play(text);
  return screen.text();
}

/** The daily post as the console poster writes it. */
async function postText(): Promise<string> {
  let text = '';
  const poster = createConsolePoster({ write: (chunk) => (text += chunk), color: false, now: () => new Date('2026-06-15T09:30:00Z') });
  const entry = (await new FixedLookup().getEntry('2026-06-15')).value;
  await poster.post({ channelId: 'words', embeds: [dailyPostEmbed(entry, 'compact', { siteUrl: 'https://wotd.site' })], mentionRoleId: null, nonce: 'x' });
  return text;
}

describe('the console at a terminal', () => {
  it('prints a daily post that arrives while the prompt waits above it, and draws the prompt and the half-typed line again', async () => {
    const { terminal, post, close } = await consoleAt(32);
    try {
      // Typed key by key, long enough to wrap on a 32-column terminal.
      for (const key of '/wotd-history date:2026-06-14 lim') terminal.input.write(key);
      await until(() => terminal.screen.text().endsWith('lim'), 'the typing is echoed');
      await post('n1');
      const daily = await postText();
      expect(daily.startsWith('Daily word in #words:\n│ word-2026-06-15')).toBe(true);
      expect(terminal.screen.text()).toBe(plainly(32, `banner\n\n${daily}wotd> /wotd-history date:2026-06-14 lim`));

      // Pasted at once, then another post: still drawn cleanly.
      terminal.input.write('it:9 and more text to wrap again');
      await until(() => terminal.screen.text().endsWith('again'), 'the paste is echoed');
      await post('n2');
      expect(terminal.screen.text()).toBe(plainly(32, `banner\n\n${daily}${daily}wotd> /wotd-history date:2026-06-14 limit:9 and more text to wrap again`));
    } finally {
      await close();
    }
  });

  it('keeps the half-typed line: finishing it runs the whole line', async () => {
    const { terminal, post, close } = await consoleAt(80);
    try {
      terminal.input.write('/wotd-history da');
      await until(() => terminal.screen.text().endsWith('da'), 'the typing is echoed');
      await post('n1');
      terminal.input.write('te:2026-06-14 limit:9\r');
      await until(() => terminal.screen.text().includes('9 is not.'), 'the line ran');
      expect(terminal.screen.text()).toContain('wotd> /wotd-history date:2026-06-14 limit:9\n/wotd-history limit must be a whole number from 1 to 8; 9 is not.');
    } finally {
      await close();
    }
  });
});
