import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import { runNotingWrites, StoreWatch, type WriteTrace } from '../../src/store/store-watch.ts';

/**
 * runNotingWrites tells a command's store failure "nothing was changed" from "partly done". Work runs inside an
 * AsyncLocalStorage only once a store that notes its writes exists (its promise hooks cost every promise after);
 * these check that the traces are still each work's own, whenever the store was made.
 */
/** Work run noting its writes, and its trace. */
function traced<T>(work: () => Promise<T>): { trace: WriteTrace; done: Promise<T> } {
  const trace: WriteTrace = { wrote: false };
  return { trace, done: runNotingWrites(trace, work) };
}

describe('runNotingWrites', () => {
  let dir: string;
  let keyv: Keyv<unknown>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'store-watch-'));
    keyv = await openStore(`sqlite://${join(dir, 'store.sqlite')}`, 'watched');
  });
  afterAll(async () => {
    await keyv.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the work and gives its result, with nothing written, before any store notes writes', async () => {
    const { trace, done } = traced(async () => {
      await keyv.set('plain', 1);
      return 'answered';
    });
    await expect(done).resolves.toBe('answered');
    expect(trace.wrote).toBe(false);
  });

  it("marks only the trace of the work whose write went through, with other work running beside it", async () => {
    const watch = new StoreWatch('watched', { read: () => keyv.get('health-check') }).notesWrites();
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const writer = traced(async () => {
      await gate;
      await watch.run('write', () => keyv.set('written', 'yes'));
    });
    const reader = traced(async () => {
      await gate;
      return watch.run('read', () => keyv.get('written'));
    });
    release();
    await Promise.all([writer.done, reader.done]);
    expect(writer.trace.wrote).toBe(true);
    expect(reader.trace.wrote).toBe(false);
    expect(await keyv.get('written')).toBe('yes');
  });

  it('hands its arguments on to the work, in a trace or not', async () => {
    const trace: WriteTrace = { wrote: false };
    const watch = new StoreWatch('watched', { read: () => keyv.get('health-check') }).notesWrites();
    const write = (key: string, value: number) => watch.run('write', () => keyv.set(key, value));
    await runNotingWrites(trace, write, 'argued', 7);
    expect(trace.wrote).toBe(true);
    expect(await keyv.get('argued')).toBe(7);
  });

  it('a write that failed marks nothing', async () => {
    const watch = new StoreWatch('watched', { read: () => keyv.get('health-check') }).notesWrites();
    const failing = traced(() => watch.run('write', () => Promise.reject(new Error('disk full'))));
    await expect(failing.done).rejects.toThrow('the watched store failed (write): disk full');
    expect(failing.trace.wrote).toBe(false);
  });
});
