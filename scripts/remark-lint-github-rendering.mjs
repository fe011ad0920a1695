// remark-lint rules for what GitHub renders as plain text or wrongly, which no published rule package catches:
// a paragraph line that starts with | (a table missing its header row or its delimiter row), a paragraph line that
// starts with #s and no space (a heading that is not one), and a table row with fewer cells than its header.
// The rest (extra cells, heading levels, duplicates) comes from remark-lint's own rule packages: see .remarkrc.json.
import { lintRule } from 'unified-lint-rule';
import { visit } from 'unist-util-visit';

/** The source lines of a node, each with its line number. */
function sourceLines(file, node) {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  if (start === undefined || end === undefined) return [];
  return String(file.value)
    .slice(start, end)
    .split('\n')
    .map((text, index) => ({ text, line: node.position.start.line + index }));
}

export const noTableLikeParagraph = lintRule(
  { origin: 'remark-lint:no-table-like-paragraph', url: 'https://github.github.com/gfm/#tables-extension-' },
  (tree, file) => {
    visit(tree, 'paragraph', (node) => {
      for (const { text, line } of sourceLines(file, node)) {
        if (!/^\s*\|/.test(text)) continue;
        const delimiterOnly = /^\s*\|(\s*:?-+:?\s*\|)+\s*$/.test(text);
        file.message(
          delimiterOnly
            ? 'Unexpected table without a header row (its first row is `| --- |`): GitHub shows it as text'
            : 'Unexpected table row in a paragraph: a table needs a header row, then a delimiter row (`| --- |`); GitHub shows it as text',
          { place: { line, column: 1 } },
        );
        return;
      }
    });
  },
);

export const noHeadingWithoutSpace = lintRule(
  { origin: 'remark-lint:no-heading-without-space', url: 'https://github.github.com/gfm/#atx-headings' },
  (tree, file) => {
    visit(tree, 'paragraph', (node) => {
      for (const { text, line } of sourceLines(file, node)) {
        const hashes = /^\s{0,3}(#{1,6})[^\s#]/.exec(text);
        if (hashes) file.message(`Unexpected heading without a space after ${hashes[1]}: GitHub shows it as text`, { place: { line, column: 1 } });
      }
    });
  },
);

export const noShortTableRow = lintRule(
  { origin: 'remark-lint:no-short-table-row', url: 'https://github.github.com/gfm/#tables-extension-' },
  (tree, file) => {
    visit(tree, 'table', (table) => {
      const width = table.align?.length ?? 0;
      for (const row of table.children.slice(1)) {
        if (row.children.length < width && row.position) {
          file.message(`Unexpected table row of ${row.children.length} cells under a header of ${width}`, { place: row.position });
        }
      }
    });
  },
);

/** The three rules as one preset, for .remarkrc.json. */
export default { plugins: [noTableLikeParagraph, noHeadingWithoutSpace, noShortTableRow] };
