import { vi } from 'vitest';
import { runMigrateStore } from '../../src/cli/migrate-store.ts';

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** runMigrateStore in this process, with what it writes to stdout and stderr. */
export async function migrateHere(...args: string[]): Promise<Run> {
  const run: Run = { code: null, stdout: '', stderr: '' };
  const capture = (stream: 'stdout' | 'stderr') =>
    vi.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
      run[stream] += String(chunk);
      return true;
    });
  const spies = [capture('stdout'), capture('stderr')];
  try {
    run.code = await runMigrateStore(args);
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return run;
}
