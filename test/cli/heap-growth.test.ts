import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { limitHeapGrowth } from '../../src/cli/heap-growth.ts';

describe('limitHeapGrowth', () => {
  it('names a flag this Node version has (setFlagsFromString would ignore an unknown one silently)', () => {
    expect(execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' })).toContain('--heap-growing-percent');
  });

  it("leaves an operator's own setting on node's command line alone", () => {
    expect(limitHeapGrowth(['--heap-growing-percent=60'])).toBe(false);
    expect(limitHeapGrowth(['--enable-source-maps', '--heap_growing_percent=20'])).toBe(false);
    expect(limitHeapGrowth(['--max-old-space-size=2048'])).toBe(true);
  });
});
