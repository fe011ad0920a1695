import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/** The documents' checks in `npm test` beside the vitest suite: remark-lint with the link check, leftovers, what the docs must name. */

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
const folder = mkdtempSync(join(tmpdir(), 'wotd-docs-lint-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Runs `npm run docs:lint`'s remark, with the project's .remarkrc.json, on the given files: its exit code and its report. */
async function remark(...files: string[]): Promise<{ code: number; report: string }> {
  const args = [join(ROOT, 'node_modules/remark-cli/cli.js'), '--quiet', '--frail', '--no-stdout', '--no-color', '--rc-path', join(ROOT, '.remarkrc.json'), ...files];
  try {
    const { stderr } = await run(process.execPath, args, { cwd: ROOT });
    return { code: 0, report: stderr };
  } catch (error) {
    const failed = error as { code?: number; stderr?: string };
    return { code: failed.code ?? -1, report: failed.stderr ?? String(error) };
  }
}

/** The report's warnings as `line: rule`, in order. */
function warnings(report: string): string[] {
  return [...report.matchAll(/^(\d+):\d+\S*\s+warning\s.*?\s(\S+)\s+remark-lint$/gm)].map((match) => `${match[1]}: ${match[2]}`);
}

function write(name: string, lines: string[]): string {
  const path = join(folder, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('remark-lint (npm run docs:lint)', () => {
  it('fails on a table without a header row, rows of the wrong width, and headings GitHub renders or links wrongly, naming file and line', async () => {
    const file = write('broken.md', [
      '# Title',
      '',
      '## Commands',
      '',
      '| --- | --- |',
      '| `/wotd` | a word |',
      '',
      '| Name | Meaning |',
      '| --- | --- |',
      '| `a\\|b` in code, and an escaped \\| | one | two |',
      '| short |',
      '',
      '| Header | Only |',
      'no delimiter',
      '',
      '#### Skipped a level',
      '##No space',
      '## Commands',
      '# Another title',
      '```md',
      '| --- | inside code is not checked |',
      '# nor this',
      '```',
    ]);
    const { code, report } = await remark(file);
    expect(code).toBe(1);
    expect(report).toContain('broken.md');
    expect(warnings(report)).toEqual([
      '5: no-table-like-paragraph',
      '10: no-hidden-table-cell',
      '11: no-short-table-row',
      '13: no-table-like-paragraph',
      '16: heading-increment',
      '17: no-heading-without-space',
      '18: no-duplicate-headings',
      '19: no-multiple-toplevel-headings',
    ]);
    expect(report).toMatch(/^5:1\s+warning\s+Unexpected table without a header row/m);
  });

  it('fails on a file that starts below #, and on a | in code that splits a cell (GitHub splits it too)', async () => {
    const file = write('starts-low.md', ['## Not a title', '', '| A | B |', '| --- | --- |', '| `x|y` | z |']);
    const { code, report } = await remark(file);
    expect(code).toBe(1);
    expect(warnings(report)).toEqual(['1: first-heading-level', '5: no-hidden-table-cell']);
  });

  it('keeps the link check: a missing file and a missing heading fail', async () => {
    const file = write('links.md', ['# T', '', 'See [x](missing.md) and [y](#nowhere).']);
    const { code, report } = await remark(file);
    expect(code).toBe(1);
    expect(report).toMatch(/^3:5\S*\s+warning\s+Cannot find file `missing.md`/m);
    expect(report).toMatch(/^3:25\S*\s+warning\s+Cannot find heading for `#nowhere`/m);
  });

  it('passes a well-formed file', async () => {
    const file = write('fine.md', ['# T', '', '## A', '', '| A | B |', '| :-- | --: |', '| `x\\|y` | z \\| w |', '', '### B']);
    expect(await remark(file)).toEqual({ code: 0, report: '' });
  });

  it('finds nothing in README.md and docs/ (the README\'s first Commands table had no header row)', async () => {
    expect(await remark('README.md', 'docs')).toEqual({ code: 0, report: '' });
  });
});

/** Every file of the working tree outside what is installed, built or ignored. */
function files(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', '.git', 'dist'].includes(entry.name)) return [];
    const path = join(folder, entry.name);
    return entry.isDirectory() ? files(path) : [path];
  });
}

describe('the documents', () => {
  it('no merge leftovers (*.orig, *.rej) in the tree', () => {
    expect(files(ROOT).filter((path) => /\.(orig|rej)$/.test(path)).map((path) => path.slice(ROOT.length + 1))).toEqual([]);
  });

  it('docs/testing.md names every server setting the test set-up reads', () => {
    const setup = readdirSync(join(ROOT, 'test/support')).filter((name) => name.endsWith('.ts'));
    const read = new Set(setup.flatMap((name) => [...readFileSync(join(ROOT, 'test/support', name), 'utf8').matchAll(/process\.env\.([A-Z]+_TEST_URL)/g)].map((match) => match[1] as string)));
    expect([...read].sort()).toEqual(['POSTGRES_TEST_URL', 'REDIS_TEST_URL']);
    const testing = readFileSync(join(ROOT, 'docs/testing.md'), 'utf8');
    for (const name of read) expect(testing, name).toContain(`\`${name}\``);
  });

  it('README keeps its set-up to two commands and under 250 lines', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThan(250);
    const setUp = /## Set-up\n[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(setUp.trim().split('\n').map((line) => line.split('#')[0]?.trim())).toEqual(['npm install && npm start', 'npm test']);
  });
});
