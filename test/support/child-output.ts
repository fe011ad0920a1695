import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';

/** What a child process has printed so far, read as it arrives. */
export interface ChildOutput {
  stdout: string;
  stderr: string;
}

/** Collects a child's stdout and stderr as text; `exited` resolves with its exit code once its streams have closed. */
export function collectOutput(child: ChildProcess & { stdout: Readable; stderr: Readable }): { output: ChildOutput; exited: Promise<number | null> } {
  const output: ChildOutput = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  return { output, exited };
}
