import { describe, expect, it } from 'vitest';
import { parseShardIds, shardClientOptions, shardPlan, ShardPlanError } from '../../src/discord/shards.ts';

describe('shard plans', () => {
  it('runs one unsharded connection unless a count is given', () => {
    expect(shardPlan(undefined, undefined)).toEqual({ kind: 'single' });
    expect(shardPlan('', '')).toEqual({ kind: 'single' });
    expect(shardClientOptions({ kind: 'single' })).toEqual({});
  });

  it('takes auto, or a count with all or some of its ids', () => {
    expect(shardClientOptions(shardPlan('auto', undefined))).toEqual({ shards: 'auto' });
    expect(shardPlan('4', undefined)).toEqual({ kind: 'fixed', count: 4, ids: [0, 1, 2, 3] });
    expect(shardClientOptions(shardPlan('8', '4-7'))).toEqual({ shards: [4, 5, 6, 7], shardCount: 8 });
    expect(parseShardIds('0, 2,4-5,2', 6)).toEqual([0, 2, 4, 5]);
  });

  it('refuses what cannot be run, saying why', () => {
    const cases: Array<[string | undefined, string | undefined, RegExp]> = [
      ['0', undefined, /from 1 to 4096/],
      ['lots', undefined, /auto or a whole number/],
      ['auto', '0-1', /cannot be used with ids/],
      [undefined, '0-1', /need a shard count/],
      ['4', '2-5', /shard 5 does not exist: with 4 shards the ids are 0 to 3/],
      ['4', '3-1', /runs backwards/],
      ['4', 'one', /such as 0-3/],
    ];
    for (const [count, ids, message] of cases) {
      expect(() => shardPlan(count, ids)).toThrow(ShardPlanError);
      expect(() => shardPlan(count, ids)).toThrow(message);
    }
  });
});
