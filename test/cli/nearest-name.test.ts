import { describe, expect, it } from 'vitest';
import { editDistance, nearestName } from '../../src/config/nearest-name.ts';

describe('the nearest name, for "did you mean"', () => {
  const commands = ['start', 'serve', 'deploy-commands', 'migrate-store', 'query', 'history', 'find'];

  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('hisotry', 'history')).toBe(1);
    expect(editDistance('qurey', 'query')).toBe(1);
    expect(editDistance('', 'find')).toBe(4);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests a near name, or the one name typed text begins, and nothing for another word', () => {
    expect(nearestName('hisotry', commands)).toBe('history');
    expect(nearestName('HISTORY', commands)).toBe('history');
    expect(nearestName('fnd', commands)).toBe('find');
    expect(nearestName('migrate', commands)).toBe('migrate-store');
    expect(nearestName('s', commands)).toBe(null);
    expect(nearestName('se', commands)).toBe('serve');
    expect(nearestName('qwertyuiop', commands)).toBe(null);
    expect(nearestName('x'.repeat(10_000), commands)).toBe(null);
  });
});
