import fc from 'fast-check';
import { expect } from 'vitest';

/**
 * What the generated-input tests share: the run settings, the pieces bad input is made of, and the checks every
 * answer must pass (specific, no stack trace, well-formed, bounded in time).
 *
 * Every file runs its properties with a fixed seed, so a failure is reproduced by running the file again; fast-check
 * prints the seed and the path of the smallest failing value. FC_SEED=<n> tries another seed (and FC_END=1 skips
 * shrinking).
 */

/** At least this many generated values per option, line, argument set, query and setting (the floor). */
export const RUNS = 1000;

/**
 * Runs of a property whose options a member may leave out: fc.option leaves one run in six without the option, so
 * RUNS runs would give each such option only about 830 values. This many give each about 1,125, and the property
 * checks with `optionCounts` that every option got at least RUNS.
 */
export const RUNS_WITH_OPTIONAL = Math.ceil(RUNS * 1.35);

/** Counts, per option, the runs that gave it a value (neither left out nor null). */
export function optionCounts(names: readonly string[]): { see(options: Record<string, unknown>): void; expectEachAtLeast(floor?: number): void } {
  const counts = new Map<string, number>(names.map((name) => [name, 0]));
  return {
    see(options) {
      for (const [name, value] of Object.entries(options)) {
        const count = counts.get(name);
        if (count === undefined) throw new Error(`option ${name} is not counted`);
        if (value !== undefined && value !== null) counts.set(name, count + 1);
      }
    },
    expectEachAtLeast(floor = RUNS) {
      const short = [...counts].filter(([, count]) => count < floor);
      expect(short, `options given fewer than ${floor} generated values`).toEqual([]);
    },
  };
}

/** The file's own seed, unless FC_SEED asks for another. */
export function seedOf(seed: number): number {
  const fromEnv = process.env.FC_SEED;
  return fromEnv ? Number(fromEnv) : seed;
}

/** FC_END=1 reports the first failure without shrinking it, which is quicker while debugging. */
export function settings<T>(seed: number, numRuns = RUNS): fc.Parameters<T> {
  return { seed: seedOf(seed), numRuns, endOnFailure: process.env.FC_END === '1' };
}

/** The adapter's limit in the test worlds: high enough that a thousand lookups in a few seconds never queue. */
export const WORLD_RATE_LIMIT = 5_000;

/**
 * For a property of a thousand runs through real servers: seconds on a quiet machine, but the machine is shared,
 * and vitest's default 20 s would turn a busy moment into a failure.
 */
export const PROPERTY_TIMEOUT_MS = 120_000;

/** Longer than this and an answer counts as a hang: generous, since it only has to tell stuck from slow. */
export const HANG_MS = 8_000;

/** Fails with a message naming `what` when `work` has not settled within HANG_MS. */
export async function withinBound<T>(what: string, work: Promise<T>, limitMs = HANG_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${limitMs} ms (a hang): ${what}`)), limitMs);
  });
  try {
    return await Promise.race([work, hang]);
  } finally {
    clearTimeout(timer);
  }
}

// ------------------------------------------------------------------------------------------ pieces of bad input

/** Markdown Discord renders, and escapes of it. */
export const MARKDOWN = [
  '*', '**', '***', '_', '__', '___', '~~', '||', '`', '``', '```', '```js\n', '\\', '\\*', '\\\\', '\\_',
  '# ', '## ', '### ', '-# ', '> ', '>>> ', '- ', '* ', '1. ', '\n', '\n# ', '\n> ', '\n- ', '\n1. ', '   # ',
  '[link](https://evil.example)', '[x](<https://evil.example/a>)', '[**bold**](http://e.x "t")', '](', '[', ']',
  '<https://example.com>', 'https://example.com/a_b*c*', 'http://x.y/__z__', 'https://e.x/**', 'www.evil.example',
  '<:', '<a:x:', 'spoiler||', ':smile:',
];

/** Everything that pings or renders as a mention or tag when Discord resolves it. */
export const MENTIONS = [
  '@everyone', '@here', '<@123456789012345678>', '<@!123456789012345678>', '<@&123456789012345678>',
  '<#123456789012345678>', '</wotd:123456789012345678>', '<t:0:R>', '<t:1737374460>', '<:emoji:123456789012345678>',
  '<a:dance:123456789012345678>', '<@&1>', '<@1>', '@\u200beveryone', '＠everyone', '@Everyone', '@@everyone', '<@', '@',
  '<id:customize>', '<sound:1:2>',
];

/** Zero-width and direction characters. */
export const INVISIBLE = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u202e', '\u2066', '\u2069', '\u061c'];

/** Control characters and terminal escape sequences. */
export const CONTROL = [
  '\u0000', '\u0007', '\u0008', '\t', '\r', '\v', '\f', '\u001b', '\u001b[31m', '\u001b[2J', '\u001b]0;pwned\u0007',
  '\u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\', '\u009b31m', '\u0085', '\u007f', '\u2028', '\u2029',
];

export const QUOTES = ['"', "'", '“', '”', '‘', '’', '«', '»', '`', '""', "''", '"a b"', "'a b'"];

