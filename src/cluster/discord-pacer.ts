import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';

/**
 * Keeps the whole cluster under Discord's global limit (50 requests a second per bot token). Every request that
 * counts toward that limit takes a turn here first, immediately before it is sent (see gatedMakeRequest in
 * src/discord/client.ts): the daily posts, their threads and publications, channel reads, DM channels, the login's
 * own calls, and discord.js's retries after a 429. Interaction responses are not bound to the global limit and take
 * no turn.
 *
 * Turns are kept in one Redis sorted set, by Redis's clock, so every process agrees on the time:
 * - at most `perSecond` turns in any 1,000 ms, whatever second Discord counts in;
 * - turns are given only in the first `usableMs` of each second, so a request has the rest of that second to
 *   reach Discord before the next second's turns. A turn whose answer arrives after that part of the second (a
 *   busy process, a slow Redis) is given up and taken again, because a request sent that late could be counted in
 *   the next second on top of that second's own turns.
 * Each process asks for all the turns its waiting requests need in one round trip, so a fan-out's hundreds of
 * waiting requests cost a few Redis calls a second.
 *
 * While Redis is unreachable this process paces itself at `outagePerSecond` (a small share, logged once): the daily
 * posts pause anyway (their claims need Redis), and the rest of the bot keeps its few calls within the limit.
 */

export interface ClusterPacerOptions {
  redis: Redis;
  prefix: string;
  /** Turns in any second across the cluster; default 47 (a little under 50 for clock and timing slack). */
  perSecond?: number;
  /** How much of each second turns are given in; default 400 ms. */
  usableMs?: number;
  /** This process's own pace while Redis is unreachable; default 5 a second. */
  outagePerSecond?: number;
  logger?: Logger;
}

export const CLUSTER_POSTS_PER_SECOND = 47;
export const DEFAULT_USABLE_MS = 400;
const DEFAULT_OUTAGE_PER_SECOND = 5;
const WINDOW_MS = 1_000;
/** An ask Redis does not answer in this long counts as Redis being unreachable. */
const ASK_TIMEOUT_MS = 2_000;
/** Waiters woken at once spread their next ask over a few milliseconds. */
const JITTER_MS = 10;

/**
 * KEYS[1]: the turns (a sorted set, scores in ms by Redis's clock). ARGV: per-second limit, window ms, usable ms,
 * turns wanted, a unique member prefix. Returns {turns given, ms to wait before asking again, ms left to use them}.
 */
const TAKE_TURNS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local usable = tonumber(ARGV[3])
local wanted = tonumber(ARGV[4])
local into = now % 1000
if into >= usable then return {0, 1000 - into, 0} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window - 1)
local free = limit - redis.call('ZCARD', KEYS[1])
if free <= 0 then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) + window + 1 - now, 0}
end
local given = math.min(free, wanted)
for i = 1, given do redis.call('ZADD', KEYS[1], now, ARGV[5] .. i) end
redis.call('PEXPIRE', KEYS[1], window * 3)
return {given, 0, usable - into}
`;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

interface Waiter {
  resolve: () => void;
}

export function createClusterPacer(options: ClusterPacerOptions): () => Promise<void> {
  const perSecond = Math.max(1, Math.floor(options.perSecond ?? CLUSTER_POSTS_PER_SECOND));
  const usableMs = Math.min(WINDOW_MS - 1, Math.max(50, Math.floor(options.usableMs ?? DEFAULT_USABLE_MS)));
  const outageSpacing = WINDOW_MS / Math.max(1, options.outagePerSecond ?? DEFAULT_OUTAGE_PER_SECOND);
  const key = `${options.prefix}discord-global-turns`;
  const self = randomUUID();
  const waiting: Waiter[] = [];
  let asks = 0;
  let pumping = false;
  let down = false;
  let nextOutageTurn = 0;

  const ask = async (wanted: number): Promise<{ given: number; waitMs: number; usableUntil: number }> => {
    const askedAt = performance.now();
    asks += 1;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ASK_TIMEOUT_MS} ms`)), ASK_TIMEOUT_MS);
    });
    const answer = options.redis.eval(TAKE_TURNS, 1, key, perSecond, WINDOW_MS, usableMs, wanted, `${self}:${asks}:`);
    answer.catch(() => undefined);
    const reply = (await Promise.race([answer, timeout]).finally(() => clearTimeout(timer))) as [number, number, number];
    const [given, waitMs, usableLeft] = reply;
    // Measured from before the ask: Redis read its clock at or after askedAt, so this is never too late.
    return { given, waitMs, usableUntil: askedAt + usableLeft };
  };

  const pump = async (): Promise<void> => {
    pumping = true;
    try {
      while (waiting.length > 0) {
        let turn: { given: number; waitMs: number; usableUntil: number };
        try {
          turn = await ask(Math.min(waiting.length, perSecond));
          if (down) {
            down = false;
            options.logger?.info('shared pace under Discord\'s global limit is back (Redis)');
          }
        } catch (error) {
          if (!down) {
            down = true;
            options.logger?.warn(
              { err: error, perSecond: options.outagePerSecond ?? DEFAULT_OUTAGE_PER_SECOND },
              'shared pace under Discord\'s global limit unavailable (Redis); this process paces itself',
            );
          }
          const now = performance.now();
          nextOutageTurn = Math.max(nextOutageTurn, now);
          await sleep(nextOutageTurn - now);
          nextOutageTurn += outageSpacing;
          waiting.shift()?.resolve();
          continue;
        }
        if (turn.given > 0) {
          // Too late to use: the turns are given up, and taken again in a later second.
          if (performance.now() >= turn.usableUntil) continue;
          for (const waiter of waiting.splice(0, turn.given)) waiter.resolve();
          continue;
        }
        await sleep(turn.waitMs + Math.random() * JITTER_MS);
      }
    } finally {
      pumping = false;
    }
  };

  return () =>
    new Promise<void>((resolve) => {
      waiting.push({ resolve });
      if (!pumping) void pump();
    });
}
