import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type KeyvSqlite from '@keyv/sqlite';
import type Keyv from 'keyv';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, SQLITE_CACHE_KIB } from '../../src/store/open-store.ts';

/** The SQLite store's statement queue (src/store/sqlite-queue.ts), on real files. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempUrl(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wotd-sqlite-queue-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return `sqlite://${join(dir, 'store.sqlite')}`;
}

async function open(url: string): Promise<{ keyv: Keyv<unknown>; adapter: KeyvSqlite }> {
  const keyv = await openStore<unknown>(url, 'things');
  let closed = false;
  cleanups.push(async () => {
    if (!closed) await keyv.disconnect();
  });
  const disconnect = keyv.disconnect.bind(keyv);
  keyv.disconnect = async () => {
    closed = true;
    await disconnect();
  };
  return { keyv, adapter: keyv.opts.store as KeyvSqlite };
}

describe('the SQLite statement queue', () => {
  it('keeps a small page cache on each connection, not the 2 MB SQLite keeps by default', async () => {
    const { adapter } = await open(tempUrl());
    expect(await adapter.query('PRAGMA cache_size')).toEqual([{ cache_size: -SQLITE_CACHE_KIB }]);
    expect(SQLITE_CACHE_KIB).toBeLessThan(2_000);
  });

  it('stores a burst of writes, each resolved once stored, the later of two writes to a key winning', async () => {
    const url = tempUrl();
    const { keyv } = await open(url);
    const writes = Array.from({ length: 1_200 }, (_, i) => keyv.set(`k${i}`, { i }));
    writes.push(keyv.set('twice', 'first'), keyv.set('twice', 'second'));
    expect(await Promise.all(writes)).toEqual(writes.map(() => true));
    await keyv.disconnect();

    const { keyv: again } = await open(url);
    const read = await again.getMany(Array.from({ length: 1_200 }, (_, i) => `k${i}`));
    expect(read).toEqual(Array.from({ length: 1_200 }, (_, i) => ({ i })));
    expect(await again.get('twice')).toBe('second');
  });

  it('keeps the order statements were asked for: a read between two writes of a key sees the first', async () => {
    const { adapter } = await open(tempUrl());
    const first = adapter.set('things:k', JSON.stringify({ value: 'a' }));
    const between = adapter.get('things:k');
    const second = adapter.set('things:k', JSON.stringify({ value: 'b' }));
    await Promise.all([first, second]);
    expect(await between).toBe(JSON.stringify({ value: 'a' }));
    expect(await adapter.get('things:k')).toBe(JSON.stringify({ value: 'b' }));
  });

  it('rejects every write of a statement that fails, with the reason', async () => {
    const { adapter } = await open(tempUrl());
    await adapter.query('DROP TABLE keyv');
    const outcomes = await Promise.allSettled([adapter.set('things:a', '1'), adapter.set('things:b', '2')]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    for (const outcome of outcomes) if (outcome.status === 'rejected') expect(String(outcome.reason)).toMatch(/no such table: keyv/);
  });

  it('closes only after the statements already asked for', async () => {
    const url = tempUrl();
    const { keyv, adapter } = await open(url);
    const writes = Array.from({ length: 50 }, (_, i) => adapter.set(`things:k${i}`, JSON.stringify({ value: i })));
    await keyv.disconnect();
    await Promise.all(writes);
    const { keyv: again } = await open(url);
    expect(await again.get('k49')).toBe(49);
  });
});
