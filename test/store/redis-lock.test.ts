import { afterEach, expect, it } from 'vitest';
import { RedisLock } from '../../src/store/redis-lock.ts';
import { describeRedis, keysUnder, redisTestUrl, useRedisPrefix } from '../support/redis.ts';

const locks: RedisLock[] = [];
afterEach(async () => {
  await Promise.all(locks.splice(0).map((lock) => lock.close()));
});

it('reports an unreachable Redis in one line, without the password', async () => {
  await expect(RedisLock.open('redis://:hunter2@127.0.0.1:1', 'x:')).rejects.toThrow(
    /^could not reach Redis at redis:\/\/\*\*\*@127\.0\.0\.1:1: connect ECONNREFUSED/,
  );
});

describeRedis('RedisLock', () => {
  const redis = useRedisPrefix();

  async function open(): Promise<RedisLock> {
    const lock = await RedisLock.open(redisTestUrl ?? '', redis.prefix);
    locks.push(lock);
    return lock;
  }

  it('makes a second holder wait for the first, and frees the key afterwards', async () => {
    const [first, second] = await Promise.all([open(), open()]);
    const events: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held = first.withLock('guild:g1', async () => {
      // Scanning takes longer the more keys the server holds: look before saying "in", so release() always counts.
      expect(await keysUnder(redis.prefix)).toEqual([`mutex:${redis.prefix}guild:g1`]);
      events.push('first in');
      await gate;
      events.push('first out');
    });
    await expect.poll(() => events).toEqual(['first in']);
    const waiting = second.withLock('guild:g1', async () => void events.push('second in'));
    const other = second.withLock('guild:g2', async () => void events.push('other key in'));
    await other;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(events).toEqual(['first in', 'other key in']);
    release();
    await Promise.all([held, waiting]);
    expect(events).toEqual(['first in', 'other key in', 'first out', 'second in']);
    expect(await keysUnder(redis.prefix)).toEqual([]);
  });

  it('passes on the error of a failed change and releases the lock', async () => {
    const lock = await open();
    await expect(lock.withLock('guild:g1', async () => Promise.reject(new Error('write failed')))).rejects.toThrow('write failed');
    expect(await keysUnder(redis.prefix)).toEqual([]);
    expect(await lock.withLock('guild:g1', async () => 'again')).toBe('again');
  });
});
