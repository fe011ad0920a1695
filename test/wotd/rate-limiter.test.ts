import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemTimers } from '../../src/wotd/clock.ts';
import type { Priority } from '../../src/wotd/lookup.ts';
import { RateLimiter, type Permit } from '../../src/wotd/rate-limiter.ts';

const START = Date.parse('2025-01-01T00:00:00Z');

function limiter(limit = 3, windowMs = 60_000): RateLimiter {
  return new RateLimiter({ limit, windowMs, now: () => Date.now(), timers: systemTimers });
}

/** Lets granted promises run their continuations. */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe('RateLimiter (fake timers)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(START);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('grants `limit` at once, then the next one window after the first finished', async () => {
    const rate = limiter(3);
    const granted: number[] = [];
    const permits: Permit[] = [];
    for (let i = 0; i < 5; i++) {
      void rate.enqueue('interactive').granted.then((permit) => {
        granted.push(Date.now() - START);
        permits.push(permit);
      });
    }
    await flush();
    expect(granted).toEqual([0, 0, 0]);
    vi.advanceTimersByTime(1_000);
    for (const permit of permits.splice(0)) permit.release();
    await flush();
    expect(granted).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(60_000 - 1);
    expect(granted).toHaveLength(3);
    await vi.advanceTimersByTimeAsync(1);
    expect(granted).toEqual([0, 0, 0, 61_000, 61_000]);
  });

  it('keeps a slot taken while its request is in flight', async () => {
    const rate = limiter(1);
    const first = await rate.enqueue('interactive').granted;
    let second = false;
    void rate.enqueue('interactive').granted.then(() => (second = true));
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(second).toBe(false);
    first.release();
    await vi.advanceTimersByTimeAsync(59_999);
    expect(second).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(second).toBe(true);
  });

  it('serves the queue scheduled first, then interactive, then background, each in arrival order', async () => {
    const rate = limiter(1);
    const blocker = await rate.enqueue('interactive').granted;
    const order: string[] = [];
    const wait = (priority: Priority, name: string) =>
      void rate.enqueue(priority).granted.then((permit) => {
        order.push(name);
        permit.release();
      });
    wait('background', 'b1');
    wait('interactive', 'i1');
    wait('scheduled', 's1');
    wait('interactive', 'i2');
    wait('scheduled', 's2');
    expect(rate.queued).toBe(5);
    blocker.release();
    await vi.advanceTimersByTimeAsync(5 * 60_000);
    expect(order).toEqual(['s1', 's2', 'i1', 'i2', 'b1']);
  });

  it('lets a raised ticket overtake and a cancelled one leave', async () => {
    const rate = limiter(1);
    const blocker = await rate.enqueue('scheduled').granted;
    const order: string[] = [];
    const a = rate.enqueue('interactive');
    const b = rate.enqueue('background');
    const c = rate.enqueue('interactive');
    void a.granted.then((permit) => (order.push('a'), permit.release()));
    void b.granted.then((permit) => (order.push('b'), permit.release()));
    void c.granted.then((permit) => (order.push('c'), permit.release()));
    b.raise('scheduled');
    c.cancel();
    expect(rate.queued).toBe(2);
    blocker.release();
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(order).toEqual(['b', 'a']);
  });

  it('holds everything back during a pause', async () => {
    const rate = limiter(5);
    rate.pause(Date.now() + 60_000);
    let granted = false;
    void rate.enqueue('scheduled').granted.then(() => (granted = true));
    await vi.advanceTimersByTimeAsync(59_999);
    expect(granted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(granted).toBe(true);
  });

  it('estimates when a new request would start', async () => {
    const rate = limiter(2);
    expect(rate.estimateStart('interactive')).toBe(START);
    const first = await rate.enqueue('interactive').granted;
    const second = await rate.enqueue('interactive').granted;
    vi.advanceTimersByTime(10_000);
    first.release();
    vi.advanceTimersByTime(5_000);
    second.release();
    expect(rate.estimateStart('interactive')).toBe(START + 70_000);
    void rate.enqueue('interactive');
    expect(rate.estimateStart('interactive')).toBe(START + 75_000);
    // A scheduled request jumps the queue, so it would start first.
    expect(rate.estimateStart('scheduled')).toBe(START + 70_000);
    rate.pause(START + 200_000);
    expect(rate.estimateStart('background')).toBe(START + 200_000);
  });

  it('rejects everyone waiting when closed', async () => {
    const rate = limiter(1);
    await rate.enqueue('interactive').granted;
    const waiting = rate.enqueue('interactive').granted;
    rate.close(new Error('closed'));
    await expect(waiting).rejects.toThrow('closed');
    await expect(rate.enqueue('scheduled').granted).rejects.toThrow('closed');
  });

  it('never lets more than `limit` start in any window under a steady stream', async () => {
    const rate = limiter(10);
    const starts: number[] = [];
    for (let i = 0; i < 60; i++) {
      void rate.enqueue(i % 3 === 0 ? 'background' : 'interactive').granted.then((permit) => {
        starts.push(Date.now());
        setTimeout(() => permit.release(), 250);
      });
    }
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    expect(starts).toHaveLength(60);
    for (let i = 10; i < starts.length; i++) expect((starts[i] ?? 0) - (starts[i - 10] ?? 0)).toBeGreaterThanOrEqual(60_000);
  });
});
