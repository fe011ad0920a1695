import { DEFAULT_CLAIM_LEASE_MS } from '../config/settings.ts';
import { randomUUID } from 'node:crypto';
import type { StoreLocation } from '../store/open-store.ts';
import { CREATED_ELSEWHERE, openPostgresConnection, type PostgresConnection } from '../store/postgres-connection.ts';
import { StoreWatch } from '../store/store-watch.ts';
import type { IsoDate } from '../wotd/dates.ts';
import { heldFor, type DeliveryClaim, type DeliveryClaims } from './delivery-claims.ts';

const TABLE = 'wotd_delivery_claims';
/** Claims whose lease ran out this long ago are deleted when the claims open (a claim left by a process that died). */
const FORGET_AFTER = '2 days';

/**
 * Claims on (channel, day) in the PostgreSQL store, for cluster mode on it: they last as long as the delivery
 * records beside them, whatever happens to Redis. One row per claimed (channel, day) holds a random holder id and
 * when its lease runs out (the server's clock, the same for every process).
 *
 * Taking a claim is one statement: INSERT … ON CONFLICT DO UPDATE … WHERE the lease has run out. PostgreSQL locks
 * the row for the statement, so of any number of processes asking at once exactly one gets a row back; the others,
 * and anyone asking while the lease lasts, get none. A claim is released by deleting its row, only while it is
 * still the holder's.
 */
export class PostgresDeliveryClaims implements DeliveryClaims {
  /** A claim the store could not answer is no claim (the post waits for a later pass), counted here and in /healthz. */
  readonly watch: StoreWatch;
  private readonly table: string;

  private constructor(
    private readonly connection: PostgresConnection,
    private readonly leaseMs: number,
  ) {
    this.table = connection.tableName(TABLE);
    this.watch = new StoreWatch('claims', { read: () => connection.pool.query('SELECT 1') });
  }

  static async open(where: string | StoreLocation, leaseMs = DEFAULT_CLAIM_LEASE_MS): Promise<PostgresDeliveryClaims> {
    const { url, setting } = typeof where === 'string' ? { url: where, setting: undefined } : where;
    const connection = await openPostgresConnection(url, setting);
    const claims = new PostgresDeliveryClaims(connection, leaseMs);
    try {
      await claims.prepare();
    } catch (error) {
      await connection.release();
      throw error;
    }
    return claims;
  }

  async claim(channelId: string, day: IsoDate): Promise<DeliveryClaim | null> {
    const holder = randomUUID();
    let claimed: boolean;
    try {
      const result = await this.connection.pool.query(
        `INSERT INTO ${this.table} AS held (channel_id, day, holder, expires_at)
           VALUES ($1, $2, $3, clock_timestamp() + $4 * interval '1 millisecond')
         ON CONFLICT (channel_id, day) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
           WHERE held.expires_at <= clock_timestamp()
         RETURNING holder`,
        [channelId, day, holder, this.leaseMs],
      );
      claimed = result.rowCount === 1;
    } catch (error) {
      this.watch.failed('lock', error);
      return null;
    }
    if (!claimed) return null;
    return {
      held: heldFor(this.leaseMs),
      // A claim that cannot be released runs out with its lease.
      release: async () => {
        try {
          await this.connection.pool.query(`DELETE FROM ${this.table} WHERE channel_id = $1 AND day = $2 AND holder = $3`, [channelId, day, holder]);
        } catch (error) {
          this.watch.failed('lock', error);
        }
      },
    };
  }

  close(): Promise<void> {
    return this.connection.release();
  }

  private async prepare(): Promise<void> {
    try {
      await this.connection.pool.query(
        `CREATE TABLE IF NOT EXISTS ${this.table} (
           channel_id TEXT NOT NULL, day TEXT NOT NULL, holder TEXT NOT NULL, expires_at TIMESTAMPTZ NOT NULL,
           PRIMARY KEY (channel_id, day))`,
      );
    } catch (error) {
      // Created by another process at the same moment (see CREATED_ELSEWHERE).
      const code = (error as { code?: unknown }).code;
      if (typeof code !== 'string' || !CREATED_ELSEWHERE.has(code)) throw new Error(`could not set up delivery claims in the PostgreSQL store: ${String((error as Error).message)}`, { cause: error });
    }
    await this.connection.pool.query(`DELETE FROM ${this.table} WHERE expires_at < clock_timestamp() - interval '${FORGET_AFTER}'`);
  }
}
