import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Keyv from 'keyv';
import { afterEach, describe, expect, it } from 'vitest';
import { verifySqliteStores } from '../../src/store/sqlite-file.ts';
import { openStore } from '../../src/store/open-store.ts';

/** Writing a deleted store file back (src/store/sqlite-file.ts) on a real SQLite file, with writes going on meanwhile. */

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a store file written back while written to', () => {
  it('loses no write made before, during or after the copy, on any connection to the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wotd-store-file-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'store.sqlite');
    const url = `sqlite://${file}`;
    // Two namespaces: two connections to one file, as the bot has (subscriptions, deliveries, cache...).
    const stores = [await openStore<number>(url, 'first'), await openStore<number>(url, 'second')];
    const writes: Array<Promise<boolean>> = [];
    const written: Array<{ store: Keyv<number>; key: string }> = [];
    const writeSome = (round: number, count: number): void => {
      for (let i = 0; i < count; i += 1) {
        for (const store of stores) {
          const key = `r${round}-k${i}`;
          written.push({ store, key });
          writes.push(store.set(key, round * 1_000 + i));
        }
      }
    };
    writeSome(0, 200);
    await Promise.all(writes);
    rmSync(file);
    // Writes asked for before, along with and after the write-back, in small turns so they interleave with it.
    writeSome(1, 50);
    const restored = verifySqliteStores();
    for (let round = 2; round < 12; round += 1) {
      writeSome(round, 20);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await restored).toEqual([file]);
    writeSome(12, 50);
    expect(await Promise.all(writes)).toEqual(writes.map(() => true));
    for (const store of stores) await store.disconnect();
    expect(existsSync(file)).toBe(true);

    const reopened = [await openStore<number>(url, 'first'), await openStore<number>(url, 'second')];
    cleanups.push(async () => {
      for (const store of reopened) await store.disconnect();
    });
    const missing: string[] = [];
    for (const { store, key } of written) {
      const again = reopened[stores.indexOf(store)] as Keyv<number>;
      if ((await again.get(key)) === undefined) missing.push(`${stores.indexOf(store)}:${key}`);
    }
    expect(missing, `${missing.length} of ${written.length} writes lost`).toEqual([]);
  });
});
