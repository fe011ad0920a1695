/**
 * The part of node-postgres (`pg`, which ships no types of its own) that the PostgreSQL store uses, as pg 8
 * documents it. Declared here rather than through @types/pg so that no further package is needed; replacing this
 * file with @types/pg changes nothing else.
 */
declare module 'pg' {
  import { EventEmitter } from 'node:events';

  export interface QueryResult<Row> {
    rows: Row[];
    rowCount: number | null;
  }

  export interface ClientConfig {
    connectionString?: string;
    application_name?: string;
    /** How long a connection attempt may take, handshake and authentication included. */
    connectionTimeoutMillis?: number;
    /** Server-side: how long a statement waits for a lock before it fails (ms). */
    lock_timeout?: number;
    /** Server-side: how long a statement may run before it is cancelled (ms). */
    statement_timeout?: number;
    /** Client-side: how long a query may take before the client gives up on it (ms). */
    query_timeout?: number;
  }

  export interface PoolConfig extends ClientConfig {
    /** Connections open at once at most. */
    max?: number;
    /** How long an idle connection is kept before it is closed (ms). */
    idleTimeoutMillis?: number;
    /** Run on each new connection before it is handed out; a rejection fails that connection. */
    onConnect?: (client: PoolClient) => Promise<void>;
  }

  export interface Queryable {
    query<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<QueryResult<Row>>;
  }

  export interface PoolClient extends Queryable {
    /** Hands the connection back to the pool; with an error (or true) it is closed instead. */
    release(destroy?: boolean | Error): void;
  }

  export class Pool extends EventEmitter implements Queryable {
    constructor(config?: PoolConfig);
    query<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<QueryResult<Row>>;
    connect(): Promise<PoolClient>;
    end(): Promise<void>;
    readonly totalCount: number;
    readonly idleCount: number;
    readonly waitingCount: number;
  }

  export class Client extends EventEmitter implements Queryable {
    constructor(config?: ClientConfig);
    connect(): Promise<void>;
    query<Row = Record<string, unknown>>(text: string, values?: unknown[]): Promise<QueryResult<Row>>;
    end(): Promise<void>;
  }

  /** An error the server reported; `code` is its SQLSTATE. */
  export class DatabaseError extends Error {
    code: string | undefined;
    detail: string | undefined;
  }

  export function escapeIdentifier(identifier: string): string;
}