/** Lone surrogates: not text, but a JavaScript string can hold them. */
export const BROKEN = ['\ud800', '\udfff', '\udbff\udbff', 'a\udc00b'];

export const NUMBERS = ['0', '-1', '1', '8', '9', '00', '1e3', '0x10', '1.5', '٣', '１', 'NaN', 'Infinity', '-0', '9'.repeat(30), ' 3 '];

export const DATES = [
  '2025-01-14', '14-01-2025', '2025-02-30', '30-02-2025', '2025-1-4', '2025/01/14', '0000-01-01', '0001-01-01', '9999-12-31',
  '31-12-9999', '2025-13-01', '2024-02-29', '2023-02-29', 'today', 'yesterday', 'TODAY', ' Yesterday ', 'tomorrow',
  '2025-01-20', '2025-01-21', '2025-01-14T00:00:00Z', '20250114', '１２-01-2025', '2025‐01‐14',
];

const fragment = (extra: readonly string[]): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...MARKDOWN, ...MENTIONS, ...extra) },
    { weight: 2, arbitrary: fc.constantFrom(...INVISIBLE, ...CONTROL, ...QUOTES, ...NUMBERS, ...DATES, ' ', '  ', ':', '=') },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 8 }) },
    { weight: 1, arbitrary: fc.constantFrom('a', 'word', 'serendipity', 'echo', 'Europe/London', '09:00', '#general', '@readers') },
  );

export interface NastyOptions {
  /** Pieces of the surface's own syntax to mix in. */
  extra?: readonly string[];
  maxPieces?: number;
  /** Lone surrogates, which only in-process callers can pass. */
  broken?: boolean;
  /** Now and then a huge value of up to this many characters. */
  huge?: number;
}

/** Text made of the pieces above: markdown, mentions, quotes, control and invisible characters, any unicode. */
export function nastyText(options: NastyOptions = {}): fc.Arbitrary<string> {
  const extra = [...(options.extra ?? []), ...(options.broken ? BROKEN : [])];
  const pieces = fc.array(fragment(extra), { maxLength: options.maxPieces ?? 12 }).map((parts) => parts.join(''));
  if (!options.huge) return pieces;
  const huge = fc
    .tuple(fragment(extra), fc.integer({ min: 1, max: options.huge }))
    .map(([part, length]) => (part === '' ? 'x' : part).repeat(Math.ceil(length / Math.max(1, part.length))).slice(0, length))
    // Cut whole characters only: a lone surrogate here would be the generator's, not the input's.
    .map((text) => text.replace(/[\ud800-\udbff]$/, ''));
  return fc.oneof({ weight: 9, arbitrary: pieces }, { weight: 1, arbitrary: huge });
}

// ------------------------------------------------------------------------------------------ checks of answers

/** A stack frame, an error class name at the start of a line, or what a stringified object looks like. */
const LEAKS: Array<[RegExp, string]> = [
  [/^\s*at .+(:\d+:\d+\)?|\(native\))$/m, 'a stack frame'],
  [/\b(Type|Range|Reference|Syntax|Zod)?Error: /, 'an error class name'],
  [/\[object \w+\]/, '[object …]'],
  [/\bundefined\b|\bNaN\b/, 'undefined or NaN'],
  [/Unhandled|ERR_[A-Z_]+/, 'an unhandled error'],
];

/** Messages that say nothing about what was wrong. */
export const GENERIC = [/something went wrong/i, /internal error/i, /unknown error/i, /^error$/i];

/** Input quoted back (“…” or "…") may say anything; what is around it may not. */
function withoutQuotes(text: string): string {
  return text.replace(/“[^”]*”|"[^"\n]*"/g, '“…”');
}

/** Problems with a text a person is shown; empty when there are none. What `input` itself holds is no leak. */
export function leaks(text: string, input = ''): string[] {
  const found: string[] = [];
  const own = withoutQuotes(text);
  for (const [pattern, what] of LEAKS) if (pattern.test(own) && !pattern.test(input)) found.push(what);
  for (const pattern of GENERIC) if (pattern.test(own)) found.push(`a generic message (${pattern.source})`);
  return found;
}

/** Fails with the text and what is wrong with it. */
export function expectSpecific(text: string, context: string, input = ''): void {
  const problems = leaks(text, input);
  if (problems.length > 0) throw new Error(`${context}: the answer has ${problems.join(', ')}:\n${text}`);
  if (text.trim() === '') throw new Error(`${context}: the answer is empty`);
}

/** C0 and C1 controls other than newline and tab: what can drive a terminal. */
export const TERMINAL_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

/** Unicode the bot sends must be well formed wherever the input was. */
export function wellFormed(text: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

/** Tracks unhandled rejections and uncaught exceptions while a file runs; vitest reports them too. */
export function trackUnhandled(): { problems: unknown[]; stop(): void } {
  const problems: unknown[] = [];
  const onRejection = (reason: unknown): void => {
    problems.push(reason);
  };
  const onException = (error: unknown): void => {
    problems.push(error);
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return {
    problems,
    stop() {
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
    },
  };
}
