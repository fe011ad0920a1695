import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.ts';
import { StoreWatch, traceWrites } from '../../src/store/store-watch.ts';

/**
 * traceWrites tells a command's store failure "nothing was changed" from "partly done". Work runs inside an
 * AsyncLocalStorage only once a store that notes its writes exists (its promise hooks cost every promise after);
 * these check that the traces are still each work's own, whenever the store was made.
 */
describe('traceWrites', () => {
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
    const { trace, done } = traceWrites(async () => {
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
    const writer = traceWrites(async () => {
      await gate;
      await watch.run('write', () => keyv.set('written', 'yes'));
    });
    const reader = traceWrites(async () => {
      await gate;
      return watch.run('read', () => keyv.get('written'));
    });
    release();
    await Promise.all([writer.done, reader.done]);
    expect(writer.trace.wrote).toBe(true);
    expect(reader.trace.wrote).toBe(false);
    expect(await keyv.get('written')).toBe('yes');
  });

  it('a write that failed marks nothing', async () => {
    const watch = new StoreWatch('watched', { read: () => keyv.get('health-check') }).notesWrites();
    const failing = traceWrites(() => watch.run('write', () => Promise.reject(new Error('disk full'))));
    await expect(failing.done).rejects.toThrow('the watched store failed (write): disk full');
    expect(failing.trace.wrote).toBe(false);
  });
});
