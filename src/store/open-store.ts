import { assertRegularFile, sqliteAccessProblem } from '../config/path-kind.ts';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import KeyvSqlite from '@keyv/sqlite';
import Keyv, { type KeyvStoreAdapter } from 'keyv';
import { DEFAULT_REDIS_KEY_PREFIX, isPostgresUrl, isRedisUrl, withoutPassword, type Config } from '../config/settings.ts';
import { watchSqliteFile } from './sqlite-file.ts';
import { queueStatements } from './sqlite-queue.ts';
import { StoreWatch, type StoreCheck } from './store-watch.ts';
import type { WatchedKeyvRedis } from './redis-watched-store.ts';

/** Where the bot keeps its data: a store URL, and the prefix of every key it writes to Redis. */
export interface StoreLocation {
  url: string;
  keyPrefix?: string;
  /**
   * A Redis that holds the store's locks, for a store several processes share that is not itself Redis: a
   * PostgreSQL store in cluster mode. Unset, a store that is not Redis is locked in this process only.
   */
  lockRedisUrl?: string;
  /** The setting the URL came from (STORE_URL), named with it in messages about the store. */
  setting?: string;
}

/**
 * The one place that picks the store from the settings. STORE_URL, except in cluster mode (REDIS_URL set): there
 * the data is on that Redis, unless STORE_URL is PostgreSQL, which keeps it with the locks on Redis.
 */
export function storeLocation(config: Pick<Config, 'STORE_URL' | 'REDIS_URL' | 'REDIS_KEY_PREFIX'>): StoreLocation {
  if (!isPostgresUrl(config.STORE_URL)) {
    return config.REDIS_URL
      ? { url: config.REDIS_URL, keyPrefix: config.REDIS_KEY_PREFIX, setting: 'REDIS_URL' }
      : { url: config.STORE_URL, keyPrefix: config.REDIS_KEY_PREFIX, setting: 'STORE_URL' };
  }
  const location: StoreLocation = { url: config.STORE_URL, keyPrefix: config.REDIS_KEY_PREFIX, setting: 'STORE_URL' };
  return config.REDIS_URL ? { ...location, lockRedisUrl: config.REDIS_URL } : location;
}

