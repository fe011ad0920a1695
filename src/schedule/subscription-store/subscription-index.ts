import type Keyv from 'keyv';
import type { StoreLock } from '../../store/lock.ts';
import { isStringArray, readIds } from './record-namespaces.ts';

/**
 * The `index:<n>` keys: INDEX_SHARDS lists that together hold every subscribed channel id, so listing everything
 * reads these and the subscriptions they name, and nothing else. Each shard is changed under its own lock, taken
 * after the server's.
 */
const INDEX_SHARDS = 32;

function shardOf(channelId: string): number {
  let hash = 2166136261;
  for (let i = 0; i < channelId.length; i += 1) hash = Math.imul(hash ^ channelId.charCodeAt(i), 16777619);
  return (hash >>> 0) % INDEX_SHARDS;
}

export class SubscriptionIndex {
  constructor(
    private readonly subscriptions: Keyv<unknown>,
    private readonly lock: StoreLock,
  ) {}

  async channelIds(): Promise<string[]> {
    const shards = await this.subscriptions.getMany(Array.from({ length: INDEX_SHARDS }, (_, n) => `index:${n}`));
    return shards.flatMap((shard) => (isStringArray(shard) ? shard : []));
  }

  /** The same ids a shard at a time, so that a pass over every channel holds one shard's, not all of them. */
  async *channelIdPages(): AsyncGenerator<string[]> {
    for (let n = 0; n < INDEX_SHARDS; n += 1) {
      const shard = await this.subscriptions.get(`index:${n}`);
      if (isStringArray(shard) && shard.length > 0) yield shard;
    }
  }

  async add(channelId: string): Promise<void> {
    const key = `index:${shardOf(channelId)}`;
    await this.lock.withLock(key, async () => {
      const shard = await readIds(this.subscriptions, key);
      if (!shard.includes(channelId)) await this.subscriptions.set(key, [...shard, channelId]);
    });
  }

  /** Adds many channels, reading and writing each shard once. */
  async addMany(channelIds: readonly string[]): Promise<void> {
    const byShard = new Map<number, string[]>();
    for (const channelId of channelIds) {
      const shard = shardOf(channelId);
      const group = byShard.get(shard) ?? [];
      group.push(channelId);
      byShard.set(shard, group);
    }
    for (const [shard, group] of byShard) {
      const key = `index:${shard}`;
      await this.lock.withLock(key, async () => {
        const ids = new Set(await readIds(this.subscriptions, key));
        const before = ids.size;
        for (const id of group) ids.add(id);
        if (ids.size > before) await this.subscriptions.set(key, [...ids]);
      });
    }
  }

  async remove(channelId: string): Promise<void> {
    const key = `index:${shardOf(channelId)}`;
    await this.lock.withLock(key, async () => {
      const shard = await readIds(this.subscriptions, key);
      if (shard.includes(channelId)) await this.subscriptions.set(key, shard.filter((id) => id !== channelId));
    });
  }
}
