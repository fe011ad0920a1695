import { describe, expect, it } from 'vitest';
import { ExpiringMap } from '../../src/config/expiring-map.ts';

describe('ExpiringMap', () => {
  it('answers a value for its time to live after it was written, then drops it', () => {
    let now = 0;
    const map = new ExpiringMap<string, number>(10, 5, () => now);
    map.set('a', 1);
    now = 9;
    expect(map.get('a')).toBe(1);
    map.set('b', 2);
    now = 10;
    expect(map.get('a')).toBeUndefined();
    expect(map.get('b')).toBe(2);
    map.delete('b');
    expect(map.get('b')).toBeUndefined();
  });

  it('forgets the oldest written when full, a key written again counting as its newest write and a read as none', () => {
    const map = new ExpiringMap<string, number>(10, 3, () => 0);
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    map.set('a', 4);
    expect(map.get('b')).toBe(2);
    map.set('d', 5);
    expect([map.get('a'), map.get('b'), map.get('c'), map.get('d')]).toEqual([4, undefined, 3, 5]);
    map.set('e', 6);
    expect([map.get('a'), map.get('c'), map.get('d'), map.get('e')]).toEqual([4, undefined, 5, 6]);
  });

  it('writing a key it holds when full forgets no other', () => {
    const map = new ExpiringMap<string, number>(10, 2, () => 0);
    map.set('a', 1);
    map.set('b', 2);
    map.set('b', 3);
    expect([map.get('a'), map.get('b')]).toEqual([1, 3]);
  });
});
