import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import Keyv, { type KeyvStoreAdapter } from 'keyv';

/**
 * Opens one namespace of the bot's Keyv store from a STORE_URL:
 * `sqlite://path/to/file.sqlite` (the default), `memory://` for a throwaway store,
 * or any other scheme whose `@keyv/<scheme>` adapter is installed (redis://, postgres://, mysql://, mongodb://).
 */
export async function openStore<Value>(storeUrl: string, namespace: string): Promise<Keyv<Value>> {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(storeUrl)?.[1]?.toLowerCase();
  if (!scheme) throw new Error(`STORE_URL "${storeUrl}" is not a URL; expected e.g. sqlite://data/store.sqlite`);
  const keyv = new Keyv<Value>({ store: await adapterFor(scheme, storeUrl), namespace });
  return keyv;
}

async function adapterFor(scheme: string, storeUrl: string): Promise<KeyvStoreAdapter | Map<unknown, unknown>> {
  if (scheme === 'memory') return new Map();
  if (scheme === 'sqlite') return openSqlite(storeUrl);
  const packageName = `@keyv/${scheme === 'postgresql' ? 'postgres' : scheme === 'mongodb' ? 'mongo' : scheme}`;
  let module: { default?: unknown };
  try {
    module = (await import(packageName)) as { default?: unknown };
  } catch {
    throw new Error(`STORE_URL uses ${scheme}://, which needs the ${packageName} package: run npm install ${packageName}`);
  }
  const Adapter = module.default as new (uri: string) => KeyvStoreAdapter;
  return new Adapter(storeUrl);
}

async function openSqlite(storeUrl: string): Promise<KeyvStoreAdapter> {
  const path = storeUrl.replace(/^sqlite:\/\//i, '');
  if (path === '') throw new Error('STORE_URL "sqlite://" names no file; expected e.g. sqlite://data/store.sqlite');
  if (path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
  const adapter = new KeyvSqlite({ uri: `sqlite://${path}`, busyTimeout: 10_000 });
  // WAL lets readers (the cache) and writers (subscriptions) share the file without blocking each other.
  if (path !== ':memory:') await adapter.query('PRAGMA journal_mode=WAL');
  return adapter;
}
