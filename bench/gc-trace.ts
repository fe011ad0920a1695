/**
 * The JS heap of a process started with `node --trace-gc`, read from the line V8 prints for every collection:
 *
 *   [4440:0xcb4be20]      107 ms: Scavenge 3.8 (4.0) -> 3.4 (5.0) MB, 15.82 / 0.00 ms  (average mu = …) allocation failure;
 *
 * The figures in parentheses are what the heap holds from the system before and after the collection (live objects,
 * garbage not yet collected, free space kept for the next allocations). Each isolate of the process (a worker
 * thread's, a module loader's) prints its own lines, tagged with its address; all of them take up the process's
 * memory, so the heap here is their sum, as of each one's last collection.
 */

const LINE = /^\[\d+:(0x[0-9a-f]+)\]\s+[\d.]+ ms: .*? ([\d.]+) \(([\d.]+)\) -> ([\d.]+) \(([\d.]+)\) MB/;

export interface GcTrace {
  /** Reads a chunk of the process's standard output; the lines that are not V8's are ignored. */
  write(chunk: Buffer | string): void;
  /** MB held by every isolate's heap now (as of each one's last collection); 0 before the first. */
  heldMb(): number;
  /** The most MB the heaps held together at any collection so far. */
  peakMb(): number;
  /** Collections read so far. */
  collections(): number;
}

export function gcTrace(): GcTrace {
  const held = new Map<string, number>();
  let total = 0;
  let peak = 0;
  let count = 0;
  let partial = '';
  const read = (line: string): void => {
    const match = LINE.exec(line);
    if (!match) return;
    const [, isolate = '', , before = '0', , after = '0'] = match;
    const beforeMb = Number(before);
    const afterMb = Number(after);
    if (!Number.isFinite(beforeMb) || !Number.isFinite(afterMb)) return;
    count += 1;
    // The heap may hold more before a collection than after it (or, growing during it, after): the larger counts.
    const others = total - (held.get(isolate) ?? 0);
    peak = Math.max(peak, others + Math.max(beforeMb, afterMb));
    held.set(isolate, afterMb);
    total = others + afterMb;
  };
  return {
    write(chunk) {
      const lines = (partial + chunk.toString()).split('\n');
      // A line cut between two chunks is kept for the next; one that never ends is not let grow without bound.
      partial = (lines.pop() ?? '').slice(-4_096);
      for (const line of lines) read(line);
    },
    heldMb: () => total,
    peakMb: () => peak,
    collections: () => count,
  };
}
