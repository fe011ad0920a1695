import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../config/logger.ts';
import type { TurnPriority } from '../schedule/poster.ts';

/**
 * Keeps the whole cluster under Discord's global limit (50 requests a second per bot token). Every request that
 * counts toward that limit takes a turn here immediately before it is sent, and hands it back when its answer
 * arrives (see gatedMakeRequest in src/discord/client.ts): the daily posts, their threads and publications, channel
 * reads, DM channels, the log-in's own calls, and discord.js's retries after a 429. Interaction responses are not
 * bound to the global limit and take no turn.
 *
 * Discord counts a request in the second it arrives, which is somewhere between the moment it is sent and the
 * moment its answer comes back: on a busy host that can be most of a second later than the turn. So a turn holds
 * its place from the moment it is given until one second after the request's answer (its "end"), and a turn is
 * given only while fewer than `perSecond` turns are held. Then no 1,000 ms (however Discord aligns its seconds) can
 * receive more than `perSecond` requests: of the requests arriving in one, the last given was given while all the
 * others were already given and not yet a second past their answers. A slow request (or a stalled Discord) only
 * slows the pace; it cannot push the requests of one second into the next on top of that second's own.
 *
 * The turns are one sorted set in Redis, scored by their end on Redis's clock (while in flight: the turn plus the
 * longest discord.js waits for an answer), written by one Lua script, so every process agrees on the count. Each
 * process asks for all the turns its waiting requests need, and reports the answers that came back, in one round
 * trip.
 *
 * A turn has a priority (TurnPriority), as in the one process's pace (src/discord/post-pace.ts): the turns Redis
 * gives this process go to its `first` requests, and to `after` ones (pins) only when no `first` waits here. The
 * cluster's count has no priorities: a pin of one process may take a turn another process's post waits for.
 *
 * While Redis is unreachable this process paces itself at `outagePerSecond` (a small share, logged once): the daily
 * posts pause anyway (their claims need Redis), and the rest of the bot keeps its few calls within the limit.
 */

export interface ClusterPacerOptions {
  redis: Redis;
  prefix: string;
  /** Turns held at once across the cluster: requests in any second. Default 47 (a little under 50). */
  perSecond?: number;
  /** This process's own pace while Redis is unreachable; default 5 a second. */
  outagePerSecond?: number;
  logger?: Logger;
}

/** A turn under the global limit; `done` once the request's answer (or its failure) is in. */
export type GlobalTurn = { done(): void };
export type TakeGlobalTurn = (priority?: TurnPriority) => Promise<GlobalTurn>;

export const CLUSTER_POSTS_PER_SECOND = 47;
const DEFAULT_OUTAGE_PER_SECOND = 5;
const WINDOW_MS = 1_000;
/** A turn whose answer was never reported (its process died) is held this long: discord.js's request timeout. */
const IN_FLIGHT_MS = 15_000;
/** An ask Redis does not answer in this long counts as Redis being unreachable. */
const ASK_TIMEOUT_MS = 2_000;
/** Longest wait before asking again while all turns are held (other processes' answers free turns too). */
const MAX_WAIT_MS = 250;
/** Waiters woken at once spread their next ask over a few milliseconds. */
const JITTER_MS = 10;

/**
 * KEYS[1]: the turns (a sorted set of ends, ms by Redis's clock). ARGV: turns held at most, window ms, in-flight
 * ms, turns wanted, a unique member prefix, then the members whose answers came back. Returns {turns given, ms to
 * wait before asking again}.
 */
