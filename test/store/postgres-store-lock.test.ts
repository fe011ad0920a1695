import { afterEach, expect, it } from 'vitest';
import { lockPostgresStore } from '../../src/store/postgres-store-lock.ts';
import type { StoreLock } from '../../src/store/sqlite-store-lock.ts';
import { StoreInUseError } from '../../src/store/sqlite-store-lock.ts';
import { describePostgres, usePostgresSchema } from '../support/postgres.ts';

/**
 * The PostgreSQL store's lock between modes (the processes themselves: sqlite-store-lock.test.ts): one bot outside
 * cluster mode holds it alone; cluster members share it, and neither kind starts beside the other.
 */

const held: StoreLock[] = [];
afterEach(async () => {
  await Promise.all(held.splice(0).map((lock) => lock.release()));
});

describePostgres("the PostgreSQL store's lock", () => {
  const pg = usePostgresSchema();
  const take = async (shared: boolean) => {
    const lock = await lockPostgresStore(pg.url, { shared, waitMs: 300 });
    held.push(lock);
    return lock;
  };

  it('is shared by cluster members, and keeps a bot outside cluster mode from starting beside them', async () => {
    const members = [await take(true), await take(true)];
    await expect(take(false)).rejects.toBeInstanceOf(StoreInUseError);
    for (const member of members) await member.release();
    const alone = await take(false);
    await expect(take(true)).rejects.toThrow(/^the store postgres:\/\/\*\*\*@.* is in use by another wotd-bot process \(pid \d+\); run one bot per PostgreSQL store/);
    await alone.release();
    await take(true);
  });

  it('is per schema: a store in another schema is locked apart', async () => {
    await take(false);
    const other = new URL(pg.url);
    other.searchParams.set('options', '-c search_path=public');
    const elsewhere = await lockPostgresStore(other.href, { waitMs: 300 });
    await elsewhere.release();
  });
});
