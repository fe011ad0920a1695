import { Client } from 'pg';
import type { Logger } from '../config/logger.ts';
import { singleLine } from '../config/message-text.ts';
import { withoutPassword } from '../config/settings.ts';
import { shownStore } from './postgres-connection.ts';
import { StoreInUseError, type StoreLock } from './sqlite-store-lock.ts';

/**
 * One running bot per PostgreSQL store outside cluster mode, as on SQLite (sqlite-store-lock.ts): two would each
 * deliver every daily post. The holder keeps a session-level advisory lock, on a connection of its own, for as long
 * as it runs; PostgreSQL drops it when that session ends, however the process ended, so a dead holder never leaves
 * the store locked. The key is (LOCK_CLASS, hash of the current schema) in the store's database: stores in other
 * schemas or databases are locked apart. The holder's connection carries its pid in application_name, only to name
 * it in the message.
 *
 * Several processes on one PostgreSQL store is what cluster mode (REDIS_URL) is for: its members take the same lock
 * shared, so they run side by side, while a bot outside cluster mode cannot start beside them, nor they beside it.
 */

/** "wotd" in ASCII: the first half of the advisory lock's key. */
const LOCK_CLASS = 0x776f7464;
/**
 * How long a start waits for the lock before it is refused. A holder killed a moment ago may hold it a little
 * longer: its server process ends when it sees the connection closed, which is soon but not at once.
 */
const WAIT_MS = 5_000;
const RETRY_MS = 250;
/** After the lock's connection was lost: how often it is taken again (without onLost). */
const RETAKE_MS = 5_000;
/** How often the holder checks that its session still holds the lock (a connection cut without a word). */
const CHECK_MS = 5_000;
const CHECK_TIMEOUT_MS = 5_000;
const CONNECT_TIMEOUT_MS = 5_000;
const APPLICATION = 'wotd-bot pid ';

/** The lock, and where to say it was lost and taken again (the logger is made after the lock is taken). */
export interface PostgresStoreLock extends StoreLock {
  logTo(logger: Logger): void;
}

export interface PostgresStoreLockOptions {
  /** The setting the URL came from (STORE_URL), named in messages. */
  setting?: string;
  logger?: Logger;
  /** How long to wait for a lock held elsewhere; WAIT_MS by default. */
  waitMs?: number;
  /** Cluster mode: shared with the other members, refused while a bot outside cluster mode holds the store. */
  shared?: boolean;
  /**
   * Told (once) when the lock was lost and could not be taken back at once: the bot must stop writing and posting,
   * since another bot may hold it now. Without it (tools, tests), the lock is taken again as soon as it can be.
   */
  onLost?: (reason: string) => void;
}

