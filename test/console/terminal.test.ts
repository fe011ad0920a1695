import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunningService } from '../../src/service/server.ts';
import { testEntries } from '../commands/world.ts';
import { collectOutput, type ChildOutput } from '../support/child-output.ts';
import type { DiscordServer } from '../support/discord/index.ts';
import { startServiceAndDiscord, type ServiceAndDiscord } from '../support/service-and-discord.ts';
import { childEnv } from '../support/child-env.ts';

/**
 * The bot at a real terminal: util-linux's `script` runs it on a pseudo-terminal, so standard input, output and
 * error are a terminal as they are for a person, and readline, isTTY and pino-pretty behave as they do then. Keys
 * are written to the terminal (Tab is \t), and what the terminal shows is read back, escapes removed.
 */

const BIN = resolve(import.meta.dirname, '../../bin/wotd-bot.js');

let world: ServiceAndDiscord | undefined;
let dir: string;
let service: RunningService;
let discord: DiscordServer;

beforeAll(async () => {
  const entries = testEntries();
  // A word with a space, which completes only inside quotes.
  const day = entries.find((entry) => entry.date === '2025-01-15');
  if (day) Object.assign(day, { word: 'yin yang', ipa: '/jɪn jæŋ/', definition: 'Two sides of one whole.' });
  world = await startServiceAndDiscord('terminal', entries);
  ({ dir, service, discord } = world);
});
afterAll(async () => {
  await world?.close();
});

function settingsFree(): NodeJS.ProcessEnv {
  const env = childEnv({}, ['NO_COLOR']);
  return { ...env, TERM: 'xterm', LANG: 'en_US.UTF-8', WOTD_MIRROR: 'off' };
}

/** `wotd-bot <command>` on a pseudo-terminal of its own; `screen()` is what it has shown so far, without escapes. */
function atTerminal(command: string, env: NodeJS.ProcessEnv): { type: (keys: string) => void; screen: () => string; output: ChildOutput; exited: Promise<number | null>; stop: () => void } {
  const child = spawn('script', ['-qfec', `exec '${process.execPath}' '${BIN}' ${command}`, '/dev/null'], { cwd: dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  const { output, exited } = collectOutput(child);
  return {
    type: (keys) => child.stdin.write(keys),
    // eslint-disable-next-line no-control-regex
    screen: () => output.stdout.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, ''),
    output,
    exited,
    stop: () => child.kill('SIGTERM'),
  };
}

describe('the console at a terminal', () => {
  it('Tab after a command inserts it and a space; word: with Tab inserts only what the word typed starts with', async () => {
    const term = atTerminal('console', { ...settingsFree(), WOTD_API_URL: service.url, STORE_URL: `sqlite://${join(dir, 'console.sqlite')}` });
    // What the terminal showed since the last keys were typed.
    let mark = 0;
    const type = (keys: string) => {
      mark = term.screen().length;
      term.type(keys);
    };
    const shown = (text: string | RegExp) =>
      vi.waitFor(() => expect(term.screen().slice(mark)).toMatch(typeof text === 'string' ? new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : text), {
        timeout: 20_000,
        interval: 50,
      });
    // The prompt, drawn again once an answer is printed: keys typed before it would be typed during the answer.
    const prompt = () => shown(/wotd> $/);
    await prompt();
    // The cache gets its words: "yin yang" (2025-01-15), no other word starts with y, and serendipity (2025-01-14).
    type('/wotd date:2025-01-15\r');
    await shown('│ yin yang');
    await prompt();
    type('/wotd date:2025-01-14\r');
    await shown('│ serendipity');
    await prompt();

    // A command completed with a space: the option typed next is an option, not part of its name.
    type('/wotd-his\t');
    await shown('/wotd-history ');
    type('date:2025-01-14 limit:1\r');
    await shown('│ Words of the day before 14 January 2025');
    await prompt();

    // word:"y completes inside the quotes, and the line runs as typed.
    type('/wotd-find word:"y\t');
    await shown('/wotd-find word:"yin yang" ');
    type('\r');
    await shown(/│ yin yang: word of the day once/);
    await prompt();

    // word:y has no completion that starts with it ("yin yang" needs its quotes): Tab inserts nothing, where it
    // used to insert in yang" and run /wotd-find word:yin yang".
    const typedAt = term.screen().length;
    type('/wotd-find word:y\t');
    await new Promise((settle) => setTimeout(settle, 500));
    type('\r');
    await shown(/“y”/);
    await prompt();
    expect(term.screen().slice(typedAt)).toMatch(/^\/wotd-find word:y\n/);
    expect(term.screen().slice(typedAt)).not.toContain('in yang"');

    term.type('exit\r');
    expect(await term.exited).toBe(0);
  }, 60_000);
});

describe('logs at a terminal', () => {
  const discordEnv = () => ({
    ...settingsFree(),
    DISCORD_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
    WOTD_API_URL: service.url,
    STORE_URL: `sqlite://${join(dir, 'discord.sqlite')}`,
  });

  it('are pino-pretty lines, not JSON, with the invite URL a plain line of its own; LOG_FORMAT=json keeps JSON there', async () => {
    const pretty = atTerminal('start', discordEnv());
    await vi.waitFor(() => expect(pretty.screen()).toMatch(/^Add the bot to a server: https:\/\/discord\.com\/oauth2\/authorize\?\S+$/m), { timeout: 30_000, interval: 100 });
    expect(pretty.screen()).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO.*: connected to Discord as /m);
    expect(pretty.screen()).not.toContain('{"level"');
    pretty.stop();
    expect(await pretty.exited).toBe(0);

    const json = atTerminal('start', { ...discordEnv(), LOG_FORMAT: 'json' });
    await vi.waitFor(() => expect(json.screen()).toMatch(/^Add the bot to a server: /m), { timeout: 30_000, interval: 100 });
    expect(json.screen()).toMatch(/^\{"level":30,.*"msg":"connected to Discord as /m);
    json.stop();
    expect(await json.exited).toBe(0);
  }, 90_000);
});
