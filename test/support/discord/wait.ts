/** Change notification: anything that mutates harness state calls `notify()`; waiters re-check their condition. */
export class Changes {
  private readonly waiters = new Set<() => void>();

  notify(): void {
    for (const wake of [...this.waiters]) wake();
  }

  /**
   * Resolves with the first non-undefined value `probe` returns, checked now and after every change.
   * Rejects after `timeoutMs` with a message naming what was awaited, so a failing test says why, or with the
   * signal's reason once `signal` aborts: a waiter that lost a race (Promise.any of a response and a follow-up)
   * would otherwise be re-checked on every change until its timeout, and thousands of those stall the harness.
   */
  until<T>(probe: () => T | undefined, description: string, timeoutMs = 5000, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const first = probe();
    if (first !== undefined) return Promise.resolve(first);
    return new Promise<T>((resolve, reject) => {
      const wake = (): void => {
        let value: T | undefined;
        try {
          value = probe();
        } catch (error) {
          done();
          reject(error instanceof Error ? error : new Error(String(error)));
          return;
        }
        if (value !== undefined) {
          done();
          resolve(value);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`discord harness: timed out after ${timeoutMs} ms waiting for ${description}`));
      }, timeoutMs);
      const abort = (): void => {
        done();
        reject(abortReason(signal));
      };
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        signal?.removeEventListener('abort', abort);
      };
      this.waiters.add(wake);
      signal?.addEventListener('abort', abort, { once: true });
    });
  }
}

function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error(`discord harness: stopped waiting (${String(reason)})`);
}
