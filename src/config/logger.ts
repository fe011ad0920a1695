import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

export interface LoggerOptions {
  level: string;
  /** Values that must never reach a log line, such as the bot token. */
  secrets?: Array<string | undefined>;
  /** Where lines go; standard error by default so stdout stays free for command output. */
  destination?: NodeJS.WritableStream;
  /**
   * LOG_FORMAT: `pretty` writes readable lines (pino-pretty), `json` one JSON object a line, `auto` (the default)
   * pretty when the destination is a terminal (standard error's `isTTY`), JSON otherwise.
   */
  format?: 'auto' | 'pretty' | 'json';
}

/** Whether LOG_FORMAT asks for readable lines on this destination. */
export function prettyLogs(format: LoggerOptions['format'] = 'auto', destination: { isTTY?: boolean } = process.stderr): boolean {
  return format === 'pretty' || (format === 'auto' && destination.isTTY === true);
}

type PrettyFactory = (options: Record<string, unknown>) => DestinationStream;

/**
 * pino's own pretty printer, as a synchronous stream in this thread (no worker: a line is out before the process
 * exits). Loaded only when asked for, so a bot logging JSON never loads it.
 */
function prettyStream(destination: NodeJS.WritableStream | number, colorize: boolean): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as PrettyFactory;
  return pretty({ destination, sync: true, colorize, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}

const REDACTED = '[redacted]';

function scrub(value: unknown, secrets: string[]): unknown {
  if (typeof value !== 'string') return value;
  return secrets.reduce((text, secret) => text.split(secret).join(REDACTED), value);
}

/** Structured JSON logs; tokens and authorization headers are redacted wherever they appear. */
export function createLogger(options: LoggerOptions): Logger {
  const secrets = (options.secrets ?? []).filter((secret): secret is string => typeof secret === 'string' && secret.length >= 8);
  return pino(
    {
      level: options.level,
      base: undefined,
      redact: {
        paths: ['token', '*.token', 'authorization', '*.authorization', 'headers.authorization', '*.headers.authorization'],
        censor: REDACTED,
      },
      // Errors are serialized in formatters.log below, after which nothing may re-serialize them.
      serializers: { err: (value: unknown) => value },
      hooks: {
        logMethod(args, method) {
          const [first, ...rest] = args;
          // pino would take an Error's message as the line's msg unscrubbed: give it the scrubbed one.
          const lifted = first instanceof Error ? [{ err: first }, ...(rest.length > 0 ? rest : [first.message])] : args;
          const cleaned = lifted.map((arg) => scrub(arg, secrets)) as Parameters<typeof method>;
          method.apply(this, cleaned);
        },
      },
      formatters: {
        log(object) {
          // Errors keep their type, message and stack (not enumerable, so JSON.stringify alone would drop them).
          // Each string is scrubbed as it is, before JSON escapes it (a secret holding " or \\ would not match after).
          const json = JSON.stringify(object, (_key, value: unknown) =>
            value instanceof Error ? pino.stdSerializers.err(value) : scrub(value, secrets),
          );
          return JSON.parse(json) as Record<string, unknown>;
        },
      },
    },
    destinationFor(options),
  );
}

function destinationFor(options: LoggerOptions): DestinationStream | NodeJS.WritableStream {
  const target = options.destination ?? process.stderr;
  if (!prettyLogs(options.format, target as { isTTY?: boolean })) return options.destination ?? pino.destination(2);
  const colorize = (target as { isTTY?: boolean }).isTTY === true && !process.env.NO_COLOR;
  return prettyStream(options.destination ?? 2, colorize);
}
