import { describe, expect, it } from 'vitest';
import { Changes } from './wait.ts';

describe('Changes.until', () => {
  it('stops re-checking a wait whose signal aborted, rejecting with the reason', async () => {
    const changes = new Changes();
    let checks = 0;
    const stop = new AbortController();
    const waiting = changes.until(() => {
      checks++;
      return undefined;
    }, 'nothing', 60_000, stop.signal);
    changes.notify();
    expect(checks).toBe(2);
    const reason = new Error('the other wait answered first');
    stop.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    changes.notify();
    changes.notify();
    expect(checks).toBe(2);
  });

  it('refuses at once when the signal has already aborted, and resolves as before without one', async () => {
    const changes = new Changes();
    const stop = new AbortController();
    stop.abort();
    let checks = 0;
    await expect(changes.until(() => ++checks, 'anything', 1_000, stop.signal)).rejects.toThrow();
    expect(checks).toBe(0);
    let value: number | undefined;
    const waiting = changes.until(() => value, 'a value');
    value = 7;
    changes.notify();
    await expect(waiting).resolves.toBe(7);
  });
});
