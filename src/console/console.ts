import { consoleT } from './console-locale.ts';
import { createInterface } from 'node:readline';
import { PromptScreen } from './prompt-screen.ts';
import type { ConsoleSession } from './session.ts';

export interface ConsoleLoopOptions {
  session: ConsoleSession;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /**
   * Where the first screen and notes about the console itself go (standard error), so standard output carries the
   * replies only: `printf … | wotd-bot console > answers.txt` keeps the answers. Default: `output`.
   */
  notices?: NodeJS.WritableStream;
  /** Shown once, before the first prompt. */
  banner: string;
  /** A person at a terminal: prompt, line editing and Tab completion. Otherwise lines are read as they come (a pipe). */
  terminal: boolean;
  /** Resolves when the console should stop early (a signal). */
  stop?: Promise<void>;
  /** Where everything else that prints to `output` (the session, daily posts) writes, so it keeps clear of the prompt. */
  screen?: PromptScreen;
}

/** Said when input ends before its first line: nobody will type, so the console serves until it is stopped. */
export const NO_INPUT_NOTE = consoleT()('console.noInput');

/**
 * Reads commands line by line until `exit`, end of input (Ctrl-D) or `stop`. Lines are handled one at a time,
 * in order, so piped input gets its replies in the order it was written.
 *
 * Input that ends before its first line (`</dev/null`, a closed pipe, a service manager's stdin) is not a person
 * leaving: the console then waits for `stop` instead, so it can run in the background.
 */
export async function runConsoleLoop(options: ConsoleLoopOptions): Promise<void> {
  const { session, output, terminal } = options;
  const readline = createInterface({
    input: options.input,
    output: terminal ? output : undefined,
    terminal,
    prompt: 'wotd> ',
    historySize: 200,
    completer: terminal
      ? (line: string, callback: (error: Error | null, result: [string[], string]) => void) => {
          session.complete(line).then(
            (result) => callback(null, result),
            () => callback(null, [[], line]),
          );
        }
      : undefined,
  });
  const screen = options.screen ?? new PromptScreen(output);
  if (terminal) screen.attach(readline);
  let stopped = false;
  readline.on('SIGINT', () => readline.close());
  void options.stop?.then(() => {
    stopped = true;
    readline.close();
  });
  const notices = options.notices ?? output;
  notices.write(`${options.banner}\n\n`);
  if (terminal) screen.prompt();
  let lines = 0;
  for await (const line of readline) {
    lines += 1;
    const keepGoing = await session.handleLine(line);
    if (!keepGoing) break;
    if (terminal) screen.prompt();
  }
  readline.close();
  if (terminal) output.write('\n');
  if (!terminal && lines === 0 && !stopped && options.stop) {
    notices.write(`${NO_INPUT_NOTE}\n`);
    await options.stop;
  }
}
