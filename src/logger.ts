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
      hooks: {
        logMethod(args, method) {
          const cleaned = args.map((arg) => scrub(arg, secrets)) as Parameters<typeof method>;
          method.apply(this, cleaned);
        },
      },
      formatters: {
        log(object) {
          return secrets.length === 0 ? object : (JSON.parse(scrub(JSON.stringify(object), secrets) as string) as Record<string, unknown>);
        },
      },
    },
    options.destination ?? pino.destination(2),
  );
}
