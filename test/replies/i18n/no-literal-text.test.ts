import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No user-facing text outside the catalogs: every string literal and template text in the code that writes replies,
 * embeds, buttons and console output is read, and one that reads as words (two words of letters in a row) fails
 * the test, unless it goes to the log, into an Error for developers, or is listed below with why it is not for
 * members. Text for members belongs in src/replies/i18n/catalogs/en.json, read through translatorFor.
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const SCANNED = ['commands', 'src/replies', 'src/console', 'src/discord/router.ts', 'src/discord/invoker.ts'];

/** Literals that are not interface text, by file and exact text, with the reason. */
const ALLOWED: Record<string, Record<string, string>> = {
  'src/console/banner.ts': {
    '  /wotd date:2025-01-14': 'a command as typed: its syntax is the same in every language',
    '  /wotd-history limit:5': 'a command as typed: its syntax is the same in every language',
    '  /wotd-find word:andante': 'a command as typed: its syntax is the same in every language',
  },
};

/** Properties of a message, embed or button whose value members read: even one word there is interface text. */
const SHOWN_PROPERTIES = new Set(['content', 'label', 'title', 'text', 'description', 'note', 'message', 'placeholder']);

/** Calls whose string arguments are for operators and developers, not members. */
const LOG_METHODS = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'child']);

const PROSE = /\p{L}{2,}[ \u00a0]+\p{L}{2,}/u;

function filesUnder(path: string): string[] {
  const full = join(ROOT, path);
  if (path.endsWith('.ts')) return [full];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const child = join(path, entry.name);
    if (entry.isDirectory()) return filesUnder(child);
    return entry.name.endsWith('.ts') ? [join(ROOT, child)] : [];
  });
}

/** Whether a literal sits where text is for developers: a log call, an Error, a comparison, an import. */
function forDevelopers(node: ts.Node): boolean {
  for (let parent = node.parent; parent; parent = parent.parent) {
    if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) return true;
    if (ts.isNewExpression(parent) && /Error$/.test(parent.expression.getText())) return true;
    if (ts.isCallExpression(parent)) {
      const callee = parent.expression;
      if (ts.isPropertyAccessExpression(callee) && LOG_METHODS.has(callee.name.text)) return true;
      if (ts.isCallExpression(callee) && /log\(\)$/.test(callee.getText())) return true;
    }
    if (ts.isBlock(parent) || ts.isSourceFile(parent)) return false;
  }
  return false;
}

function literalTexts(file: string): Array<{ line: number; text: string }> {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Array<{ line: number; text: string }> = [];
  const visit = (node: ts.Node): void => {
    let texts: string[] = [];
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) texts = [node.text];
    else if (ts.isTemplateExpression(node)) texts = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)];
    const shown =
      node.parent !== undefined && ts.isPropertyAssignment(node.parent) && node.parent.initializer === node && SHOWN_PROPERTIES.has(node.parent.name.getText().replace(/['"]/g, ''));
    for (const text of texts) {
      const words = PROSE.test(text) || (shown && /\p{L}/u.test(text));
      if (words && !forDevelopers(node)) found.push({ line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('user-facing text', () => {
  it('is never written as a literal outside the catalogs', () => {
    const offenders: string[] = [];
    for (const file of SCANNED.flatMap(filesUnder)) {
      const name = relative(ROOT, file);
      for (const { line, text } of literalTexts(file)) {
        if (ALLOWED[name]?.[text] !== undefined) continue;
        offenders.push(`${name}:${line}: ${JSON.stringify(text)}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('finds a literal reply when there is one', () => {
    const file = join(ROOT, 'test/replies/i18n/fixtures/literal-reply.ts.txt');
    expect(literalTexts(file).map(({ text }) => text)).toEqual(['Nothing was erased, sorry.', 'Older']);
  });
});
