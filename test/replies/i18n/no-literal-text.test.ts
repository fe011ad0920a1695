import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No user-facing text outside the catalogs: every string literal and template text in the code that writes replies,
 * embeds, buttons and console output, and in the schedule and the Discord transport (whose failure reasons members
 * read in /wotd-subscriptions and the admin notices), is read, and one that reads as words (two words of letters in
 * a row) fails the test, unless it goes to the log, into an Error for developers, is compared with input, or is
 * listed below with why it is not for members. Text for members belongs in src/replies/i18n/catalogs/en.json, read
 * through translatorFor; a failure's reason is a code (src/schedule/failure-reason.ts).
 */

const ROOT = resolve(import.meta.dirname, '../../..');
const SCANNED = ['commands', 'src/replies', 'src/console', 'src/discord', 'src/schedule'];

/** Files whose every text is for operators (the one-shot CLI and start-up stay English, docs/languages.md) or is SQL. */
const FOR_OPERATORS: Record<string, string> = {
  'src/discord/deploy-commands.ts': 'the one-shot CLI `wotd-bot deploy-commands`, for operators',
  'src/discord/login-retry.ts': "start-up: why Discord refused the bot's login, on stderr for its operator",
  'src/discord/login-backoff.ts': 'start-up: giving up the login, on stderr for its operator',
  'src/discord/shards.ts': "start-up: the shard plan, in the operator's log",
  'src/schedule/postgres-delivery-claims.ts': 'SQL',
  'src/schedule/subscription-store/delivery-decoding.ts': "what is wrong with a damaged record, for the log",
  'src/schedule/subscription-store/delivery-records.ts': 'the log line of a damaged record',
  'src/schedule/subscription-store/subscription-reads.ts': 'the log line of a damaged record',
};

/** Literals that are not interface text, by file and exact text, with the reason. */
const ALLOWED: Record<string, Record<string, string>> = {
  'src/schedule/due-index-build.ts': {
    'first start on this store since the index exists': "why the index is built, in the log line's fields",
    'built for ': "why the index is built, in the log line's fields",
    ', the runtime has ': "why the index is built, in the log line's fields",
  },
  'src/schedule/scheduler.ts': {
    'the clock went back (': "why the index is rebuilt, in the log line's fields",
    '): instants placed later may be late now': "why the index is rebuilt, in the log line's fields",
  },
  'src/schedule/privacy.ts': {
    'another member': "a placeholder value in the export's JSON data, in place of another member's id",
  },
  'src/console/banner.ts': {
    '  /wotd date:2025-01-14': 'a command as typed: its syntax is the same in every language',
    '  /wotd-history limit:5': 'a command as typed: its syntax is the same in every language',
    '  /wotd-find word:andante': 'a command as typed: its syntax is the same in every language',
  },
};

/** Properties of a message, embed or button whose value members read: even one word there is interface text. */
const SHOWN_PROPERTIES = new Set(['content', 'label', 'title', 'text', 'description', 'note', 'message', 'placeholder']);

/** Errors whose text members read, unlike other errors': none may carry a sentence. */
const ERRORS_FOR_MEMBERS = new Set(['DeliveryError']);

const COMPARISONS = new Set([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken]);

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
  if (ts.isBinaryExpression(node.parent) && COMPARISONS.has(node.parent.operatorToken.kind)) return true;
  for (let parent = node.parent; parent; parent = parent.parent) {
    if (ts.isImportDeclaration(parent) || ts.isExportDeclaration(parent)) return true;
    if (ts.isNewExpression(parent)) {
      const name = parent.expression.getText();
      if (/Error$/.test(name) && !ERRORS_FOR_MEMBERS.has(name)) return true;
    }
    // An Error subclass's message, handed to Error's constructor.
    if (ts.isCallExpression(parent) && parent.expression.kind === ts.SyntaxKind.SuperKeyword) return true;
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
      if (FOR_OPERATORS[name] !== undefined) continue;
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

  it('finds a failure reason written as a sentence, in a DeliveryError or a status', () => {
    const file = join(ROOT, 'test/replies/i18n/fixtures/literal-reason.ts.txt');
    expect(literalTexts(file).map(({ text }) => text)).toEqual([
      'Unknown Channel: the channel no longer exists',
      'Missing Embed Links in #',
      'the channel was deleted',
    ]);
  });
});
