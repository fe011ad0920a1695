import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter } from '../../src/service/rate-limit.ts';

describe('FixedWindowLimiter', () => {
  it('opens a window at the first request and refuses past the limit until it ends', () => {
    const limiter = new FixedWindowLimiter(2, 60_000);
    expect(limiter.take('a', 1_000)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 });
    expect(limiter.take('a', 30_000)).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 31 });
    expect(limiter.take('a', 60_999)).toEqual({ allowed: false, limit: 2, remaining: 0, resetSeconds: 1 });
    expect(limiter.take('b', 60_999)).toMatchObject({ allowed: true, remaining: 1 });
    expect(limiter.take('a', 61_000)).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 });
  });

  it('starts a new window when the clock goes backwards, so a window never outlasts its length', () => {
    const limiter = new FixedWindowLimiter(1, 60_000);
    expect(limiter.take('a', 100_000).allowed).toBe(true);
    expect(limiter.take('a', 100_001).allowed).toBe(false);
    expect(limiter.take('a', 50_000).allowed).toBe(true);
  });

  it('forgets expired windows', () => {
    const limiter = new FixedWindowLimiter(1, 60_000);
    for (let i = 0; i < 1000; i += 1) limiter.take(`client-${i}`, 0);
    limiter.take('late', 120_000);
    const windows = (limiter as unknown as { windows: Map<string, unknown> }).windows;
    expect([...windows.keys()]).toEqual(['late']);
  });
});

describe('FixedWindowLimiter under a flood of clients', () => {
  it('never holds more than maxClients windows, forgetting the oldest live one first', () => {
    const limiter = new FixedWindowLimiter(1, 60_000, 100);
    for (let i = 0; i < 250; i += 1) expect(limiter.take(`client-${i}`, 1_000 + i).allowed).toBe(true);
    expect(limiter.size).toBe(100);
    // The newest clients are still counted; the oldest were forgotten and start afresh.
    expect(limiter.take('client-249', 2_000).allowed).toBe(false);
    expect(limiter.take('client-0', 2_000).allowed).toBe(true);
    expect(limiter.size).toBe(100);
  });

  it('makes room from expired windows before forgetting live ones', () => {
    const limiter = new FixedWindowLimiter(1, 60_000, 3);
    limiter.take('old-1', 0);
    limiter.take('old-2', 0);
    limiter.take('live', 59_000);
    limiter.take('new', 61_000);
    expect(limiter.size).toBe(2);
    expect(limiter.take('live', 61_500).allowed).toBe(false);
  });

  it('keeps a restarted window as the newest', () => {
    const limiter = new FixedWindowLimiter(1, 60_000, 2);
    limiter.take('a', 0);
    limiter.take('b', 10_000);
    limiter.take('a', 60_000);
    limiter.take('c', 65_000);
    // b's window was the oldest live one, so b was forgotten; a (restarted at 60 s) is still counted.
    expect(limiter.take('a', 66_000).allowed).toBe(false);
    expect(limiter.take('b', 66_000).allowed).toBe(true);
  });
});
