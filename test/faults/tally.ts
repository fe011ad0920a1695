import { it } from 'vitest';

/**
 * One cell of the fault matrix: a fault met while doing one operation. Each cell is one vitest test; what it found
 * travels to the main process in the test's meta (safe under the forks pool) and fault-reporter.ts prints the table
 * and the `faults:` line from it.
 */
export type FaultGroup = 'upstream' | 'discord' | 'store';

export interface FaultCell {
  group: FaultGroup;
  fault: string;
  operation: string;
  pass: boolean;
  /** A few words: what the member saw, or what went wrong. */
  reason: string;
  /** Subscriptions (or stored records) that were there before the fault and are not after it. */
  lost: number;
  /** Daily posts beyond one per channel and day. */
  duplicated: number;
  /** Unhandled rejections and uncaught exceptions seen in this process while the cell ran. */
  crashes: number;
}

declare module '@vitest/runner' {
  interface TaskMeta {
    faultCell?: FaultCell;
  }
}

/** The figures a cell measures; its body fills them in as it goes, so a failing cell still reports them. */
export interface CellFigures {
  lost: number;
  duplicated: number;
}

let crashes = 0;
let listening = false;

function countCrashes(): void {
  if (listening) return;
  listening = true;
  // Counting only: vitest's own handlers still report (and fail the run on) every one of them.
  process.on('unhandledRejection', () => {
    crashes += 1;
  });
  process.on('uncaughtExceptionMonitor', () => {
    crashes += 1;
  });
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // Assertion messages carry ANSI colours and long diffs; the table wants one plain line.
  const plain = text.replace(/\u001b\[[0-9;]*m/g, '').split('\n').find((line) => line.trim() !== '') ?? 'failed';
  return plain.trim().slice(0, 70);
}

/**
 * Declares one cell as a test. `body` does the operation under the fault, checks everything the matrix promises
 * (throwing on the first broken promise), records what it measured in `figures`, and returns its short reason;
 * lost or duplicated above zero fail the cell.
 */
export function faultCell(
  group: FaultGroup,
  fault: string,
  operation: string,
  body: (figures: CellFigures) => Promise<string>,
  timeoutMs?: number,
): void {
  it(
    `${fault} × ${operation}`,
    async ({ task }) => {
      countCrashes();
      const crashesBefore = crashes;
      const cell: FaultCell = { group, fault, operation, pass: false, reason: 'did not finish', lost: 0, duplicated: 0, crashes: 0 };
      task.meta.faultCell = cell;
      const figures: CellFigures = { lost: 0, duplicated: 0 };
      try {
        cell.reason = await body(figures);
        if (figures.lost > 0) throw new Error(`${figures.lost} lost`);
        if (figures.duplicated > 0) throw new Error(`${figures.duplicated} duplicated`);
        // A rejection from this cell's work may surface a tick later.
        await new Promise((resolve) => setImmediate(resolve));
        cell.crashes = crashes - crashesBefore;
        cell.lost = figures.lost;
        cell.duplicated = figures.duplicated;
        if (cell.crashes > 0) throw new Error(`${cell.crashes} unhandled errors`);
        cell.pass = true;
      } catch (error) {
        cell.crashes = crashes - crashesBefore;
        cell.lost = figures.lost;
        cell.duplicated = figures.duplicated;
        cell.pass = false;
        cell.reason = firstLine(error);
        throw error;
      }
    },
    timeoutMs,
  );
}
