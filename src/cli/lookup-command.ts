import { invokedAs } from './invoked-as.ts';
import { parseArgs } from 'node:util';
import { isHttpUrl, loadConfig, loadDotEnv } from '../config/settings.ts';
import { openWotdAdapter, type WotdAdapter } from '../wotd/adapter.ts';
import type { IsoDate } from '../wotd/dates.ts';
import type { Entry } from '../wotd/entry.ts';
import { isWotdError, type WotdErrorCode } from '../wotd/errors.ts';
import type { Lookup } from '../wotd/lookup.ts';
import { readDateOption, revealedSoon, revealInstant } from '../replies/date-text.ts';
import { terminalText } from '../replies/terminal-text.ts';
import { quoted, singleLine } from '../config/message-text.ts';
import { nearestName } from '../config/nearest-name.ts';
import { localClockTime, tryAgainText, waitForRetry } from './retry-wait.ts';

/**
 * `wotd-bot query|history|find`: the adapter (same cache, same limiter) from the command line.
 * Exit codes: 0 found, 1 not found, 2 invalid input, 3 upstream problem.
 * With --json, stdout carries only JSON (an error too, as {"error": {...}}); notes and logs go to stderr.
 */

export const EXIT = { found: 0, notFound: 1, invalid: 2, upstream: 3 } as const;

/** How long a lookup may queue for the rate limit in silence; past that the CLI says it waits, and for how long. */
const SILENT_WAIT_MS = 1_000;

/** The longest the CLI waits for the rate limit (a little over the service's one-minute window); past it, "try again in …". */
const CLI_MAX_WAIT_MS = 90_000;

/** Waits for the rate limit in one run, at most: each is the service saying "not yet" again. */
const MAX_WAITS = 5;

const COMMON_OPTIONS = {
  json: { type: 'boolean', default: false },
  'api-url': { type: 'string' },
  variant: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const USAGE = {
  query:
    'Usage: wotd-bot query [DATE] [--json] [--api-url URL] [--variant A|B|auto]\n  The word of DATE (YYYY-MM-DD, DD-MM-YYYY, today or yesterday), today (UTC) when left out.',
  history:
    'Usage: wotd-bot history [DATE] [--limit N] [--json] [--api-url URL] [--variant A|B|auto]\n  Up to N (1..8, default 3) words before DATE (as for query), newest first; before today when DATE is left out.',
  find: 'Usage: wotd-bot find WORD [--json] [--api-url URL] [--variant A|B|auto]\n  Every day WORD was the word of the day, newest first (any case). A service that reports only the first\n  date says so; --json prints {word, complete, results}.',
} as const;

type Command = keyof typeof USAGE;

class UsageError extends Error {}

/** A day after the service's today: there is no word for it yet (exit code 2, as the slash command refuses it). */
class NoWordYet extends Error {}

interface Common {
  json: boolean;
  apiUrl: string | undefined;
  variant: 'A' | 'B' | 'auto' | undefined;
}

export function runQuery(args: string[]): Promise<number> {
  return run('query', args, {}, async (adapter, positionals) => {
    if (positionals.length > 1) throw new UsageError('give at most one DATE');
    const date = readDate(positionals[0], adapter);
    const found = await adapter.getEntry(date);
    return { found, json: found.value, text: formatEntry(found.value) };
  });
}

export function runHistory(args: string[]): Promise<number> {
  return run('history', args, { limit: { type: 'string' } }, async (adapter, positionals, values) => {
    if (positionals.length > 1) throw new UsageError('give at most one DATE');
    const date = readDate(positionals[0], adapter);
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
        ...(page.value.hasMore ? ['', `(older words exist: try ${olderCommand(page.value.entries.at(-1)?.date ?? '', limitText, values)})`] : []),
      ].join('\n'),
    };
  });
}

