import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

/**
 * vitest globalSetup: brings dist/ up to date (`npm run build`'s incremental tsc -b; under a second when nothing
 * changed) before any test runs, because the tests that start bin/wotd-bot.js run the compiled bot, as users do. A
 * build error fails the run with tsc's own messages.
 */
export default async function setup(): Promise<void> {
  const root = resolve(import.meta.dirname, '../..');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  await new Promise<void>((done, fail) => {
    execFile(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: root, timeout: 300_000 }, (error, stdout, stderr) => {
      if (error) fail(new Error(`npm run build failed, so the tests would run a stale dist/:\n${stdout}${stderr}`));
      else done();
    });
  });
}
