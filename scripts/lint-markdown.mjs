#!/usr/bin/env node
// The Markdown checks beside the link check (npm run docs:links), for what GitHub renders wrongly or not at all:
// tables (a header row, then a delimiter row, every row with as many cells) and headings (a space after the #s, one
// title at the top, no level skipped, no two alike in a file, since their anchors would clash). Fenced code is
// skipped. Prints one line per problem (file:line: what) and exits 1 when there is any.
// remark-lint would do this; its rule packages are not among our dependencies, and these rules are few.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The cells of a table row: split on | outside code spans, not on an escaped \|. */
export function cells(line) {
  const found = [];
  let cell = '';
  let code = 0;
  for (let i = 0; i < line.length; i += 1) {
    const char = line[i];
    if (char === '\\' && line[i + 1] === '|') {
      cell += '\\|';
      i += 1;
    } else if (char === '`') {
      let run = 1;
      while (line[i + run] === '`') run += 1;
      code = code === 0 ? run : code === run ? 0 : code;
      cell += '`'.repeat(run);
      i += run - 1;
    } else if (char === '|' && code === 0) {
      found.push(cell);
      cell = '';
    } else cell += char;
  }
  found.push(cell);
  // The outer pipes leave an empty first and last cell.
  if (line.trimStart().startsWith('|')) found.shift();
  if (line.trimEnd().endsWith('|') && !line.trimEnd().endsWith('\\|')) found.pop();
  return found;
}

const isRow = (line) => /^\s*\|/.test(line);
const isDelimiter = (line) => isRow(line) && cells(line).every((cell) => /^\s*:?-+:?\s*$/.test(cell));

/** Every problem in one file's text, as [line number, message]. */
export function problems(text) {
  const found = [];
  const lines = text.split('\n');
  let fence = null;
  let previousLevel = 0;
  const headings = new Map();
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index];
    const number = index + 1;
    const opening = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (opening && opening[1][0] === fence[0] && opening[1].length >= fence.length) fence = null;
      continue;
    }
    if (opening) {
      fence = opening[1];
      continue;
    }
    const heading = /^(#{1,6})(\s*)(.*?)\s*#*\s*$/.exec(line);
    if (heading && /^#/.test(line)) {
      const level = heading[1].length;
      if (heading[2] === '' && heading[3] !== '') found.push([number, `heading without a space after ${heading[1]}`]);
      else if (level === 1 && previousLevel !== 0) found.push([number, 'a second title (#): use ## and below']);
      else if (previousLevel === 0 && level !== 1) found.push([number, 'the file starts with a heading below #']);
      else if (level > previousLevel + 1) found.push([number, `heading level ${level} after level ${previousLevel}: a level skipped`]);
      const key = heading[3].toLowerCase();
      if (headings.has(key)) found.push([number, `heading "${heading[3]}" again (line ${headings.get(key)}): its link anchor would clash`]);
      headings.set(key, number);
      previousLevel = level;
      continue;
    }
    if (!isRow(line) || isRow(lines[index - 1] ?? '')) continue;
    // The first row of a table: its header, then the delimiter row.
    if (isDelimiter(line)) {
      found.push([number, 'a table without a header row (its first row is | --- |): GitHub shows it as text']);
      continue;
    }
    const next = lines[index + 1] ?? '';
    if (!isDelimiter(next)) {
      found.push([number, 'a table row without a delimiter row (| --- |) under the header: GitHub shows it as text']);
      continue;
    }
    const width = cells(line).length;
    for (let row = index + 1; row < lines.length && isRow(lines[row]); row += 1) {
      const count = cells(lines[row]).length;
      if (count !== width) found.push([row + 1, `a table row of ${count} cells under a header of ${width}`]);
    }
  }
  return found;
}

function markdownFiles(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? markdownFiles(join(folder, entry.name)) : entry.name.endsWith('.md') ? [join(folder, entry.name)] : [],
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = process.argv.length > 2 ? process.argv.slice(2) : ['README.md', ...markdownFiles('docs')];
  let count = 0;
  for (const file of files) {
    for (const [line, message] of problems(readFileSync(file, 'utf8'))) {
      process.stdout.write(`${file}:${line}: ${message}\n`);
      count += 1;
    }
  }
  process.exit(count === 0 ? 0 : 1);
}
