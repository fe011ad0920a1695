import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { TestProject } from 'vitest/node';

/**
 * vitest globalSetup: asks once whether a PostgreSQL answers at POSTGRES_TEST_URL (default
 * postgres://postgres@127.0.0.1:5432/postgres), creates a database of this run's own there (wotd_test_<random>) and
 * hands its URL to the test files (see postgres.ts); the database is dropped when the run ends. Without a server the
 * PostgreSQL tests are skipped, with one line saying so, except under CI=true, where the run fails instead.
 */

export const DEFAULT_POSTGRES_TEST_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresTestUrl: string | null;
  }
}

async function connected(url: string): Promise<Client> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const url = process.env.POSTGRES_TEST_URL?.trim() || DEFAULT_POSTGRES_TEST_URL;
  let admin: Client;
  try {
    admin = await connected(url);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (process.env.CI === 'true') {
      throw new Error(`No PostgreSQL answers at ${url} (${reason}); with CI=true the PostgreSQL tests must run. Start PostgreSQL or set POSTGRES_TEST_URL.`);
    }
    process.stdout.write(`PostgreSQL tests skipped: no PostgreSQL answers at ${url} (${reason}); start PostgreSQL or set POSTGRES_TEST_URL.\n`);
    project.provide('postgresTestUrl', null);
    return undefined;
  }
  const database = `wotd_test_${randomBytes(6).toString('hex')}`;
  try {
    await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  const runUrl = new URL(url);
  runUrl.pathname = `/${database}`;
  project.provide('postgresTestUrl', runUrl.href);
  return async () => {
    const client = await connected(url);
    try {
      // FORCE: a connection a failed test left open does not keep the database.
      await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  };
}
