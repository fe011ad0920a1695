import { ListenError, listenFailureText } from '../config/listen-error.ts';
import { loadConfig, loadDotEnv } from '../config/settings.ts';
import { quoted, singleLine } from '../config/message-text.ts';
import { nearestName } from '../config/nearest-name.ts';
import type { Variant } from '../wotd/dates.ts';
import { DEFAULT_RATE_LIMIT, startWotdService } from './server.ts';
import { DEFAULT_DATABASE_RATE_LIMIT } from './database-pages.ts';

export const DEFAULT_SERVE_PORT = 8080;

export interface ServeFlags {
  port: number;
  host: string;
  variant: Variant;
  db: string | undefined;
  rateLimit: number;
  snapshotDir: string | undefined;
}

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const SERVE_USAGE = `Usage: wotd-bot serve [options]

Runs the Word-of-the-Day service over HTTP.

Options:
  --port N          port to listen on, 0 for any free port (default ${DEFAULT_SERVE_PORT})
  --host HOST       address to listen on (default 127.0.0.1)
  --variant A|B     date format: A = YYYY-MM-DD, B = DD-MM-YYYY (default A)
  --db FILE         SQLite word list (default WOTD_SERVICE_DB, else the bot's own data/words.sqlite)
  --rate-limit N    requests per minute per client address, 0 for none (default ${DEFAULT_RATE_LIMIT});
                    the /databases pages allow ${DEFAULT_DATABASE_RATE_LIMIT} each, or none with 0
  --snapshot-dir D  variant A: keep the monthly snapshots of /databases in folder D (default a temporary
                    folder, removed when the service stops)
  -h, --help        show this help`;

function wholeNumber(flag: string, text: string, max: number, expected: string): number {
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!(value <= max)) throw new UsageError(`${flag} ${quoted(text)}: expected ${expected}`);
  return value;
}

/** Reads `--flag value` and `--flag=value` forms; anything unknown or malformed is a UsageError. */
export function parseServeFlags(args: readonly string[]): ServeFlags | 'help' {
  const flags: ServeFlags = {
    port: DEFAULT_SERVE_PORT,
    host: '127.0.0.1',
    variant: 'A',
    db: undefined,
    rateLimit: DEFAULT_RATE_LIMIT,
    snapshotDir: undefined,
  };
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === '-h' || arg === '--help') return 'help';
    const equals = arg.indexOf('=');
    const name = arg.startsWith('--') && equals !== -1 ? arg.slice(0, equals) : arg;
    const known = ['--port', '--host', '--variant', '--db', '--rate-limit', '--snapshot-dir'];
    if (!known.includes(name)) {
      const nearest = name.startsWith('--') ? nearestName(name, known) : null;
      throw new UsageError(`unknown option ${quoted(arg)}${nearest ? `; did you mean \`${nearest}\`?` : ''} (see wotd-bot serve --help)`);
    }
    let value: string;
    if (equals !== -1 && name !== arg) {
      value = arg.slice(equals + 1);
    } else {
      const next = args[i + 1];
      if (next === undefined || (next.startsWith('--') && next.length > 2)) throw new UsageError(`${name} needs a value`);
      value = next;
      i += 1;
    }
    switch (name) {
      case '--port':
        flags.port = wholeNumber('--port', value, 65_535, 'a port number from 0 to 65535');
        break;
      case '--host':
        if (value.trim() === '') throw new UsageError('--host must not be empty');
        flags.host = value.trim();
        break;
      case '--variant': {
        const variant = value.trim().toUpperCase();
        if (variant !== 'A' && variant !== 'B') {
          throw new UsageError(`--variant ${quoted(value)}: expected A (YYYY-MM-DD) or B (DD-MM-YYYY)`);
        }
        flags.variant = variant;
        break;
      }
      case '--db':
        if (value.trim() === '') throw new UsageError('--db must not be empty');
        flags.db = value;
        break;
      case '--snapshot-dir':
        if (value.trim() === '') throw new UsageError('--snapshot-dir must not be empty');
        flags.snapshotDir = value;
        break;
      case '--rate-limit':
        flags.rateLimit = wholeNumber(
          '--rate-limit',
          value,
          1_000_000,
          'a whole number of requests per minute, 0 for no limit',
        );
        break;
    }
  }
  return flags;
}

/** `wotd-bot serve`: runs until SIGINT or SIGTERM, then stops cleanly. */
export async function runServe(args: string[]): Promise<number> {
  let flags: ServeFlags | 'help';
  try {
    flags = parseServeFlags(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`wotd-bot serve: ${error.message}\n`);
    return 2;
  }
  if (flags === 'help') {
    process.stdout.write(`${SERVE_USAGE}\n`);
    return 0;
  }
  let dbPath = flags.db;
  if (dbPath === undefined) {
    loadDotEnv();
    dbPath = loadConfig().WOTD_SERVICE_DB;
  }

  let service;
  try {
    service = await startWotdService({
      dbPath,
      variant: flags.variant,
      host: flags.host,
      port: flags.port,
      rateLimitPerMinute: flags.rateLimit,
      ...(flags.snapshotDir === undefined ? {} : { snapshotDir: flags.snapshotDir }),
    });
  } catch (error) {
    if (error instanceof ListenError) {
      const names = { port: '--port', host: '--host', inUseAdvice: '(--port 0 picks a free one)' };
      process.stderr.write(`wotd-bot serve: ${singleLine(listenFailureText(error.code, error.host, error.port, names, error.cause instanceof Error ? error.cause.message : ''))}\n`);
      return 2;
    }
    // The reason may quote the --db path or --host as given: it stays one line.
    process.stderr.write(`wotd-bot serve: ${singleLine(error instanceof Error ? error.message : String(error))}\n`);
    return 1;
  }
  const limit = flags.rateLimit === 0 ? 'no rate limit' : `${flags.rateLimit} requests/min per client`;
  process.stdout.write(
    `wotd service listening on ${service.url} (variant ${flags.variant}, ${dbPath}, ${limit})\n`,
  );
  if (service.snapshotDir !== undefined) {
    process.stdout.write(`monthly database snapshots on ${service.url}/databases (files in ${service.snapshotDir})\n`);
  }

  const running = service;
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.stdout.write(`wotd service stopping (${signal})\n`);
      running.close().then(resolve, resolve);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  return 0;
}
