/**
 * An optional front door for the harness's REST side (DiscordServerOptions.frontDoorSpares), for benchmarks in which
 * the harness itself is saturated. Since libuv 1.45 (Node 20) a server accepts one new connection per turn of its
 * event loop; a busy harness's turns take 50 to 180 ms, so when a hundred clients open connections at once the last
 * are accepted seconds later, past an interaction's 3 s. Handing accepted sockets over IPC does not help: Node sends
 * the next handle only after the previous one is acknowledged, again one per turn.
 *
 * So a child process (front-door-process.ts) listens instead and relays each client connection over a connection to
 * the harness that it opened in advance, while the harness was idle; the harness has nothing new to accept until
 * the spares run out, and the child opens a replacement for each one taken. What a client sees is unchanged: one
 * connection per connection, closed when the harness closes it and the other way round. The gateway stays on the
 * harness's own port (a few long-lived connections, and no relay on every dispatch).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The most spare connections a front door keeps (frontDoorSpares); the harness and the child both hold to it. */
export const MAX_FRONT_DOOR_SPARES = 10_000;

export type FrontDoorMessage = { kind: 'listening'; port: number } | { kind: 'error'; message: string } | { kind: 'close' };

const CHILD = fileURLToPath(new URL('./front-door-process.ts', import.meta.url));
/** The repository root: the child loads TypeScript through the `tsx` package installed there. */
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** How long closing waits for the child to end before it is killed (and that is reported). */
const EXIT_WAIT_MS = 5_000;

export class FrontDoor {
  private closing = false;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    private readonly report: (error: Error) => void,
  ) {
    this.exited = new Promise((done) => child.once('exit', () => done()));
    child.on('message', (message: FrontDoorMessage) => {
      if (message.kind === 'error') report(new Error(`front door: ${message.message}`));
    });
    // Sending `close` or killing can fail; that is reported, not thrown at nobody.
    child.on('error', (error) => report(new Error(`front door: ${error.message}`)));
    child.once('exit', (code, signal) => {
      if (!this.closing) report(new Error(`front door: the process ended unasked (${signal ?? `code ${code ?? '?'}`})`));
      else if (code !== 0 && signal === null) report(new Error(`front door: the process ended with code ${code ?? '?'} on close`));
    });
  }

  /**
   * Starts the child, which keeps `spares` connections open to `harnessPort`; resolves once it listens with all of
   * them connected. `report` receives every later error (the harness puts them in `internalErrors`).
   */
  static async start(harnessPort: number, spares: number, report: (error: Error) => void): Promise<FrontDoor> {
    const child = fork(CHILD, [String(harnessPort), String(spares)], {
      cwd: ROOT,
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const port = await new Promise<number>((resolve, reject) => {
      const onMessage = (message: FrontDoorMessage) => {
        if (message.kind === 'listening') {
          const port = message.port;
          if (Number.isInteger(port) && port >= 1 && port <= 65_535) finish(() => resolve(port));
          else finish(() => reject(new Error(`front door: it reported port ${String(port)}`)));
        } else if (message.kind === 'error') finish(() => reject(new Error(`front door: ${message.message}`)));
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
        finish(() => reject(new Error(`front door: the process ended before listening (${signal ?? `code ${code ?? '?'}`})`)));
      const onError = (error: Error) => finish(() => reject(error));
      const finish = (settle: () => void) => {
        child.off('message', onMessage);
        child.off('exit', onExit);
        child.off('error', onError);
        settle();
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      child.once('error', onError);
    }).catch((error: unknown) => {
      child.kill('SIGKILL');
      throw error;
    });
    return new FrontDoor(child, port, report);
  }

  /** Closes the listener and every relayed connection; resolves when the child has ended. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    if (this.child.connected) this.child.send({ kind: 'close' } satisfies FrontDoorMessage);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((done) => (timer = setTimeout(() => done('late'), EXIT_WAIT_MS)));
    const outcome = await Promise.race([this.exited.then(() => 'ended' as const), late]);
    clearTimeout(timer);
    if (outcome === 'late') {
      this.report(new Error(`front door: the process did not end within ${EXIT_WAIT_MS} ms of close; killed`));
      this.child.kill('SIGKILL');
      await this.exited;
    }
  }

  /** The child's process id (tests check that it has ended after close). */
  get pid(): number | undefined {
    return this.child.pid;
  }
}