/** The same history command one page further back: same limit, same service and variant, the command as it was run. */
function olderCommand(date: string, limit: string, values: Record<string, string | boolean | undefined>): string {
  const flags = [
    ...(limit !== '3' ? ['--limit', limit] : []),
    ...(typeof values['api-url'] === 'string' ? ['--api-url', values['api-url'].trim()] : []),
    ...(typeof values.variant === 'string' ? ['--variant', values.variant.trim()] : []),
  ];
  return [invokedAs(), 'history', date, ...flags].join(' ');
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
    const options = { ...COMMON_OPTIONS, ...extra };
    refuseUnknownOptions(args, Object.keys(options));
    let parsed;
    try {
      parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
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
      maxWaitMs: { interactive: SILENT_WAIT_MS },
      onWarning: (message) => process.stderr.write(`wotd-bot: warning: ${message}\n`),
      onRequest: (event) => {
        // A 429 is said once, with the wait, by waitingOutRateLimit.
        if (event.outcome === 'ok' || event.outcome === 'not_found' || event.outcome === 'rate_limited') return;
        const detail = event.detail ? `: ${event.detail}` : '';
        process.stderr.write(`wotd-bot: GET ${event.path} → ${event.outcome.replace('_', ' ')}${detail}\n`);
      },
    });
    const opened = adapter;
    const result = await waitingOutRateLimit(() => answer(opened, parsed.positionals, values));
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
    if (error instanceof NoWordYet) return fail(common, 'future_date', error.message);
    if (isWotdError(error, 'rate_limited') && error.retryAt) return fail(common, error.code, tryAgainText(error.retryAt, Date.now()), error.retryAt);
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

/**
 * A lookup that meets the rate limit waits it out, up to CLI_MAX_WAIT_MS, saying so in one line (a countdown on a
 * terminal), then asks again; a longer wait fails at once with when to try again.
 */
async function waitingOutRateLimit<T>(work: () => Promise<T>): Promise<T> {
  const giveUpAt = Date.now() + CLI_MAX_WAIT_MS;
  for (let waits = 0; ; waits += 1) {
    try {
      return await work();
    } catch (error) {
      if (!isWotdError(error, 'rate_limited') || !error.retryAt || waits >= MAX_WAITS || error.retryAt.getTime() > giveUpAt) throw error;
      // At least a second: a limit that says "now" again and again is not asked in a tight loop.
      const until = new Date(Math.max(error.retryAt.getTime(), Date.now() + 1_000));
      await waitForRetry(until, { stream: process.stderr });
    }
  }
}

/** Options given that the command does not take, refused with the nearest one it does (`--limt`: did you mean `--limit`?). */
function refuseUnknownOptions(args: string[], known: string[]): void {
  for (const arg of args) {
    if (arg === '--') return;
    if (!arg.startsWith('--')) continue;
    const name = arg.slice(2).split('=')[0] ?? '';
    if (known.includes(name)) continue;
    const nearest = nearestName(name, known);
    throw new UsageError(`unknown option ${quoted(`--${name}`)}${nearest ? `; did you mean \`--${nearest}\`?` : ''}`);
  }
}

/**
 * DATE as the slash commands read it (YYYY-MM-DD, DD-MM-YYYY, today, yesterday); undefined when left out, so the
 * service answers for its own today.
 */
function readDate(text: string | undefined, adapter: WotdAdapter): IsoDate | undefined {
  if (text === undefined) return undefined;
  const today = adapter.today();
  const option = readDateOption(text, today);
  if (option.kind === 'date') return option.date;
  if (option.kind === 'future') throw new NoWordYet(noWordYet(option.date, today));
  const what = option.realDay === false ? 'is not a real calendar day' : 'is not a date';
  throw new UsageError(`${quoted(text)} ${what}; write it as YYYY-MM-DD, DD-MM-YYYY, today or yesterday`);
}

/** A future day, said plainly: soon, when its word is revealed; further ahead, that the service has none yet. */
function noWordYet(date: IsoDate, today: IsoDate): string {
  if (!revealedSoon(date, today)) {
    return `there is no word of the day for ${date} yet: the service reveals each day's word on that day (today is ${today}, UTC)`;
  }
  const reveal = revealInstant(date);
  const minutes = Math.max(1, Math.ceil((reveal.getTime() - Date.now()) / 60_000));
  const wait = minutes < 60 ? `${minutes} min` : minutes < 48 * 60 ? `${Math.round(minutes / 60)} h` : `${Math.round(minutes / 1440)} days`;
  return `the word of the day for ${date} has not been revealed yet; it will be in ${wait} (00:00 UTC, ${localClockTime(reveal)} here)`;
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
