import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What the health check and the metrics know of each store the process opens: its name (subscriptions, deliveries,
 * cache, locks), how many of its operations failed, by kind, and a probe that says whether it works now.
 *
 * A failed operation is never turned into "nothing stored": it becomes a StoreError naming the store, so a command
 * can say that nothing was changed, a daily post is not reported as delivered, and a read is not taken for a miss.
 */

/** read: get, has; write: set, delete; scan: listing a namespace; lock: taking a store lock; probe: the health check. */
export type StoreOperation = 'read' | 'write' | 'scan' | 'lock' | 'probe';

export const STORE_OPERATIONS: readonly StoreOperation[] = ['read', 'write', 'scan', 'lock', 'probe'];

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? text;
}

/** A store operation that did not happen. */
export class StoreError extends Error {
  constructor(
    readonly store: string,
    readonly operation: StoreOperation,
    cause: unknown,
  ) {
    super(`the ${store} store failed (${operation}): ${firstLine(cause)}`, { cause });
    this.name = 'StoreError';
  }
}

export function isStoreError(error: unknown): error is StoreError {
  return error instanceof StoreError;
}

/** The StoreError behind an error (itself, or one of its causes), if any. */
export function storeErrorIn(error: unknown): StoreError | null {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth += 1) {
    if (current instanceof StoreError) return current;
  }
  return null;
}

/** Whether a piece of work wrote to a watched store (see runNotingWrites). */
export interface WriteTrace {
  wrote: boolean;
}

const traces = new AsyncLocalStorage<WriteTrace>();

/**
 * Whether a store of this process notes its writes in traces (StoreWatch.notesWrites). Until one does, no trace can
 * be marked, so work runs outside the AsyncLocalStorage: on Node 20 its first run turns on promise hooks for every
 * promise of the process for good, which cost a bot on SQLite a tenth of what each command allocated.
 */
let writesNoted = false;

/**
 * Runs `work(...args)`, marking `trace` when a write of a watched store goes through while it runs (for
 * storeFailureKind). The arguments are handed on, so a caller on a hot path (the router, once per command) need not
 * make a closure for each run.
 */
export function runNotingWrites<A extends unknown[], T>(trace: WriteTrace, work: (...args: A) => Promise<T>, ...args: A): Promise<T> {
  return writesNoted ? traces.run(trace, work, ...args) : work(...args);
}

/**
 * How a piece of work failed on a store, for the member's reply (src/replies/store-failure.ts): `failed` before it
 * wrote anything, `partway` after some of its writes went through; null when the failure was not the store's.
 */
export function storeFailureKind(error: unknown, trace: WriteTrace): 'failed' | 'partway' | null {
  if (!storeErrorIn(error)) return null;
  return trace.wrote ? 'partway' : 'failed';
}

/** One store as /healthz and wotd_bot_store_errors_total see it. */
export interface StoreCheck {
  readonly name: string;
  /** Resolves when the store answers now; rejects with why not. */
  check(): Promise<void>;
  /** Failed operations since start, by kind. */
  errorCounts(): ReadonlyMap<StoreOperation, number>;
}

export interface StoreProbe {
  /** One read that rejects when the store cannot be read. */
  read(): Promise<unknown>;
  /** One write, tried by the check only while the last write failed (a store can answer reads and refuse writes). */
  write?(): Promise<unknown>;
}

export class StoreWatch implements StoreCheck {
  private readonly counts = new Map<StoreOperation, number>();
  private writesFailing = false;

  constructor(
    readonly name: string,
    private readonly probe: StoreProbe,
  ) {}

  /** Counts the failure and returns it as a StoreError (one already counted, by a nested operation, is returned as it is). */
  failed(operation: StoreOperation, error: unknown): StoreError {
    if (isStoreError(error)) return error;
    this.counts.set(operation, (this.counts.get(operation) ?? 0) + 1);
    if (operation === 'write') this.writesFailing = true;
    return new StoreError(this.name, operation, error);
  }

  /**
   * This store's writes (run('write'), wrote()) mark the trace of the work they run in. Called where the store is
   * made, before any work that could write to it starts.
   */
  notesWrites(): this {
    writesNoted = true;
    return this;
  }

  /** A write went through: writes work again. */
  wrote(): void {
    this.writesFailing = false;
    // A store made without notesWrites: traces started from now on see its writes.
    writesNoted = true;
    const trace = traces.getStore();
    if (trace) trace.wrote = true;
  }

  /** Runs one operation of this store, counting and naming its failure. */
  async run<T>(operation: StoreOperation, work: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await work();
    } catch (error) {
      throw this.failed(operation, error);
    }
    if (operation === 'write') this.wrote();
    return result;
  }

  async check(): Promise<void> {
    try {
      await this.probe.read();
      if (this.writesFailing && this.probe.write) {
        await this.probe.write();
        this.writesFailing = false;
      }
    } catch (error) {
      throw this.failed('probe', error);
    }
  }

  errorCounts(): ReadonlyMap<StoreOperation, number> {
    return this.counts;
  }
}
