import { createInterface } from 'node:readline';
import type { ConsoleSession } from './session.ts';

export interface ConsoleLoopOptions {
  session: ConsoleSession;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** Shown once, before the first prompt. */
  banner: string;
  /** A person at a terminal: prompt, line editing and Tab completion. Otherwise lines are read as they come (a pipe). */
  terminal: boolean;
  /** Resolves when the console should stop early (a signal). */
  stop?: Promise<void>;
}

/**
 * Reads commands line by line until `exit`, end of input (Ctrl-D) or `stop`. Lines are handled one at a time,
 * in order, so piped input gets its replies in the order it was written.
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
  readline.on('SIGINT', () => readline.close());
  void options.stop?.then(() => readline.close());
  output.write(`${options.banner}\n\n`);
  if (terminal) readline.prompt();
  for await (const line of readline) {
    const keepGoing = await session.handleLine(line);
    if (!keepGoing) break;
    if (terminal) readline.prompt();
  }
  readline.close();
  if (terminal) output.write('\n');
}
