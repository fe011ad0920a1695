import { randomUUID } from 'node:crypto';
import { emptyCounts, isIndexedState, type DeliveryWrite, type DueEntry, type DueIndex, type DueMove, type IndexedState } from './due-index.ts';

/**
 * The due-time index of a Redis store, on the store's own connection (@keyv/redis's client), under the store's key
 * prefix: `due-index:at`, a sorted set of channel ids scored by their instant (a disabled one has no score);
 * `due-index:state`, a hash of every indexed channel's state; `due-index:counts`, entries per state;
 * `due-index:meta`; and, while a tick works through what is due, `due-index:pass:<id>`, its snapshot. Every change is
 * one Lua script, so the set, the hash and the counts change together, and a delivery record is written by the same
 * script as its move.
 */

interface CommandClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** Takes one off a state's count; a count of 0 is not kept, so an emptied index leaves no key behind. */
const UNCOUNT = `
local function uncount(state)
  if redis.call('HINCRBY', KEYS[3], state, -1) <= 0 then redis.call('HDEL', KEYS[3], state) end
end`;

const PUT = `
${UNCOUNT}
local missing = ARGV[1] == 'missing'
for i = 2, #ARGV, 3 do
  local id, at, state = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local old = redis.call('HGET', KEYS[2], id)
  if not (missing and old) then
    if old then uncount(old) end
    redis.call('HSET', KEYS[2], id, state)
    redis.call('HINCRBY', KEYS[3], state, 1)
    if at == '' then redis.call('ZREM', KEYS[1], id) else redis.call('ZADD', KEYS[1], at, id) end
  end
end`;

const REMOVE_ONE = `${UNCOUNT}
local function remove(id)
  redis.call('ZREM', KEYS[1], id)
  local old = redis.call('HGET', KEYS[2], id)
  if old then
    redis.call('HDEL', KEYS[2], id)
    uncount(old)
  end
end`;

const REMOVE = `${REMOVE_ONE}
for i = 1, #ARGV do remove(ARGV[i]) end`;

/** ARGV from `first`: triples of channel id, the instant it must still have, and the new one ('' deletes it). */
const MOVE_FROM = (first: number) => `${REMOVE_ONE}
for i = ${first}, #ARGV, 3 do
  local id = ARGV[i]
  local score = redis.call('ZSCORE', KEYS[1], id)
  if score and tonumber(score) == tonumber(ARGV[i + 1]) then
    if ARGV[i + 2] == '' then remove(id) else redis.call('ZADD', KEYS[1], ARGV[i + 2], id) end
  end
end`;

const MOVE = MOVE_FROM(1);
/** KEYS[4]: the delivery record's key; ARGV[1] its value; then one move. */
const WRITE_WITH_DELIVERY = `redis.call('SET', KEYS[4], ARGV[1])
${MOVE_FROM(2)}`;

/** Ids one script or read handles at most. */
const BATCH = 500;

/** KEYS[1] the index, KEYS[2] the pass's snapshot of what is due at ARGV[1], expiring after ARGV[2] ms; its size. */
const SNAPSHOT = `local n = redis.call('ZRANGESTORE', KEYS[2], KEYS[1], '-inf', ARGV[1], 'BYSCORE')
if n > 0 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return n`;

/** How long a pass's snapshot outlives its last page read, should the process stop without deleting it. */
const PASS_TTL_MS = 15 * 60_000;

export class RedisDueIndex implements DueIndex {
  private readonly keys: [at: string, state: string, counts: string];
  private readonly metaKey: string;
  private readonly passPrefix: string;

  /** `prefix`: the store's key prefix (REDIS_KEY_PREFIX). */
  constructor(
    private readonly client: CommandClient,
    prefix: string,
  ) {
    this.keys = [`${prefix}due-index:at`, `${prefix}due-index:state`, `${prefix}due-index:counts`];
    this.metaKey = `${prefix}due-index:meta`;
    this.passPrefix = `${prefix}due-index:pass:`;
  }

  private script(script: string, args: readonly string[], extraKeys: readonly string[] = []): Promise<unknown> {
    const keys = [...this.keys, ...extraKeys];
    return this.client.sendCommand(['EVAL', script, String(keys.length), ...keys, ...args]);
  }

