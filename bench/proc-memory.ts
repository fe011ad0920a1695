import { readFileSync } from 'node:fs';

/** A process's memory from /proc/PID/status (Linux), in MB: resident now and at its peak, split into anonymous and file-backed. */
export interface ProcessMemory {
  rssMb: number;
  peakRssMb: number;
  anonMb: number;
  fileMb: number;
  threads: number;
}

export function processMemory(pid: number): ProcessMemory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? Number.NaN);
  return {
    rssMb: field('VmRSS') / 1024,
    peakRssMb: field('VmHWM') / 1024,
    anonMb: field('RssAnon') / 1024,
    fileMb: field('RssFile') / 1024,
    threads: field('Threads'),
  };
}
