import { sep } from 'node:path';
import type { SerializedError } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';
import type { FaultCell, FaultGroup, GeneratedRun } from './tally.ts';

/**
 * Prints the fault matrix after a run that included test/faults: one table per group (rows = fault, columns =
 * operation, cells = pass or FAIL with a short reason), then exactly one line
 * `faults: scenarios=N generated=N passed=N lost=N duplicated=N crashes=N`, counted from the cells' own findings
 * (`generated`: the inputs the property tests of the run recorded with recordGenerated, each seed printed above it). A cell whose
 * test failed is a FAIL whatever its meta says; a fault file that died, or an unhandled error raised in one,
 * counts as a crash.
 */

const GROUP_TITLES: Record<FaultGroup, string> = {
  upstream: 'Upstream (Word-of-the-Day service) faults',
  discord: 'Discord faults',
  store: 'Store (SQLite file, PostgreSQL) faults',
  time: 'Time faults (the wall clock jumps, a process is paused)',
  locks: 'Lock-loss faults (a store lock, a lease or a claim lost while its holder runs)',
  paths: 'Blocking-path faults (a setting names something that is not a regular file)',
};

const FAULTS_DIR = `${sep}test${sep}faults${sep}`;

function isFaultModule(moduleId: string): boolean {
  return moduleId.includes(FAULTS_DIR) || moduleId.includes('/test/faults/');
}

function plain(text: string): string {
  return text.replace(/\u001b\[[0-9;]*m/g, '').split('\n')[0]?.trim() ?? '';
}

export function renderTable(cells: FaultCell[]): string[] {
  const faults = [...new Set(cells.map((cell) => cell.fault))];
  const operations = [...new Set(cells.map((cell) => cell.operation))];
  const text = (cell: FaultCell | undefined): string => (cell ? `${cell.pass ? 'pass' : 'FAIL'}: ${cell.reason}` : '—');
  const grid = faults.map((fault) => [fault, ...operations.map((operation) => text(cells.find((c) => c.fault === fault && c.operation === operation)))]);
  const header = ['fault', ...operations];
  const widths = header.map((title, column) => Math.max(title.length, ...grid.map((row) => (row[column] ?? '').length)));
  const line = (row: string[]): string => `| ${row.map((value, column) => value.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...grid.map(line)];
}

export default class FaultReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    const modules = testModules.filter((module) => isFaultModule(module.moduleId));
    if (modules.length === 0) return;
    const cells: FaultCell[] = [];
    const generated: Array<GeneratedRun & { name: string }> = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const run = test.meta().generated;
        if (run) generated.push({ ...run, name: test.fullName });
      }
    }
    let crashes = 0;
    for (const module of modules) {
      // A file that could not run to its end (a worker that died, a failing hook) is a crash of that file.
      if (module.errors().length > 0) crashes += 1;
      for (const test of module.children.allTests()) {
        const found = test.meta().faultCells ?? [];
        const result = test.result();
        // A test that failed without any of its cells saying why (a timeout, a failing hook) fails them all.
        const unexplained = result.state !== 'passed' && found.every((cell) => cell.pass);
        const error = result.state === 'failed' ? result.errors[0] : undefined;
        for (const cell of found) {
          cells.push(unexplained ? { ...cell, pass: false, reason: plain(error?.message ?? result.state).slice(0, 70) } : cell);
        }
      }
    }
    // An unhandled error names the file it came from when vitest can tell; in a run of the matrix alone, every one counts.
    const onlyFaults = modules.length === testModules.length;
    crashes += unhandledErrors.filter((error) => {
      const path = (error as { VITEST_TEST_PATH?: string }).VITEST_TEST_PATH;
      return path === undefined ? onlyFaults : isFaultModule(path);
    }).length;
    crashes += cells.reduce((sum, cell) => sum + cell.crashes, 0);

    const out: string[] = [''];
    for (const group of Object.keys(GROUP_TITLES) as FaultGroup[]) {
      const inGroup = cells.filter((cell) => cell.group === group);
      if (inGroup.length === 0) continue;
      out.push(GROUP_TITLES[group], ...renderTable(inGroup), '');
    }
    for (const run of generated) out.push(`generated: ${run.runs} seed=${run.seed} ${run.name} (replay: ${run.replay})`);
    const passed = cells.filter((cell) => cell.pass).length;
    const lost = cells.reduce((sum, cell) => sum + cell.lost, 0);
    const duplicated = cells.reduce((sum, cell) => sum + cell.duplicated, 0);
    const generatedRuns = generated.reduce((sum, run) => sum + run.runs, 0);
    out.push(`faults: scenarios=${cells.length} generated=${generatedRuns} passed=${passed} lost=${lost} duplicated=${duplicated} crashes=${crashes}`);
    process.stdout.write(`${out.join('\n')}\n`);
  }
}
