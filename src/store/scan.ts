import KeyvSqlite from '@keyv/sqlite';
import type Keyv from 'keyv';

export type StoredEntry = [key: string, value: unknown];

/**
 * Every live entry of one Keyv namespace, in pages of about `pageSize`, keys without the namespace.
 *
 * @keyv/sqlite's own iterator pages with LIMIT/OFFSET and no ORDER BY (quadratic, and in no promised order), so
 * a SQLite store is read here by key ranges of its table instead, and a PostgreSQL one the same way. Other stores
 * use Keyv's iterator (on Redis a SCAN of the namespace's keys).
 */
export async function* scanNamespace(keyv: Keyv<unknown>, pageSize = 500): AsyncGenerator<StoredEntry[]> {
  const keyPages = keyPagesOf(keyv, pageSize);
  if (keyPages) {
    yield* scanByKeys(keyv, keyPages);
    return;
  }
  if (!keyv.iterator) throw new Error('this store cannot list its keys');
  let page: StoredEntry[] = [];
  for await (const [key, value] of keyv.iterator(undefined) as AsyncGenerator<[string, unknown]>) {
    page.push([key, value]);
    if (page.length >= pageSize) {
      yield page;
      page = [];
    }
  }
  if (page.length > 0) yield page;
}

/** Every key of one Keyv namespace, in pages; on SQLite and PostgreSQL without reading the values. */
export async function* scanNamespaceKeys(keyv: Keyv<unknown>, pageSize = 500): AsyncGenerator<string[]> {
  const keyPages = keyPagesOf(keyv, pageSize);
  if (keyPages) {
    const prefix = `${keyv.namespace ?? ''}:`;
    for await (const fullKeys of keyPages) yield fullKeys.map((key) => key.slice(prefix.length));
    return;
  }
  for await (const page of scanNamespace(keyv, pageSize)) yield page.map(([key]) => key);
}

/** Pages of the full keys (namespace included) of a SQLite or PostgreSQL namespace, by key ranges; null for other stores. */
function keyPagesOf(keyv: Keyv<unknown>, pageSize: number): AsyncGenerator<string[]> | null {
  const adapter: unknown = keyv.store;
  if (adapter instanceof KeyvSqlite) return sqliteKeyPages(keyv, adapter, pageSize);
  if (listsKeyPages(adapter)) {
    if (!keyv.namespace) throw new Error('a PostgreSQL store is scanned one namespace at a time');
    return adapter.keyPages(keyv.namespace, pageSize);
  }
  return null;
}

/** An adapter that pages through a namespace's keys itself, by key ranges (the PostgreSQL one, postgres-watched-store.ts). */
interface KeyPagedAdapter {
  keyPages(namespace: string, pageSize: number): AsyncGenerator<string[]>;
}

function listsKeyPages(adapter: unknown): adapter is KeyPagedAdapter {
  return typeof adapter === 'object' && adapter !== null && typeof (adapter as Partial<KeyPagedAdapter>).keyPages === 'function';
}

/** Pages of the full keys (namespace included) of a SQLite namespace, by key ranges; see scanNamespace. */
async function* sqliteKeyPages(keyv: Keyv<unknown>, adapter: KeyvSqlite, pageSize: number): AsyncGenerator<string[]> {
  const namespace = keyv.namespace;
  if (!namespace) throw new Error('a SQLite store is scanned one namespace at a time');
  const table = adapter.opts.table ?? 'keyv';
  // Keyv keeps "<namespace>:<key>"; every such key sorts after "<namespace>:" and before "<namespace>;".
  let after = `${namespace}:`;
  const before = `${namespace};`;
  for (;;) {
    const rows = (await adapter.query(
      `SELECT key FROM ${table} WHERE key > ? AND key < ? ORDER BY key LIMIT ?`,
      after,
      before,
      pageSize,
    )) as Array<{ key: string }>;
    const last = rows.at(-1);
    if (!last) return;
    yield rows.map((row) => row.key);
    after = last.key;
  }
}

async function* scanByKeys(keyv: Keyv<unknown>, keyPages: AsyncGenerator<string[]>): AsyncGenerator<StoredEntry[]> {
  const prefix = `${keyv.namespace ?? ''}:`;
  for await (const fullKeys of keyPages) {
    const keys = fullKeys.map((key) => key.slice(prefix.length));
    const values = await keyv.getMany(keys);
    const page: StoredEntry[] = [];
    keys.forEach((key, i) => {
      if (values[i] !== undefined) page.push([key, values[i]]);
    });
    if (page.length > 0) yield page;
  }
}
