/** Change notification: anything that mutates harness state calls `notify()`; waiters re-check their condition. */
export class Changes {
  private readonly waiters = new Set<() => void>();

  notify(): void {
    for (const wake of [...this.waiters]) wake();
  }

  /**
   * Resolves with the first non-undefined value `probe` returns, checked now and after every change.
   * Rejects after `timeoutMs` with a message naming what was awaited, so a failing test says why.
   */
  until<T>(probe: () => T | undefined, description: string, timeoutMs = 5000): Promise<T> {
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
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(wake);
      };
      this.waiters.add(wake);
    });
  }
}
