import { afterEach, describe, expect, it } from 'vitest';
import type Keyv from 'keyv';
import { LeaseLostError } from '../../src/store/lease-fence.ts';
import { openStore } from '../../src/store/open-store.ts';
import { RedisLock } from '../../src/store/redis-lock.ts';
import { storeErrorIn } from '../../src/store/store-watch.ts';
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

  describe('a change longer than the lease (issue 31)', () => {
    const LEASE_MS = 600;
    const stores: Keyv[] = [];
    afterEach(async () => {
      await Promise.all(stores.splice(0).map((store) => store.disconnect()));
    });

    async function counterStore(): Promise<Keyv<number>> {
      const store = await openStore<number>(redis.location, 'lease-test', { throwOnErrors: true });
      stores.push(store);
      return store;
    }

    async function openShort(): Promise<RedisLock> {
      const lock = await RedisLock.open(redisTestUrl ?? '', redis.prefix, undefined, LEASE_MS);
      locks.push(lock);
      return lock;
    }

    /** A read-modify-write of the counter under the lock, taking `holdMs` between the read and the write. */
    const increment = (lock: RedisLock, store: Keyv<number>, hold: () => Promise<void>) =>
      lock.withLock('counter', async () => {
        const value = (await store.get('n')) ?? 0;
        await hold();
        await store.set('n', value + 1);
      });

    it('running while its process runs: renewed, so no other process gets in and no increment is lost', async () => {
      const [first, second, store] = await Promise.all([openShort(), openShort(), counterStore()]);
      const slow = increment(first, store, () => new Promise((resolve) => setTimeout(resolve, 3 * LEASE_MS)));
      await new Promise((resolve) => setTimeout(resolve, 50));
      await Promise.all([slow, increment(second, store, async () => undefined)]);
      expect(await store.get('n')).toBe(2);
    });

    it('its process paused past the lease: writes nothing when it resumes, and the other process\'s change stands', async () => {
      const [first, second, store] = await Promise.all([openShort(), openShort(), counterStore()]);
      // The whole thread stops, timers and renewals included, as under SIGSTOP; Redis's clock goes on.
      const paused = increment(first, store, async () => {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2 * LEASE_MS);
        // Meanwhile the lease ran out and the other process took the lock and made its change.
        await increment(second, store, async () => undefined);
      });
      // A failed write like any other (a StoreError, counted), caused by the lease.
      const error = await paused.then(() => null, (reason: unknown) => reason);
      expect(storeErrorIn(error)?.cause).toBeInstanceOf(LeaseLostError);
      // The other process's increment stands, and the paused one's stale read did not overwrite it.
      expect(await store.get('n')).toBe(1);
    });
  });
});