/** The absolute path of a SQLite store's file; null for any other store, and for an in-memory SQLite one. */
export function sqliteStoreFile(where: string | StoreLocation): string | null {
  const url = typeof where === 'string' ? where : where.url;
  if (!/^sqlite:\/\//i.test(url)) return null;
  const path = sqlitePath(url);
  return path === '' || path === ':memory:' ? null : resolve(path);
}

export function isRedisStore(where: string | StoreLocation): boolean {
  return isRedisUrl(typeof where === 'string' ? where : where.url);
}

export function isPostgresStore(where: string | StoreLocation): boolean {
  return isPostgresUrl(typeof where === 'string' ? where : where.url);
}

export interface OpenStoreOptions {
  /**
   * Make every failed read or write reject instead of reading as a miss (Keyv's default only emits 'error'). Always
   * on for Redis and PostgreSQL, whose failures are also counted (see storeCheck).
   */
  throwOnErrors?: boolean;
}

/**
 * Opens one namespace of the bot's Keyv store:
 * `sqlite://path/to/file.sqlite` (the default), `memory://` for a throwaway store, `redis://` or `rediss://`
 * (keys `<keyPrefix><namespace>::<key>`), `postgres://` or `postgresql://` (rows `<namespace>:<key>` of the table
 * `keyv` in the connection's current schema), or any other scheme whose `@keyv/<scheme>` adapter is installed
 * (mysql://, mongodb://).
 */
export async function openStore<Value>(
  where: string | StoreLocation,
  namespace: string,
  options: OpenStoreOptions = {},
): Promise<Keyv<Value>> {
  const { url, keyPrefix = DEFAULT_REDIS_KEY_PREFIX, setting } = typeof where === 'string' ? { url: where, setting: undefined } : where;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (!scheme) throw new Error(`STORE_URL "${withoutPassword(url)}" is not a URL; expected e.g. sqlite://data/store.sqlite`);
  const throwOnErrors = options.throwOnErrors ?? false;
  if (scheme === 'redis' || scheme === 'rediss') return openRedis<Value>(url, `${keyPrefix}${namespace}`, namespace, setting);
  if (scheme === 'postgres' || scheme === 'postgresql') return openPostgres<Value>(url, namespace, setting);
  const keyv = new Keyv<Value>({ store: await adapterFor(scheme, url), namespace, throwOnErrors });
  const path = sqlitePath(url);
  if (scheme === 'sqlite' && path !== ':memory:') {
    watchSqliteFile(resolve(path), keyv as Keyv<unknown>, () => openSqliteConnection(url));
    sqliteFiles.set(keyv as Keyv<unknown>, resolve(path));
  }
  return keyv;
}

const REDIS_CONNECT_TIMEOUT_MS = 5_000;

/**
 * The health check and error counts of a store opened by openStore: on Redis its watch (every failed operation
 * counted); elsewhere one read of the adapter itself (through Keyv a failed read may come back as "nothing stored").
 */
export function storeCheck(keyv: Keyv<unknown>): StoreCheck {
  // The Redis and PostgreSQL adapters' (redis-watched-store.ts, postgres-watched-store.ts, each loaded only for its store).
  const watch: unknown = (keyv.store as { watch?: unknown }).watch;
  if (watch instanceof StoreWatch) return watch;
  let check = readChecks.get(keyv);
  if (!check) {
    const file = sqliteFiles.get(keyv);
    check = new StoreWatch(keyv.namespace ?? 'store', {
      read: async () => {
        await (keyv.store as KeyvStoreAdapter).get('health-check');
        // The open file answers whatever its permissions became; the next start would not (sqliteAccessProblem).
        const denied = file === undefined ? null : sqliteAccessProblem(file);
        if (denied) throw new Error(`${denied}; the bot goes on with the store it has open, but could not start again`);
      },
    });
    readChecks.set(keyv, check);
  }
  return check;
}

/** The file of each SQLite store opened, for its health check. */
const sqliteFiles = new WeakMap<Keyv<unknown>, string>();

/** One check per store, so its probe failures add up. */
const readChecks = new WeakMap<Keyv<unknown>, StoreWatch>();

/** `name`: the store's name in /healthz and the metrics (its namespace). */
async function openRedis<Value>(url: string, namespace: string, name: string, setting?: string): Promise<Keyv<Value>> {
  if (!isRedisUrl(url)) throw new Error(`"${withoutPassword(url)}" is not a Redis URL; expected e.g. redis://127.0.0.1:6379`);
  // Loaded here, not with this module: a bot on SQLite never needs the Redis client (a few MB of code and heap).
  const [{ defaultReconnectStrategy }, { WatchedKeyvRedis }] = await Promise.all([import('@keyv/redis'), import('./redis-watched-store.ts')]);
  let connected = false;
  // Until the first connection a failure is final, so an unreachable Redis is reported at start-up; after it, a
  // lost connection is retried with the adapter's back-off.
  const reconnectStrategy = (retries: number, cause: Error) => (connected ? defaultReconnectStrategy(retries) : cause);
  // Without an offline queue a command fails at once while Redis is away, so a lookup falls back to the service
  // and a subscription change answers with an error, instead of both hanging until Redis is back.
  const adapter = new WatchedKeyvRedis<Value>(
    { url, disableOfflineQueue: true, socket: { connectTimeout: REDIS_CONNECT_TIMEOUT_MS, reconnectStrategy } },
    { namespace },
    name,
  );
  // The adapter prefixes keys with its namespace itself, so Keyv must not add a second prefix. A failure on Redis
  // is always an error: it is never read as "nothing stored", nor a lost write as done.
  const keyv = new Keyv<Value>({ store: adapter, namespace, useKeyPrefix: false, throwOnErrors: true });
  await connectRedis(adapter, url, setting);
  connected = true;
  return keyv;
}

/**
 * A namespace of a PostgreSQL store, on the store's shared pool (checked when it opens). As on Redis, a failure is
 * always an error, counted on the namespace's watch.
 */
async function openPostgres<Value>(url: string, namespace: string, setting?: string): Promise<Keyv<Value>> {
  // Loaded here, so that a bot on another store never loads pg.
  const { openPostgresConnection } = await import('./postgres-connection.ts');
  const { WatchedKeyvPostgres } = await import('./postgres-watched-store.ts');
  const connection = await openPostgresConnection(url, setting);
  try {
    return new Keyv<Value>({ store: new WatchedKeyvPostgres(connection, namespace), namespace, throwOnErrors: true });
  } catch (error) {
    await connection.release();
    throw error;
  }
}

/** Connects now, failing in one line when Redis refuses or (handshake included) does not answer in time. */
async function connectRedis<Value>(adapter: WatchedKeyvRedis<Value>, url: string, setting?: string): Promise<void> {
  let lastError: unknown;
  const remember = (error: unknown) => (lastError = error);
  adapter.on('error', remember);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), REDIS_CONNECT_TIMEOUT_MS);
  });
  try {
    const outcome = await Promise.race([adapter.getClient().then(() => 'connected' as const, () => 'failed' as const), timeout]);
    if (outcome === 'connected') return;
    const reason = outcome === 'failed' && lastError instanceof Error ? lastError.message : `no answer within ${REDIS_CONNECT_TIMEOUT_MS} ms`;
    await adapter.disconnect(true);
    throw new Error(`could not reach Redis at ${setting ? `${setting}=` : ''}${withoutPassword(url)}: ${reason}`);
  } finally {
    clearTimeout(timer);
    adapter.off('error', remember);
  }
}

