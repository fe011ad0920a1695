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

/**
 * By how much V8 grows the young generation after a scavenge that kept much of it: 1 keeps it at its starting size
 * (two semi-spaces of 1 MB). V8 grows it 2x at a time up to 16 MB a semi-space (so 32 MB of the bot's RSS with 10,000
 * subscriptions, their start-up listing grows it) and never gives it back while the bot idles. The bot allocates
 * little per second, even during a fan-out, so the extra scavenges cost next to nothing (bench:fanout). Unlike
 * --max-semi-space-size, which V8 reads only when it makes the heap, this flag still works once node is running.
 */
export const SEMI_SPACE_GROWTH_FACTOR = 1;

const LIMITS: ReadonlyArray<{ flag: string; value: number; overriddenBy: readonly string[] }> = [
  { flag: '--heap-growing-percent', value: HEAP_GROWTH_PERCENT, overriddenBy: ['--heap-growing-percent'] },
  {
    flag: '--semi-space-growth-factor',
    value: SEMI_SPACE_GROWTH_FACTOR,
    // An operator who sizes the young generation on node's command line means that size.
    overriddenBy: ['--semi-space-growth-factor', '--max-semi-space-size', '--min-semi-space-size', '--max-heap-size'],
  },
];

/**
 * Applies HEAP_GROWTH_PERCENT and SEMI_SPACE_GROWTH_FACTOR to this process, each unless node was started with a
 * flag of its own for it (`node --heap-growing-percent=N`, `node --max-semi-space-size=N`). Returns the flags set.
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): string[] {
  const given = execArgv.map((arg) => arg.replaceAll('_', '-'));
  const applied: string[] = [];
  for (const { flag, value, overriddenBy } of LIMITS) {
    if (given.some((arg) => overriddenBy.some((name) => arg === name || arg.startsWith(`${name}=`)))) continue;
    setFlagsFromString(`${flag}=${value}`);
    applied.push(flag);
  }
  return applied;
}
