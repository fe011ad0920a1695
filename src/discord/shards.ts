import { quoted } from '../config/message-text.ts';

/**
 * Which gateway shards this process runs. Discord requires a bot in more than 2,500 servers to shard; each shard
 * receives the events of the servers with `(guild_id >> 22) % count === id`. One process may run all shards
 * (`count` 'auto' takes Discord's recommendation), or several processes on several hosts may each run a range.
 */
export type ShardPlan = { kind: 'single' } | { kind: 'auto' } | { kind: 'fixed'; count: number; ids: number[] };

export class ShardPlanError extends Error {
  override readonly name = 'ShardPlanError';
}

const MAX_SHARDS = 4096;

/** "auto", or a whole number of shards from 1 to 4096. */
export function parseShardCount(text: string): 'auto' | number {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === 'auto') return 'auto';
  if (!/^\d+$/.test(trimmed) || Number(trimmed) < 1 || Number(trimmed) > MAX_SHARDS) {
    throw new ShardPlanError(`expected auto or a whole number of shards from 1 to ${MAX_SHARDS}, got ${quoted(text)}`);
  }
  return Number(trimmed);
}

/** "0-3", "5" or "0,2,4-6": shard ids, each below `count`, in ascending order without repeats. */
export function parseShardIds(text: string, count: number): number[] {
  const ids = new Set<number>();
  for (const part of text.split(',').map((piece) => piece.trim())) {
    const match = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (!match?.[1]) throw new ShardPlanError(`expected shard ids such as 0-3 or 0,2,4, got ${quoted(text)}`);
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (to < from) throw new ShardPlanError(`the range ${quoted(part)} runs backwards`);
    if (to >= count) throw new ShardPlanError(`shard ${to} does not exist: with ${count} shards the ids are 0 to ${count - 1}`);
    for (let id = from; id <= to; id += 1) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}

/** The plan from a shard count and (optionally) the ids this process runs; no count means one unsharded connection. */
export function shardPlan(countText: string | undefined, idsText: string | undefined): ShardPlan {
  if (countText === undefined || countText.trim() === '') {
    if (idsText !== undefined && idsText.trim() !== '') throw new ShardPlanError('shard ids need a shard count (DISCORD_SHARD_COUNT or --shards)');
    return { kind: 'single' };
  }
  const count = parseShardCount(countText);
  if (count === 'auto') {
    if (idsText !== undefined && idsText.trim() !== '') {
      throw new ShardPlanError('shard ids need a fixed shard count: every process must agree on it, so "auto" cannot be used with ids');
    }
    return { kind: 'auto' };
  }
  const ids = idsText === undefined || idsText.trim() === '' ? Array.from({ length: count }, (_, id) => id) : parseShardIds(idsText, count);
  return { kind: 'fixed', count, ids };
}

/** discord.js Client options for the plan. */
export function shardClientOptions(plan: ShardPlan): { shards?: number[] | 'auto'; shardCount?: number } {
  if (plan.kind === 'single') return {};
  if (plan.kind === 'auto') return { shards: 'auto' };
  return { shards: plan.ids, shardCount: plan.count };
}

export function describeShardPlan(plan: ShardPlan): string {
  if (plan.kind === 'single') return 'one unsharded connection';
  if (plan.kind === 'auto') return "all shards, as many as Discord recommends";
  return `shards ${plan.ids.join(', ')} of ${plan.count}`;
}