async function adapterFor(scheme: string, storeUrl: string): Promise<KeyvStoreAdapter | Map<unknown, unknown>> {
  if (scheme === 'memory') return new Map();
  if (scheme === 'sqlite') return openSqlite(storeUrl);
  const packageName = `@keyv/${scheme === 'mongodb' ? 'mongo' : scheme}`;
  let module: { default?: unknown };
  try {
    module = (await import(packageName)) as { default?: unknown };
  } catch {
    throw new Error(`STORE_URL uses ${scheme}://, which needs the ${packageName} package: run npm install ${packageName}`);
  }
  if (typeof module.default !== 'function') {
    throw new Error(`STORE_URL uses ${scheme}://, but ${packageName} is not a Keyv store adapter; expected e.g. sqlite://data/store.sqlite`);
  }
  const Adapter = module.default as new (uri: string) => KeyvStoreAdapter;
  try {
    return new Adapter(storeUrl);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // The adapter's own message may quote the URL it was given.
    throw new Error(`STORE_URL ${scheme}:// could not be opened: ${reason.split(storeUrl).join(withoutPassword(storeUrl))}`);
  }
}

function sqlitePath(storeUrl: string): string {
  return storeUrl.replace(/^sqlite:\/\//i, '');
}

/** A SQLite store whose statements all go through its file's one queue (src/store/sqlite-queue.ts). */
async function openSqlite(storeUrl: string): Promise<KeyvSqlite> {
  const adapter = await openSqliteConnection(storeUrl);
  const path = sqlitePath(storeUrl);
  queueStatements(adapter, path === ':memory:' ? undefined : resolve(path));
  return adapter;
}

/**
 * The page cache of each connection, in KiB (SQLite's default is 2,000). Each namespace has its connection, three on
 * the bot's one file, each caching copies of the same pages, and node-sqlite3 runs statements on worker threads
 * whose malloc arenas keep what they once held: with the default, about 20 MB of an idle bot with 10,000
 * subscriptions was page cache. Statements on a file run one at a time (sqlite-queue.ts) and the system caches the
 * file, so a page read again costs a read call, not a disk access; bench:fanout keeps its pace with this.
 */
export const SQLITE_CACHE_KIB = 512;

/** A connection of its own, not queued: set up (WAL, its page cache) before its statements join the file's queue. */
async function openSqliteConnection(storeUrl: string): Promise<KeyvSqlite> {
  const path = sqlitePath(storeUrl);
  if (path === '') throw new Error('STORE_URL "sqlite://" names no file; expected e.g. sqlite://data/store.sqlite');
  if (path !== ':memory:') {
    assertRegularFile(resolve(path), `STORE_URL=${withoutPassword(storeUrl)}`);
    mkdirSync(dirname(resolve(path)), { recursive: true });
  }
  const adapter = new KeyvSqlite({ uri: `sqlite://${path}`, busyTimeout: 10_000 });
  if (path === ':memory:') return adapter;
  try {
    // WAL lets readers (the cache) and writers (subscriptions) share the file without blocking each other.
    await adapter.query('PRAGMA journal_mode=WAL');
    await adapter.query(`PRAGMA cache_size=-${SQLITE_CACHE_KIB}`);
  } catch (error) {
    await adapter.disconnect().catch(() => undefined);
    const reason = error instanceof Error ? error.message : String(error);
    // Nothing has been written to it: a damaged store is left exactly as it is, for the operator to restore.
    if (/SQLITE_(NOTADB|CORRUPT)/.test(reason)) {
      throw new Error(
        `the store ${resolve(path)} is damaged (${reason}); it was left untouched. Restore it from a backup, or move it away to start with an empty store (every subscription in it would be lost).`,
        { cause: error },
      );
    }
    // SQLITE_CANTOPEN and SQLITE_READONLY do not say why; a permission does.
    const denied = /SQLITE_(CANTOPEN|READONLY|PERM)/.test(reason) ? sqliteAccessProblem(resolve(path)) : null;
    throw new Error(`could not open the store ${resolve(path)}: ${denied ?? reason}`, { cause: error });
  }
  return adapter;
}
