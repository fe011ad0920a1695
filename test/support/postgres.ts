import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { afterAll, afterEach, beforeEach, describe, inject } from 'vitest';
import type { StoreLocation } from '../../src/store/open-store.ts';

/**
 * PostgreSQL for tests. `describePostgres` runs only when postgres-setup.ts found a server (and made this run's
 * database); `usePostgresSchema()` gives each test in the calling describe a schema of its own in that database
 * (its store URL sets search_path to it) and drops it afterwards, so test files can run in parallel on one database.
 */

export const postgresTestUrl: string | null = inject('postgresTestUrl');

export const describePostgres = describe.skipIf(postgresTestUrl === null);

function requireUrl(): string {
  if (postgresTestUrl === null) throw new Error('no PostgreSQL for this test; wrap it in describePostgres');
  return postgresTestUrl;
}

/** The run's database URL with search_path set to `schema`: the store's tables go there. */
export function postgresUrlFor(schema: string, base = requireUrl()): string {
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.href;
}

let admin: Pool | null = null;

/** A pool on the run's database, for setting up and looking at what the code under test wrote. */
export function postgresAdmin(): Pool {
  if (!admin) {
    admin = new Pool({ connectionString: requireUrl(), max: 2 });
    admin.on('error', () => undefined);
  }
  return admin;
}

afterAll(async () => {
  await admin?.end();
  admin = null;
});

export async function createSchema(): Promise<string> {
  const schema = `t_${randomBytes(8).toString('hex')}`;
  await postgresAdmin().query(`CREATE SCHEMA ${schema}`);
  return schema;
}

export async function dropSchema(schema: string): Promise<void> {
  await postgresAdmin().query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
}

export interface PostgresTestSchema {
  /** This test's schema, e.g. `t_1b4e…`. */
  readonly schema: string;
  /** Its store URL. */
  readonly url: string;
  /** Where a store opened for this test lives. */
  readonly location: StoreLocation;
}

export function usePostgresSchema(): PostgresTestSchema {
  let schema = '';
  beforeEach(async () => {
    schema = await createSchema();
  });
  afterEach(async () => {
    await dropSchema(schema);
  });
  return {
    get schema() {
      return schema;
    },
    get url() {
      return postgresUrlFor(schema);
    },
    get location() {
      return { url: postgresUrlFor(schema) };
    },
  };
}