/** Takes the store's lock for this process, or throws StoreInUseError naming the holder. */
export async function lockPostgresStore(url: string, options: PostgresStoreLockOptions = {}): Promise<PostgresStoreLock> {
  const shown = shownStore(url, options.setting);
  const client = await connect(url, shown);
  const deadline = Date.now() + (options.waitMs ?? WAIT_MS);
  try {
    while (!(await tryLock(client, options.shared ?? false))) {
      if (Date.now() >= deadline) throw new StoreInUseError(shown, await holderPid(client), 'PostgreSQL');
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  } catch (error) {
    await client.end().catch(() => undefined);
    if (error instanceof StoreInUseError) throw error;
    throw new Error(`could not lock the PostgreSQL store at ${shown}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return new HeldLock(url, client, options.shared ?? false, options.logger, options.onLost);
}

class HeldLock implements PostgresStoreLock {
  private released: Promise<void> | null = null;
  private readonly lostClients = new WeakSet<Client>();
  private retaking: NodeJS.Timeout | null = null;
  private readonly checking: NodeJS.Timeout | null = null;
  private gaveUp = false;

  constructor(
    private readonly url: string,
    private client: Client,
    private readonly shared: boolean,
    private logger?: Logger,
    private readonly onLost?: (reason: string) => void,
  ) {
    this.watch(client);
    if (onLost) {
      this.checking = setInterval(() => void this.check(), CHECK_MS);
      this.checking.unref();
    }
  }

  /** Whether this session still holds the lock: a server that dropped it without closing the connection shows here. */
  private async check(): Promise<void> {
    const client = this.client;
    if (this.released || this.gaveUp) return;
    let holds: boolean;
    try {
      const result = await client.query<{ holds: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory' AND granted
           AND classid = $1::int4::oid AND objid = hashtext(current_schema())::oid AND objsubid = 2) AS holds`,
        [LOCK_CLASS],
      );
      holds = result.rows[0]?.holds === true;
    } catch (error) {
      if (client !== this.client || this.released) return;
      // No answer in time: the session cannot be shown to hold it.
      client.end().catch(() => undefined);
      this.lost(client, error);
      return;
    }
    if (!holds && client === this.client && !this.released) {
      client.end().catch(() => undefined);
      this.lost(client, new Error('the session no longer holds it'));
    }
  }

  logTo(logger: Logger): void {
    this.logger = logger;
  }

  release(): Promise<void> {
    this.released ??= (async () => {
      if (this.retaking) clearTimeout(this.retaking);
      if (this.checking) clearInterval(this.checking);
      // Ending the session drops its advisory locks.
      await this.client.end().catch(() => undefined);
    })();
    return this.released;
  }

  /** A lost connection lost the lock with it: said once, and the lock is taken again (at once, with onLost). */
  private watch(client: Client): void {
    const onLost = (error?: unknown) => this.lost(client, error);
    client.on('error', onLost);
    client.on('end', () => onLost());
  }

  private lost(client: Client, error?: unknown): void {
    if (this.lostClients.has(client) || this.released || client !== this.client) return;
    this.lostClients.add(client);
    if (this.onLost) {
      void this.retakeOrGiveUp(error);
      return;
    }
    this.logger?.error(
      { err: error, store: withoutPassword(this.url) },
      "lost the connection that holds the PostgreSQL store's lock: another bot could start on this store until it is taken again",
    );
    this.scheduleRetake();
  }

  /** With onLost: one attempt to take it back at once; failing that, the bot is told to stop. */
  private async retakeOrGiveUp(error: unknown): Promise<void> {
    const why = error instanceof Error ? error.message : 'the connection ended';
    let client: Client | null = null;
    try {
      client = await connect(this.url, withoutPassword(this.url));
      if (this.released) throw new Error('released');
      if (!(await tryLock(client, this.shared))) {
        const holder = await holderPid(client);
        throw new Error(`another wotd-bot process holds it now${holder === null ? '' : ` (pid ${holder})`}`);
      }
    } catch (retakeError) {
      await client?.end().catch(() => undefined);
      if (this.released || this.gaveUp) return;
      this.gaveUp = true;
      if (this.checking) clearInterval(this.checking);
      const reason = retakeError instanceof Error ? retakeError.message : String(retakeError);
      this.onLost?.(`lost the lock on the PostgreSQL store ${withoutPassword(this.url)} (${singleLine(why)}) and could not take it back: ${singleLine(reason)}`);
      return;
    }
    this.client = client;
    this.watch(client);
    this.logger?.warn({ reason: why }, "the PostgreSQL store's lock was lost for a moment and taken back at once");
  }

  private scheduleRetake(): void {
    this.retaking = setTimeout(() => void this.retake(), RETAKE_MS);
    this.retaking.unref();
  }

  private async retake(): Promise<void> {
    if (this.released) return;
    let client: Client | null = null;
    try {
      client = await connect(this.url, withoutPassword(this.url));
      if (this.released) throw new Error('released');
      if (!(await tryLock(client, this.shared))) {
        const holder = await holderPid(client);
        throw new Error(`another wotd-bot process holds it${holder === null ? '' : ` (pid ${holder})`}`);
      }
    } catch (error) {
      await client?.end().catch(() => undefined);
      if (this.released) return;
      this.logger?.warn({ err: error }, "could not take the PostgreSQL store's lock again yet; trying again");
      this.scheduleRetake();
      return;
    }
    this.client = client;
    this.watch(client);
    this.logger?.info("took the PostgreSQL store's lock again");
  }
}

async function connect(url: string, shown: string): Promise<Client> {
  const client = new Client({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // The lock's statements are instant; one that gets no answer in time means the session cannot be shown to hold it.
    query_timeout: CHECK_TIMEOUT_MS,
    application_name: `${APPLICATION}${process.pid}`,
  });
  // Until a listener is added for the lock itself, a connection error must not crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    const reason = (error instanceof Error ? error.message : String(error)).split(url).join(withoutPassword(url));
    throw new Error(`could not reach PostgreSQL at ${shown}: ${reason}`, { cause: error });
  }
  return client;
}

async function tryLock(client: Client, shared: boolean): Promise<boolean> {
  const take = shared ? 'pg_try_advisory_lock_shared' : 'pg_try_advisory_lock';
  const result = await client.query<{ locked: boolean }>(`SELECT ${take}($1, hashtext(current_schema())) AS locked`, [LOCK_CLASS]);
  return result.rows[0]?.locked === true;
}

/** The pid named by a holding session's application_name, when there is one to see. */
async function holderPid(client: Client): Promise<number | null> {
  const result = await client.query<{ name: string | null }>(
    `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
        AND l.classid = $1::int4::oid AND l.objid = hashtext(current_schema())::oid`,
    [LOCK_CLASS],
  );
  const name = result.rows[0]?.name ?? '';
  const pid = name.startsWith(APPLICATION) ? Number(name.slice(APPLICATION.length)) : NaN;
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}
