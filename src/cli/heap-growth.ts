import { setFlagsFromString } from 'node:v8';

/**
 * How far past what its last full collection kept V8 lets the heap grow before collecting again, in percent.
 *
 * A daily fan-out keeps about a hundred posts in flight for minutes, so their garbage outlives the young generation
 * and piles up in the old one. V8's own factor, sized for the machine's memory, goes up to 4x the live heap:
 * bench:fanout at 100,000 channels peaked at about 360 MB with 70 MB live. At 1.4x it stays near 210 MB (240 MB at
 * the first tick's listing) for about 5% more CPU per post. Unlike --max-old-space-size this sets no ceiling, so a
 * larger bot grows instead of failing.
 */
export const HEAP_GROWTH_PERCENT = 40;

const FLAG = '--heap-growing-percent';

/** Applies HEAP_GROWTH_PERCENT to this process, unless node was started with the flag (`node --heap-growing-percent=N`). */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  const given = execArgv.some((arg) => arg.replaceAll('_', '-').startsWith(FLAG));
  if (given) return false;
  setFlagsFromString(`${FLAG}=${HEAP_GROWTH_PERCENT}`);
  return true;
}
