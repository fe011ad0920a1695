import { readFileSync, readlinkSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * A bot under bench on a worker thread of its own, as it would run in a process of its own, while the local Discord
 * server and the load stay on the main thread: the shared pieces of bench:commands and bench:quiz. The bench file
 * itself is the worker's code (it branches on isMainThread); `ask` posts one message and waits for the one reply.
 */
export interface BotWorker<Kind extends string, ToBot, FromBot extends { kind: string }> {
  kind: Kind;
  ask<K extends FromBot['kind']>(message: ToBot | null, expect: K): Promise<Extract<FromBot, { kind: K }>>;
  worker: Worker;
}

/** Starts `moduleUrl` (the bench's own import.meta.url) on a worker thread with `data` as its workerData. */
export function startBotWorker<Kind extends string, ToBot, FromBot extends { kind: string }>(
  moduleUrl: string,
  data: { readonly kind: Kind; readonly [setting: string]: unknown },
): BotWorker<Kind, ToBot, FromBot> {
  // The worker runs the bench's TypeScript file, so it registers tsx's loader first.
  const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(moduleUrl)}); });`;
  const worker = new Worker(bootstrap, { eval: true, workerData: data });
  return {
    kind: data.kind,
    worker,
    ask: (message, expect) =>
      new Promise((resolve, reject) => {
        const onMessage = (reply: FromBot) => {
          worker.off('error', onError);
          if (reply.kind === expect) resolve(reply as Extract<FromBot, { kind: typeof expect }>);
          else reject(new Error(`the ${data.kind} bot answered ${reply.kind}, expected ${expect}`));
        };
        const onError = (error: Error) => {
          worker.off('message', onMessage);
          reject(error);
        };
        worker.once('message', onMessage);
        worker.once('error', onError);
        if (message) worker.postMessage(message);
      }),
  };
}

/**
 * This thread's CPU time and its time spent runnable but waiting for a core, in ms, from Linux's schedstat (NaN
 * elsewhere). Unlike event-loop busy time, CPU time does not grow when the machine's other work takes the core away.
 * In a worker, process.cpuUsage() is the whole process's; this is the worker's own.
 */
export function threadSchedstat(): { cpuMs: number; runQueueMs: number } {
  try {
    const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'utf8').trim().split(/\s+/).map(Number);
    return { cpuMs: (run ?? Number.NaN) / 1e6, runQueueMs: (wait ?? Number.NaN) / 1e6 };
  } catch {
    return { cpuMs: Number.NaN, runQueueMs: Number.NaN };
  }
}

/** This thread's Linux thread id (for bench/thread-cpu.ts's `except`), or undefined off Linux. */
export function threadId(): string | undefined {
  try {
    return readlinkSync('/proc/thread-self').split('/').pop();
  } catch {
    return undefined;
  }
}