const TAKE_TURNS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local inflight = tonumber(ARGV[3])
local wanted = tonumber(ARGV[4])
for i = 6, #ARGV do redis.call('ZADD', KEYS[1], 'XX', now + window, ARGV[i]) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. now)
if wanted <= 0 then return {0, 0} end
local free = limit - redis.call('ZCARD', KEYS[1])
if free <= 0 then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(first[2]) + 1 - now}
end
local given = math.min(free, wanted)
for i = 1, given do redis.call('ZADD', KEYS[1], now + inflight + window, ARGV[5] .. i) end
redis.call('PEXPIRE', KEYS[1], inflight + window * 2)
return {given, 0}
`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

export function createClusterPacer(options: ClusterPacerOptions): TakeGlobalTurn {
  const perSecond = Math.max(1, Math.floor(options.perSecond ?? CLUSTER_POSTS_PER_SECOND));
  const outagePerSecond = Math.max(1, options.outagePerSecond ?? DEFAULT_OUTAGE_PER_SECOND);
  const outageSpacing = WINDOW_MS / outagePerSecond;
  const key = `${options.prefix}discord-global-turns`;
  const self = randomUUID();
  const waiting: Record<TurnPriority, Array<(turn: GlobalTurn) => void>> = { first: [], after: [] };
  const waitingCount = () => waiting.first.length + waiting.after.length;
  /** The next waiter to be given a turn: `after` ones only when no `first` waits. */
  const nextWaiter = () => waiting.first.shift() ?? waiting.after.shift();
  /** Members whose answers came back, to report at the next ask. */
  let answered: string[] = [];
  let asks = 0;
  let syncing = false;
  let down = false;
  let nextOutageTurn = 0;
  /** Ends a wait early when an answer comes back, so it is reported (and its turn freed) soon. */
  let wake: (() => void) | null = null;

  const ask = async (wanted: number, report: string[]): Promise<{ given: number; waitMs: number; prefix: string }> => {
    asks += 1;
    const prefix = `${self}:${asks}:`;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ASK_TIMEOUT_MS} ms`)), ASK_TIMEOUT_MS);
    });
    const answer = options.redis.eval(TAKE_TURNS, 1, key, perSecond, WINDOW_MS, IN_FLIGHT_MS, wanted, prefix, ...report);
    answer.catch(() => undefined);
    const [given, waitMs] = (await Promise.race([answer, timeout]).finally(() => clearTimeout(timer))) as [number, number];
    return { given, waitMs, prefix };
  };

  const turnFor = (member: string): GlobalTurn => {
    let finished = false;
    return {
      done() {
        if (finished) return;
        finished = true;
        answered.push(member);
        wake?.();
        if (!syncing) void sync();
      },
    };
  };

  const outageTurn = async (): Promise<void> => {
    const now = performance.now();
    nextOutageTurn = Math.max(nextOutageTurn, now);
    const at = nextOutageTurn;
    nextOutageTurn += outageSpacing;
    await sleep(at - now);
    nextWaiter()?.({ done: () => undefined });
  };

  const sync = async (): Promise<void> => {
    syncing = true;
    try {
      while (waitingCount() > 0 || answered.length > 0) {
        const report = answered;
        answered = [];
        let reply: { given: number; waitMs: number; prefix: string };
        try {
          reply = await ask(Math.min(waitingCount(), perSecond), report);
          if (down) {
            down = false;
            options.logger?.info("shared pace under Discord's global limit is back (Redis)");
          }
        } catch (error) {
          if (!down) {
            down = true;
            options.logger?.warn({ err: error, perSecond: outagePerSecond }, "shared pace under Discord's global limit unavailable (Redis); this process paces itself");
          }
          // Turns given before the outage run out by themselves (IN_FLIGHT_MS).
          if (waitingCount() > 0) await outageTurn();
          continue;
        }
        if (reply.given > 0) {
          // Decided now, not when asked: a post that came while the ask was under way goes before a pin.
          for (let index = 1; index <= reply.given; index += 1) nextWaiter()?.(turnFor(`${reply.prefix}${index}`));
          continue;
        }
        if (waitingCount() === 0) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(reply.waitMs, MAX_WAIT_MS) + Math.random() * JITTER_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = null;
      }
    } finally {
      syncing = false;
    }
  };

  return (priority = 'first') =>
    new Promise<GlobalTurn>((resolve) => {
      waiting[priority].push(resolve);
      if (!syncing) void sync();
    });
}
