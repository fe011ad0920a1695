import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { limitHeapGrowth } from '../../src/cli/heap-growth.ts';

describe('limitHeapGrowth', () => {
  it('names flags this Node version has (setFlagsFromString would ignore an unknown one silently)', () => {
    const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    expect(options).toContain('--heap-growing-percent');
    expect(options).toContain('--semi-space-growth-factor');
  });

  it("leaves an operator's own setting on node's command line alone", () => {
    expect(limitHeapGrowth(['--heap-growing-percent=60'])).toEqual(['--semi-space-growth-factor']);
    expect(limitHeapGrowth(['--enable-source-maps', '--heap_growing_percent=20'])).toEqual(['--semi-space-growth-factor']);
    expect(limitHeapGrowth(['--max-semi-space-size=8'])).toEqual(['--heap-growing-percent']);
    expect(limitHeapGrowth(['--max_semi_space_size=8', '--heap-growing-percent=60'])).toEqual([]);
    expect(limitHeapGrowth(['--max-old-space-size=2048'])).toEqual(['--heap-growing-percent', '--semi-space-growth-factor']);
  });

  it('keeps the young generation at its starting size once set in a running process', () => {
    // 50,000 objects always alive while two million pass through: V8 would grow the young generation to its maximum.
    const newSpaceBytes = (limit: boolean) => {
      const script = [
        "const v8 = require('node:v8');",
        limit ? "v8.setFlagsFromString('--semi-space-growth-factor=1');" : '',
        'const keep = new Array(50000);',
        'for (let i = 0; i < 2000000; i++) keep[i % 50000] = { i, text: String(i) };',
        "process.stdout.write(String(v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size));",
      ].join('\n');
      return Number(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
    };
    expect(newSpaceBytes(false)).toBeGreaterThan(8 * 1024 * 1024);
    expect(newSpaceBytes(true)).toBeLessThanOrEqual(4 * 1024 * 1024);
  });
});
