import { it } from 'vitest';

/**
 * One cell of the fault matrix: a fault met while doing one operation. Each cell is one vitest test; what it found
 * travels to the main process in the test's meta (safe under the forks pool) and fault-reporter.ts prints the table
 * and the `faults:` line from it.
 */
export type FaultGroup = 'upstream' | 'discord' | 'store' | 'time' | 'locks' | 'paths';

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
    /** The cells a test covered, as it found them. */
    faultCells?: FaultCell[];
    /** Generated inputs a property test ran, with its seed and the command that replays it. */
    generated?: GeneratedRun;
  }
}

export interface GeneratedRun {
  runs: number;
  seed: number;
  /** One shell command that runs this property again with this seed. */
  replay: string;
}

/**
 * Records on a property test the generated inputs it ran; fault-reporter.ts adds them to the `faults:` line and
 * prints each seed with its replay command. Call it after the property ran all its runs.
 */
export function recordGenerated(task: { meta: { generated?: GeneratedRun } }, run: GeneratedRun): void {
  task.meta.generated = run;
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

type CellBody = (figures: CellFigures) => Promise<string>;

/** Runs one cell's body into `cell`; returns the error that failed it, if any. */
async function runCell(cell: FaultCell, body: CellBody): Promise<unknown> {
  const figures: CellFigures = { lost: 0, duplicated: 0 };
  try {
    cell.reason = await body(figures);
    if (figures.lost > 0) throw new Error(`${figures.lost} lost`);
    if (figures.duplicated > 0) throw new Error(`${figures.duplicated} duplicated`);
    cell.pass = true;
    return undefined;
  } catch (error) {
    cell.pass = false;
    cell.reason = firstLine(error);
    return error;
  } finally {
    cell.lost = figures.lost;
    cell.duplicated = figures.duplicated;
  }
}

/**
 * Declares one fault's cells as one test: the operations run side by side (each must keep to its own channels,
 * days and keys), and each is one cell. A body does its operation under the fault, checks everything the matrix
 * promises (throwing on the first broken promise), records what it measured in `figures`, and returns its short
 * reason; lost or duplicated above zero fail the cell. An unhandled error while the test runs fails every cell of
 * it and is counted once.
 */
export function faultRow(group: FaultGroup, fault: string, operations: Array<[operation: string, body: CellBody]>, timeoutMs?: number): void {
  it(
    `${fault} × ${operations.map(([operation]) => operation).join(', ')}`,
    async ({ task }) => {
      countCrashes();
      const crashesBefore = crashes;
      const cells: FaultCell[] = operations.map(([operation]) => ({
        group,
        fault,
        operation,
        pass: false,
        reason: 'did not finish',
        lost: 0,
        duplicated: 0,
        crashes: 0,
      }));
      task.meta.faultCells = cells;
      const failures = await Promise.all(operations.map(([, body], index) => runCell(cells[index] as FaultCell, body)));
      // A rejection from the cells' work may surface a tick later.
      await new Promise((resolve) => setImmediate(resolve));
      const crashed = crashes - crashesBefore;
      if (crashed > 0) {
        for (const cell of cells) {
          cell.pass = false;
          cell.reason = `${crashed} unhandled error${crashed === 1 ? '' : 's'}`;
        }
        (cells[0] as FaultCell).crashes = crashed;
        throw new Error(`${crashed} unhandled errors while the cells ran`);
      }
      const failed = failures.filter((failure) => failure !== undefined);
      if (failed.length === 1) throw failed[0];
      if (failed.length > 1) throw new AggregateError(failed, failed.map(firstLine).join('; '));
    },
    timeoutMs,
  );
}

/** One cell as one test (see faultRow). */
export function faultCell(group: FaultGroup, fault: string, operation: string, body: CellBody, timeoutMs?: number): void {
  faultRow(group, fault, [[operation, body]], timeoutMs);
}
