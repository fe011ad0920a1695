import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { problems } from '../../scripts/lint-markdown.mjs';

/** The documents' checks in `npm test` beside the link check: the Markdown lint, leftovers, what the docs must name. */

const ROOT = resolve(import.meta.dirname, '../..');
const lint = problems as (text: string) => Array<[number, string]>;

describe('scripts/lint-markdown.mjs (npm run docs:lint)', () => {
  it('finds a table without a header row, a row of the wrong width, and headings GitHub renders or links wrongly', () => {
    const text = [
      '# Title',
      '',
      '## Commands',
      '',
      '| --- | --- |',
      '| `/wotd` | a word |',
      '',
      '| Name | Meaning |',
      '| --- | --- |',
      '| `a|b` in code, and an escaped \\| | one | two |',
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
    ].join('\n');
    expect(lint(text).map(([line, message]) => `${line}: ${message.split(':')[0]}`)).toEqual([
      '5: a table without a header row (its first row is | --- |)',
      '10: a table row of 3 cells under a header of 2',
      '12: a table row without a delimiter row (| --- |) under the header',
      '15: heading level 4 after level 2',
      '16: heading without a space after ##',
      '17: heading "Commands" again (line 3)',
      '18: a second title (#)',
    ]);
  });

  it('passes a well-formed file', () => {
    expect(lint('# T\n\n## A\n\n| A | B |\n| :-- | --: |\n| `x|y` | z \\| w |\n\n### B\n')).toEqual([]);
  });

  it('finds nothing in README.md and docs/ (the README\'s first Commands table had no header row)', () => {
    const files = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
    const found = files.flatMap((file) => lint(readFileSync(join(ROOT, file), 'utf8')).map(([line, message]) => `${file}:${line}: ${message}`));
    expect(found).toEqual([]);
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