  /**
   * A pass over what is due reads a snapshot of it (ZRANGESTORE into a key of its own, which expires if the process
   * dies mid-pass), page by page by rank: the moves made while the pages are worked through shift no page, and the
   * process holds one page at a time however many are due (the first pass after an upgrade finds every entry due).
   */
  async *due(at: number, pageSize: number): AsyncGenerator<Array<{ channelId: string; dueAt: number }>> {
    const size = Math.max(1, Math.floor(pageSize));
    const snapshot = `${this.passPrefix}${randomUUID()}`;
    const count = Number(await this.client.sendCommand(['EVAL', SNAPSHOT, '2', this.keys[0], snapshot, String(at), String(PASS_TTL_MS)]));
    if (!(count > 0)) return;
    try {
      for (let start = 0; start < count; start += size) {
        const reply = (await this.client.sendCommand(['ZRANGE', snapshot, String(start), String(start + size - 1), 'WITHSCORES'])) as string[];
        const page: Array<{ channelId: string; dueAt: number }> = [];
        for (let i = 0; i + 1 < reply.length; i += 2) page.push({ channelId: String(reply[i]), dueAt: Number(reply[i + 1]) });
        if (page.length === 0) return;
        await this.client.sendCommand(['PEXPIRE', snapshot, String(PASS_TTL_MS)]);
        yield page;
      }
    } finally {
      await this.client.sendCommand(['DEL', snapshot]);
    }
  }

  async get(channelIds: readonly string[]): Promise<Map<string, DueEntry>> {
    const found = new Map<string, DueEntry>();
    for (let start = 0; start < channelIds.length; start += BATCH) {
      const ids = channelIds.slice(start, start + BATCH);
      const [states, scores] = await Promise.all([
        this.client.sendCommand(['HMGET', this.keys[1], ...ids]) as Promise<Array<string | null>>,
        this.client.sendCommand(['ZMSCORE', this.keys[0], ...ids]) as Promise<Array<string | null>>,
      ]);
      ids.forEach((channelId, i) => {
        const state = states[i];
        const score = scores[i];
        if (isIndexedState(state)) found.set(channelId, { channelId, state, dueAt: score === null || score === undefined ? null : Number(score) });
      });
    }
    return found;
  }

  put(entries: readonly DueEntry[]): Promise<void> {
    return this.putAs('replace', entries);
  }

  putMissing(entries: readonly DueEntry[]): Promise<void> {
    return this.putAs('missing', entries);
  }

  private async putAs(mode: 'replace' | 'missing', entries: readonly DueEntry[]): Promise<void> {
    for (let start = 0; start < entries.length; start += BATCH) {
      const batch = entries.slice(start, start + BATCH);
      await this.script(PUT, [mode, ...batch.flatMap((entry) => [entry.channelId, entry.dueAt === null ? '' : String(entry.dueAt), entry.state])]);
    }
  }

  async move(moves: readonly DueMove[]): Promise<void> {
    for (let start = 0; start < moves.length; start += BATCH) {
      await this.script(MOVE, moves.slice(start, start + BATCH).flatMap(moveArgs));
    }
  }

  async remove(channelIds: readonly string[]): Promise<void> {
    for (let start = 0; start < channelIds.length; start += BATCH) await this.script(REMOVE, channelIds.slice(start, start + BATCH));
  }

  async *entries(pageSize: number): AsyncGenerator<DueEntry[]> {
    let cursor = '0';
    do {
      const [next, flat] = (await this.client.sendCommand(['HSCAN', this.keys[1], cursor, 'COUNT', String(pageSize)])) as [string, string[]];
      cursor = String(next);
      const ids: string[] = [];
      for (let i = 0; i + 1 < flat.length; i += 2) ids.push(String(flat[i]));
      if (ids.length > 0) yield [...(await this.get(ids)).values()];
    } while (cursor !== '0');
  }

  async counts(): Promise<Record<IndexedState, number>> {
    const flat = (await this.client.sendCommand(['HGETALL', this.keys[2]])) as string[];
    const counts = emptyCounts();
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const state = flat[i];
      if (isIndexedState(state)) counts[state] = Number(flat[i + 1]);
    }
    return counts;
  }

  async writeWithDelivery(record: DeliveryWrite, move: DueMove): Promise<void> {
    await this.script(WRITE_WITH_DELIVERY, [record.serialized, ...moveArgs(move)], [record.storedKey]);
  }

  async builtFor(): Promise<string | null> {
    const value = await this.client.sendCommand(['HGET', this.metaKey, 'built']);
    return typeof value === 'string' ? value : null;
  }

  async setBuiltFor(mark: string | null): Promise<void> {
    await this.client.sendCommand(mark === null ? ['HDEL', this.metaKey, 'built'] : ['HSET', this.metaKey, 'built', mark]);
  }

  /** The client is the store's, closed with it. */
  async close(): Promise<void> {}
}

function moveArgs({ channelId, from, to }: DueMove): string[] {
  return [channelId, String(from), to === null ? '' : String(to)];
}
