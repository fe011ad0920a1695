import { parseArgs } from 'node:util';
import { isHttpUrl, loadConfig, loadDotEnv } from '../config/settings.ts';
import { openWotdAdapter, type WotdAdapter } from '../wotd/adapter.ts';
import { parseAnyDate, type IsoDate } from '../wotd/dates.ts';
import type { Entry } from '../wotd/entry.ts';
import { isWotdError, type WotdErrorCode } from '../wotd/errors.ts';
import type { Lookup } from '../wotd/lookup.ts';
import { terminalText } from '../replies/terminal-text.ts';
import { quoted, singleLine } from '../config/message-text.ts';

/**
 * `wotd-bot query|history|find`: the adapter (same cache, same limiter) from the command line.
 * Exit codes: 0 found, 1 not found, 2 invalid input, 3 upstream problem.
 * With --json, stdout carries only JSON (an error too, as {"error": {...}}); notes and logs go to stderr.
 */

export const EXIT = { found: 0, notFound: 1, invalid: 2, upstream: 3 } as const;

/** How long the CLI waits for the rate limiter before saying "busy, retry at …". */
const CLI_MAX_WAIT_MS = 15_000;

const COMMON_OPTIONS = {
  json: { type: 'boolean', default: false },
  'api-url': { type: 'string' },
  variant: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const USAGE = {
  query: 'Usage: wotd-bot query [DATE] [--json] [--api-url URL] [--variant A|B|auto]\n  The word of DATE (YYYY-MM-DD or DD-MM-YYYY), today (UTC) when left out.',
  history: 'Usage: wotd-bot history [DATE] [--limit N] [--json] [--api-url URL] [--variant A|B|auto]\n  Up to N (1..8, default 3) words before DATE, newest first; before today when DATE is left out.',
  find: 'Usage: wotd-bot find WORD [--json] [--api-url URL] [--variant A|B|auto]\n  Every day WORD was the word of the day, newest first (any case). A service that reports only the first\n  date says so; --json prints {word, complete, results}.',
} as const;

type Command = keyof typeof USAGE;

class UsageError extends Error {}

interface Common {
  json: boolean;
  apiUrl: string | undefined;
  variant: 'A' | 'B' | 'auto' | undefined;
}

export function runQuery(args: string[]): Promise<number> {
  return run('query', args, {}, async (adapter, positionals) => {
    if (positionals.length > 1) throw new UsageError('give at most one DATE');
    const date = positionals[0] === undefined ? undefined : parseDate(positionals[0]);
    const found = await adapter.getEntry(date);
    return { found, json: found.value, text: formatEntry(found.value) };
  });
}

export function runHistory(args: string[]): Promise<number> {
  return run('history', args, { limit: { type: 'string' } }, async (adapter, positionals, values) => {
    if (positionals.length > 1) throw new UsageError('give at most one DATE');
    const date = positionals[0] === undefined ? undefined : parseDate(positionals[0]);
    const limitText = typeof values.limit === 'string' ? values.limit.trim() : '3';
    const limit = /^\d+$/.test(limitText) ? Number(limitText) : Number.NaN;
    if (!(limit >= 1 && limit <= 8)) throw new UsageError(`--limit must be a whole number from 1 to 8, got ${quoted(limitText)}`);
    const before = date ?? adapter.today();
    const page = await adapter.getPrevious(date, limit);
    if (page.value.entries.length === 0) return { found: null, notFound: `There are no words of the day before ${before}` };
    return {
      found: page,
      json: { date: before, has_more: page.value.hasMore, results: page.value.entries },
      text: [
        `Words of the day before ${before}:`,
        '',
        page.value.entries.map(formatEntry).join('\n\n'),
        ...(page.value.hasMore ? ['', `(older words exist: try wotd-bot history ${page.value.entries.at(-1)?.date ?? ''})`] : []),
      ].join('\n'),
    };
  });
}

export function runFind(args: string[]): Promise<number> {
  return run('find', args, {}, async (adapter, positionals) => {
    const word = positionals.join(' ').trim();
    if (word === '') throw new UsageError('give a WORD to look for');
    const found = await adapter.findWord(word);
    const { entries, complete } = found.value;
    return {
      found,
      json: { word, complete, results: entries },
      text: [findSummary(word, entries, complete), '', entries.map(formatEntry).join('\n\n')].join('\n'),
    };
  });
}

/** What a search found, saying so when the service reported only the first date. */
export function findSummary(word: string, entries: Entry[], complete: boolean): string {
  const first = entries.at(-1)?.date ?? '';
  if (complete) return `${quoted(word, 100)} was the word of the day ${entries.length === 1 ? 'once' : `${entries.length} times`}:`;
  const later = entries.length > 1 ? ` The later dates below are the ones this bot has seen; there may be more.` : '';
  return `${quoted(word, 100)} was first the word of the day on ${first}. The service reports only the first date.${later}`;
}

type Answer = { found: Lookup<unknown>; json: unknown; text: string } | { found: null; notFound: string };

type ExtraOptions = Record<string, { type: 'string' | 'boolean' }>;

async function run(
  command: Command,
  args: string[],
  extra: ExtraOptions,
  answer: (adapter: WotdAdapter, positionals: string[], values: Record<string, string | boolean | undefined>) => Promise<Answer>,
): Promise<number> {
  let common: Common = { json: args.includes('--json'), apiUrl: undefined, variant: undefined };
  let adapter: WotdAdapter | undefined;
  try {
    let parsed;
    try {
      parsed = parseArgs({ args, options: { ...COMMON_OPTIONS, ...extra }, allowPositionals: true, strict: true });
    } catch (error) {
      throw new UsageError(singleLine((error as Error).message));
    }
    const values = parsed.values as Record<string, string | boolean | undefined>;
    if (values.help === true) {
      process.stdout.write(`${USAGE[command]}\n`);
      return EXIT.found;
    }
    common = readCommon(values);
    loadDotEnv();
    const config = loadConfig();
    adapter = await openWotdAdapter(config, {
      ...(common.apiUrl ? { baseUrl: common.apiUrl } : {}),
      ...(common.variant ? { variant: common.variant } : {}),
      maxWaitMs: { interactive: CLI_MAX_WAIT_MS },
      onWarning: (message) => process.stderr.write(`wotd-bot: warning: ${message}\n`),
      onRequest: (event) => {
        if (event.outcome === 'ok' || event.outcome === 'not_found') return;
        const detail = event.detail ? `: ${event.detail}` : '';
        process.stderr.write(`wotd-bot: GET ${event.path} → ${event.outcome.replace('_', ' ')}${detail}\n`);
      },
    });
    const result = await answer(adapter, parsed.positionals, values);
    if (result.found === null) return fail(common, 'not_found', result.notFound);
    if (result.found.stale) {
      process.stderr.write('note: the Word-of-the-Day service could not answer; this is a cached copy that may be out of date\n');
    }
    process.stdout.write(common.json ? `${JSON.stringify(result.json, null, 2)}\n` : `${result.text}\n`);
    return EXIT.found;
  } catch (error) {
    if (error instanceof UsageError) {
      if (!common.json) process.stderr.write(`${USAGE[command]}\n\n`);
      return fail(common, 'invalid_input', error.message);
    }
    if (isWotdError(error)) return fail(common, error.code, error.message, error.retryAt);
    if (error instanceof Error && error.name === 'ConfigError') return fail(common, 'invalid_input', error.message);
    return fail(common, 'unavailable', error instanceof Error ? error.message : String(error));
  } finally {
    await adapter?.close();
  }
}

function readCommon(values: Record<string, string | boolean | undefined>): Common {
  const json = values.json === true;
  let apiUrl: string | undefined;
  if (typeof values['api-url'] === 'string') {
    const text = values['api-url'].trim();
    if (!isHttpUrl(text)) {
      throw new UsageError(`--api-url must be an http(s) URL such as https://api.wotd.site, got ${quoted(text)}`);
    }
    apiUrl = text.replace(/\/+$/, '');
  }
  let variant: Common['variant'];
  if (typeof values.variant === 'string') {
    const text = values.variant.trim();
    const normalized = text.toLowerCase() === 'auto' ? 'auto' : text.toUpperCase();
    if (normalized !== 'A' && normalized !== 'B' && normalized !== 'auto') {
      throw new UsageError(`--variant must be A, B or auto, got ${quoted(text)}`);
    }
    variant = normalized;
  }
  return { json, apiUrl, variant };
}

function parseDate(text: string): IsoDate {
  const date = parseAnyDate(text);
  if (date === null) throw new UsageError(`${quoted(text)} is not a real date; write it as YYYY-MM-DD or DD-MM-YYYY`);
  return date;
}

const EXIT_FOR: Record<WotdErrorCode, number> = {
  not_found: EXIT.notFound,
  invalid_input: EXIT.invalid,
  future_date: EXIT.invalid,
  rate_limited: EXIT.upstream,
  unavailable: EXIT.upstream,
  bad_response: EXIT.upstream,
};

function fail(common: Common, code: WotdErrorCode, message: string, retryAt?: Date): number {
  if (common.json) {
    const error = { code, message, ...(retryAt ? { retryAt: retryAt.toISOString() } : {}) };
    process.stdout.write(`${JSON.stringify({ error })}\n`);
  }
  // The message may quote what was typed (a word, a date): it stays one line.
  process.stderr.write(`wotd-bot: ${singleLine(message)}\n`);
  return EXIT_FOR[code];
}

/** An entry as people read it: the date and word, part of speech and IPA, then the definition (control characters visible). */
export function formatEntry(entry: Entry): string {
  const pos = entry.pos.trim() === '' ? '' : ` (${entry.pos})`;
  const ipa = entry.ipa.trim() === '' ? '' : `  ${entry.ipa}`;
  return terminalText(`${entry.date}  ${entry.word}${pos}${ipa}\n  ${entry.definition}`);
}
