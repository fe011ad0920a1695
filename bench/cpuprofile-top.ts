/**
 * Where a V8 CPU profile's time went, or a sampling heap profile's allocations:
 *   npx tsx bench/cpuprofile-top.ts FILE.cpuprofile [--top 25] [--by function|package] [--from S] [--to S]
 *
 * By function: self time per function (name, file, line). By package: self time per npm package, per folder of
 * ours (src/…, commands), or per kind of native work (garbage collector, idle, program). --from and --to keep only
 * the samples between so many seconds after the profile started (e.g. a fan-out without the start-up). For the profiles that
 * `COMMANDS_CPU_PROFILE=dir npm run bench:commands` or `node --cpu-prof` write, and the .heapprofile files that
 * `COMMANDS_HEAP_PROFILE=dir` writes.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}
/** A sampling heap profile (COMMANDS_HEAP_PROFILE): a tree of call frames, each with the bytes it allocated itself. */
interface HeapNode extends ProfileNode {
  selfSize: number;
  children: HeapNode[];
}
interface HeapProfile {
  head: HeapNode;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    by: { type: 'string', default: 'function' },
    from: { type: 'string', default: '0' },
    to: { type: 'string', default: 'Infinity' },
  },
});
const file = positionals[0];
const top = Number(values.top);
const [fromUs, toUs] = [Number(values.from) * 1e6, Number(values.to) * 1e6];
if (!file || !Number.isInteger(top) || top < 1 || (values.by !== 'function' && values.by !== 'package') || !(fromUs < toUs)) {
  process.stderr.write('usage: npx tsx bench/cpuprofile-top.ts FILE.cpuprofile [--top N] [--by function|package] [--from S] [--to S]\n');
  process.exit(2);
}
const parsed = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile | HeapProfile;
const root = fileURLToPath(new URL('..', import.meta.url));

function where(url: string): string {
  if (url.startsWith('file://')) return relative(root, fileURLToPath(url));
  return url;
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const name = functionName || '(anonymous)';
  if (values.by === 'function') return url ? `${name} ${where(url).replace(/^.*node_modules\//, '')}:${lineNumber + 1}` : name;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  if (url.startsWith('node:')) return 'node (built-in modules)';
  if (url.startsWith('file://')) return where(url).split('/').slice(0, 2).join('/');
  return name;
}

if ('head' in parsed) {
  // Allocated bytes per function or package; --from and --to do not apply (a heap profile has no timeline).
  const allocated = new Map<string, number>();
  let bytes = 0;
  const visit = (node: HeapNode): void => {
    bytes += node.selfSize;
    const key = label(node);
    allocated.set(key, (allocated.get(key) ?? 0) + node.selfSize);
    for (const child of node.children) visit(child);
  };
  visit(parsed.head);
  process.stdout.write(`${(bytes / 1e6).toFixed(1)} MB allocated (sampled); self allocations, share of all:\n`);
  for (const [key, size] of [...allocated].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${(size / 1e6).toFixed(2).padStart(8)} MB ${((100 * size) / bytes).toFixed(1).padStart(5)}%  ${key}\n`);
  }
  process.exit(0);
}
const profile = parsed;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map<string, number>();
let total = 0;
let at = 0;
profile.samples.forEach((id, i) => {
  const node = nodes.get(id);
  const us = profile.timeDeltas[i] ?? 0;
  at += us;
  if (!node || at < fromUs || at > toUs) return;
  total += us;
  const key = label(node);
  self.set(key, (self.get(key) ?? 0) + us);
});
const busy = total - (self.get('(idle)') ?? 0);
process.stdout.write(`${(total / 1000).toFixed(0)} ms sampled, ${(busy / 1000).toFixed(0)} ms busy; self time, share of busy:\n`);
for (const [key, us] of [...self].filter(([key]) => key !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, top)) {
  process.stdout.write(`${(us / 1000).toFixed(0).padStart(7)} ms ${((100 * us) / busy).toFixed(1).padStart(5)}%  ${key}\n`);
}
