import pino, { type Logger } from 'pino';

export type { Logger };

export interface LoggerOptions {
  level: string;
  /** Values that must never reach a log line, such as the bot token. */
  secrets?: Array<string | undefined>;
  /** Where lines go; standard error by default so stdout stays free for command output. */
  destination?: NodeJS.WritableStream;
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
    options.destination ?? pino.destination(2),
  );
}
