import { clearScreenDown, cursorTo, moveCursor, type Interface } from 'node:readline';

/**
 * Everything the console prints goes through here. While the prompt waits at a terminal, text that arrives (a daily
 * post at its time) is printed above the prompt, and the prompt is drawn again below it with the half-typed line and
 * the cursor where they were. Otherwise (a line is being answered, or no terminal) text is simply written.
 */
export class PromptScreen {
  private readline: Interface | null = null;
  private waiting = false;

  constructor(private readonly output: NodeJS.WritableStream) {}

  readonly write = (text: string): void => {
    const readline = this.readline;
    if (!readline || !this.waiting) {
      this.output.write(text);
      return;
    }
    // Back to where the prompt starts (a long line may wrap over several rows), and clear it.
    const { rows } = readline.getCursorPos();
    moveCursor(this.output, 0, -rows);
    cursorTo(this.output, 0);
    clearScreenDown(this.output);
    this.output.write(text.endsWith('\n') ? text : `${text}\n`);
    // prompt(true) first climbs the rows readline believes its cursor is below the prompt's start: land right here.
    this.output.write('\n'.repeat(rowsReadlineClimbs(readline)));
    readline.prompt(true);
  };

  /** The terminal's prompt and line editor, once it exists. */
  attach(readline: Interface): void {
    this.readline = readline;
    readline.on('line', () => {
      this.waiting = false;
    });
    readline.on('close', () => {
      this.waiting = false;
      this.readline = null;
    });
  }

  /** Shows the prompt; from now until the next line, printed text goes above it. */
  prompt(): void {
    if (!this.readline) return;
    this.readline.prompt();
    this.waiting = true;
  }
}

/**
 * How many rows readline's redraw climbs before drawing the prompt: its record of the cursor's row at its last redraw
 * (`prevRows`, not in its types). A pasted line that wrapped leaves it behind the cursor's real row, so the real row
 * is only the fallback.
 */
function rowsReadlineClimbs(readline: Interface): number {
  const recorded: unknown = Reflect.get(readline, 'prevRows');
  return typeof recorded === 'number' && Number.isSafeInteger(recorded) && recorded >= 0 && recorded < 10_000 ? recorded : readline.getCursorPos().rows;
}
