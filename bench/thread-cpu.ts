import { readdirSync, readFileSync } from 'node:fs';

/**
 * This process's CPU time so far, in ms, split between its main thread (the JavaScript) and every other thread
 * (V8's workers: garbage collection and optimizing compilation; libuv's: node-sqlite3's statements, the file
 * system), from Linux's /proc/self/task/<tid>/schedstat, which counts in nanoseconds (Node 20 names none of these
 * threads, so they cannot be told apart further). NaN off Linux. Threads whose ids are in `except` (worker threads
 * running a bot, see bench/bot-worker.ts's threadId) count in neither.
 */
export interface ThreadCpu {
  main: number;
  others: number;
}

export function threadCpu(except: readonly string[] = []): ThreadCpu {
  const cpu: ThreadCpu = { main: 0, others: 0 };
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return { main: Number.NaN, others: Number.NaN };
  }
  for (const tid of tids) {
    if (except.includes(tid)) continue;
    let ms: number;
    try {
      ms = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    } catch {
      continue; // the thread ended meanwhile
    }
    if (tid === String(process.pid)) cpu.main += ms;
    else cpu.others += ms;
  }
  return cpu;
}

export function threadCpuSince(before: ThreadCpu, except: readonly string[] = []): ThreadCpu {
  const now = threadCpu(except);
  return { main: now.main - before.main, others: now.others - before.others };
}
